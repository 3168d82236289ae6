// gonocgo — a Go program without cgo, linked dynamically by the external
// linker (`CGO_ENABLED=1 go build -ldflags=-linkmode=external`): its
// runtime sets its signal handlers by its own system calls, past the
// preloaded collector's interposers.  Spins in spin() and runs /bin/true
// N times through os/exec.  Used by test_exec.sh.
//
// usage: gonocgo N    print "bad B of N"; exit 1 if any child failed
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

//go:noinline
func spin(n int) float64 {
	x := 0.0
	for i := 0; i < n; i++ {
		x += float64(i) * 0.5
	}
	return x
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	bad := 0
	x := 0.0
	for i := 0; i < n; i++ {
		x += spin(4000000)
		if err := exec.Command("/bin/true").Run(); err != nil {
			bad++
		}
	}
	fmt.Printf("bad %d of %d\n", bad, n)
	if x < 0 || bad != 0 {
		os.Exit(1)
	}
}
