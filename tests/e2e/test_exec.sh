# test_exec.sh — no signal of the collector's outlives its image: execs that
# pass no exec function of libc's keep the program alive under sampling at
# 4 kHz (a sigtrap event that overflowed in kernel mode during the exec used
# to signal the new image, whose SIGTRAP is at its default again: status
# 133).  fork + syscall(SYS_execve) x100, execveat() x50, fexecve() x50, a
# process exec'ing itself through syscall(SYS_execve) x20, and a dynamically
# linked Go program (os/exec children x100, syscall.Exec of itself x20),
# each new image followed into its sub-experiment.
. "$(dirname "$0")/lib.sh"
cc_prog rawexec
cd "$T"

# children_ok EXP MODE N: every child exited 0 and each exec is followed.
children_ok() {
	"$TALLY" record -F 4000 -o "$1" ./rawexec "$2" "$3" >out.$2 2>err.$2
	rc=$?
	cat out.$2 err.$2
	test $rc -eq 0 && grep -qx "bad 0 of $3" out.$2 &&
		test "$(ls -d "$1"/_f*_x1.exp | wc -l)" -eq "$3"
}
check exec_raw_syscall_children_live children_ok a.exp raw 100
check exec_execveat_children_live children_ok b.exp at 50
check exec_fexecve_children_live children_ok c.exp fexec 50
check exec_raw_syscall_self_lives sh -c '
	"$TALLY" record -F 4000 -o d.exp ./rawexec self 20 >out 2>err; rc=$?; cat out err
	test $rc -eq 0 && grep -qx "self done" out && test "$(ls -d d.exp/_x*.exp | wc -l)" -eq 20 &&
	grep -q "^exec: /proc/self/exe" d.exp/log.txt'

# Go: built with cgo, so that it is dynamically linked and preloaded.
if ! command -v go >/dev/null 2>&1; then
	skip exec_go_os_exec_children_live "go is not installed (golang-go)"
	exit 0
fi
mkdir go && cp "$PROGS/goexec/main.go" "$PROGS/goexec/go.mod" go/
if ! (cd go && CGO_ENABLED=1 GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local go build -o ../goexec . >../go.log 2>&1); then
	skip exec_go_os_exec_children_live "go build with cgo failed: $(tail -n 1 go.log)"
	exit 0
fi
if ! readelf -lW goexec | grep -q INTERP; then
	skip exec_go_os_exec_children_live "go built a static program (no cgo?)"
	exit 0
fi
check exec_go_os_exec_children_live sh -c '
	"$TALLY" record -F 4000 -o g.exp ./goexec 100 >out.g 2>err.g; rc=$?; cat out.g err.g
	test $rc -eq 0 && grep -qx "bad 0 of 100" out.g &&
	test "$(ls -d g.exp/_f*_x1.exp | wc -l)" -eq 100 && "$TALLY" report -q g.exp >/dev/null'
check exec_go_self_exec_lives sh -c '
	"$TALLY" record -F 4000 -o h.exp ./goexec self 20 >out.h 2>err.h; rc=$?; cat out.h err.h
	test $rc -eq 0 && grep -qx "self done" out.h && test "$(ls -d h.exp/_x*.exp | wc -l)" -eq 20'
check exec_go_clock_says_why_kernel_excluded \
	grep -q "^clock.kernel: excluded (the program makes its own system calls" h.exp/log.txt
