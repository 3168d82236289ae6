module gonocgo

go 1.19
