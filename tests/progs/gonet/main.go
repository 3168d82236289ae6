// gonet — a Go program that uses cgo only through the net package's
// resolver, built by Go's own linker with CGO_ENABLED=1: dynamically linked,
// runtime/cgo in it, and of cgo's symbols only _cgo_panic and
// _cgo_topofstack exported.  Its runtime sets its signal handlers through
// libc's sigaction, so it is preloaded as any program.  Used by test_exec.sh.
//
// usage: gonet    look localhost up (the cgo resolver's call; its answer,
//                 which a root without /etc/hosts lacks, is not the point),
//                 then print "done"
package main

import (
	"fmt"
	"net"
)

func main() {
	a, err := net.LookupHost("localhost")
	fmt.Println("lookup:", len(a), err)
	fmt.Println("done")
}
