// gospin — a Go program for the outside mode (test_static.sh), built
// static with CGO_ENABLED=0: two goroutines, one running spinA for 3 units
// of work, one spinB for 1 unit, so their CPU shares are 0.75 and 0.25.
//
// usage: gospin [UNITS]   (default 40; a unit is ~1e6 multiply-adds)
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

var sink [4]uint64

//go:noinline
func spinA(n int) uint64 {
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + uint64(i)
	}
	return x
}

//go:noinline
func spinB(n int) uint64 {
	var x uint64 = 7
	for i := 0; i < n; i++ {
		x = x*2862933555777941757 + uint64(i)
	}
	return x
}

func main() {
	units := 40
	if len(os.Args) > 1 {
		units, _ = strconv.Atoi(os.Args[1])
	}
	var wg sync.WaitGroup
	wg.Add(2)
	// spinA gets 3 units of work for every 1 of spinB: shares 0.75 / 0.25.
	go func() { defer wg.Done(); for i := 0; i < 3*units; i++ { sink[0] += spinA(1000000) } }()
	go func() { defer wg.Done(); for i := 0; i < units; i++ { sink[1] += spinB(1000000) } }()
	wg.Wait()
	fmt.Println(sink[0] + sink[1])
}
