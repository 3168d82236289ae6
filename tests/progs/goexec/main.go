// goexec — a Go program, linked dynamically (cgo), that runs children
// through os/exec and execs itself through syscall.Exec: Go makes these
// system calls itself, past every interposer of libc's exec functions.
// Used by test_exec.sh.
//
// usage: goexec [N]      run /bin/true N times (default 100); print
//                        "bad B of N"; exit 1 if any failed
//        goexec self K   exec itself K more times, then print "self done"
package main

// #include <stdlib.h>
import "C"

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func spin(n int) float64 {
	x := 0.0
	for i := 0; i < n; i++ {
		x += float64(i) * 0.5
	}
	return x
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "self" {
		k, _ := strconv.Atoi(os.Args[2])
		spin(2000000)
		if k > 0 {
			err := syscall.Exec("/proc/self/exe", []string{os.Args[0], "self", strconv.Itoa(k - 1)}, os.Environ())
			fmt.Println("exec failed", err)
			os.Exit(3)
		}
		fmt.Println("self done")
		return
	}
	n := 100
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	bad := 0
	for i := 0; i < n; i++ {
		spin(200000)
		if err := exec.Command("/bin/true").Run(); err != nil {
			bad++
			if bad < 3 {
				fmt.Fprintln(os.Stderr, "child:", err)
			}
		}
	}
	fmt.Printf("bad %d of %d\n", bad, n)
	C.free(nil)
	if bad != 0 {
		os.Exit(1)
	}
}
