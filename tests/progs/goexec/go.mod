module goexec

go 1.19
