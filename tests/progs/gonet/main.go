// gonet — a Go program that uses cgo only through the net package's
// resolver, built by Go's own linker with CGO_ENABLED=1: dynamically linked,
// runtime/cgo in it, and of cgo's symbols only _cgo_panic and
// _cgo_topofstack exported.  Its runtime sets its signal handlers through
// libc's sigaction, so it is preloaded as any program.  Used by test_exec.sh.
//
// usage: gonet    print the addresses of localhost (/etc/hosts)
package main

import (
	"fmt"
	"net"
)

func main() {
	a, err := net.LookupHost("localhost")
	fmt.Println(len(a) > 0, err)
}
