module gonet

go 1.19
