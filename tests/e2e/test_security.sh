# test_security.sh — tally run by root on other users' processes and files
# opens no door (issue 19): it writes through no path another user controls,
# refuses a world-writable directory without the sticky bit, and copies no
# private file wider than its owner made it.  Root-only cases skip with the
# reason elsewhere; the other user is nobody (65534), as in test_attach.sh.
. "$(dirname "$0")/lib.sh"
cc -O2 -g -pthread -o "$T/aw" "$PROGS/attach_work.c"
cc -O2 -g -I"$E2E/../../include" -o "$T/jitty" "$PROGS/jitty.c"
cd "$T"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

# --- root attaching to a process whose user swaps in links -----------------
if [ "$(id -u)" != 0 ]; then
	skip attach_follows_no_link_of_the_user "not root: the case is root recording another user's process"
	skip attach_survives_a_renamed_experiment "not root"
elif ! command -v setpriv >/dev/null; then
	skip attach_follows_no_link_of_the_user "setpriv not installed"
	skip attach_survives_a_renamed_experiment "setpriv not installed"
elif ! $NOBODY test -x "$TALLY" || ! (chmod 755 "$T" && $NOBODY test -x "$T/aw"); then
	skip attach_follows_no_link_of_the_user "user 65534 cannot run $TALLY"
	skip attach_survives_a_renamed_experiment "user 65534 cannot run $TALLY"
else
	mkdir pub && chmod 1777 pub
	# What root owns and the user aims at: a file root's log appends would
	# grow, a directory root's archive copies would land in.
	echo precious >victim.txt && chmod 644 victim.txt
	mkdir victimdir && chmod 755 victimdir
	# The user's side: once the collector writes, log.txt and archive/
	# become links to root's file and directory (the attacker is the
	# process's user, as nobody else can write the lent directory).
	cat >swap.sh <<EOF
for i in \$(seq 200); do
	[ -e "\$1/threads.dat" ] && break
	sleep 0.02
done
cd "\$1" || exit 1
mv log.txt log.old && ln -s $T/victim.txt log.txt
rm -rf archive && ln -s $T/victimdir archive
mkfifo maps.fifo
echo swapped
EOF
	$NOBODY ./aw sleep 6 >nb.out 2>nb.err & NB=$!
	wait_ready nb.err
	$NOBODY sh swap.sh pub/a.exp >swap.out 2>&1 & SW=$!
	"$TALLY" record -p $NB -o pub/a.exp --duration 1.5 2>a.err; rca=$?
	wait $SW
	check attach_follows_no_link_of_the_user sh -c "
		cat swap.out a.err; test $rca = 0 && grep -qx swapped swap.out &&
		test \"\$(cat victim.txt)\" = precious && test \$(stat -c %u victim.txt) = 0 &&
		test -z \"\$(ls victimdir)\" &&
		grep -q 'entries the process.s user put there removed' a.err &&
		test ! -L pub/a.exp/log.txt && test ! -L pub/a.exp/archive &&
		test \$(stat -c %u pub/a.exp) = 65534 && test -z \"\$(find pub/a.exp -user 0)\""
	# The user renames the whole experiment and leaves a link to root's
	# directory under its name: root's end of run still finishes the real
	# one, and writes nothing in root's directory.
	cat >rename.sh <<EOF
for i in \$(seq 200); do
	[ -e "\$1/threads.dat" ] && break
	sleep 0.02
done
mv "\$1" "\$1.moved" && ln -s $T/victimdir "\$1" && echo renamed
EOF
	$NOBODY sh rename.sh pub/b.exp >rename.out 2>&1 & SW=$!
	"$TALLY" record -p $NB -o pub/b.exp --duration 1 2>b.err; rcb=$?
	wait $SW
	bounded_wait $NB 20; rcn=$?
	check attach_survives_a_renamed_experiment sh -c "
		cat rename.out b.err; test $rcb = 0 && test $rcn = 0 && grep -qx renamed rename.out &&
		test -z \"\$(ls victimdir)\" && test \$(stat -c %u pub/b.exp.moved) = 65534 &&
		grep -q '^attach.end: ' pub/b.exp.moved/log.txt && test -z \"\$(find pub/b.exp.moved -user 0)\""
fi

# --- root does not record in a world-writable directory without the sticky bit
if [ "$(id -u)" != 0 ]; then
	skip root_refuses_world_writable_parent "not root"
else
	mkdir ww && chmod 777 ww
	"$TALLY" record -o ww/x.exp -- true >ww.out 2>ww.err; rcw=$?
	mkdir sticky && chmod 1777 sticky
	"$TALLY" record -o sticky/x.exp -- true >st.out 2>st.err; rcs=$?
	check root_refuses_world_writable_parent sh -c "cat ww.err st.err;
		test $rcw = 2 && test \$(wc -l <ww.err) = 1 && grep -q 'no sticky bit' ww.err &&
		test ! -e ww/x.exp && test $rcs = 0 && test -d sticky/x.exp"
	# An MPI job's directory made by another user beforehand (in a sticky
	# directory anyone can make it): root does not record a rank into it.
	mkdir sticky/job.exp && chown 65534:65534 sticky/job.exp
	TALLY_RANK=0 "$TALLY" record -o sticky/job.exp -- true >job.out 2>job.err; rcj=$?
	TALLY_RANK=0 "$TALLY" record -o sticky/own.exp -- true >own.out 2>own.err; rco=$?
	TALLY_RANK=1 "$TALLY" record -o sticky/own.exp -- true >own1.out 2>own1.err; rco1=$?
	check root_refuses_another_users_job_dir sh -c "cat job.err own.err own1.err;
		test $rcj = 2 && grep -q 'belongs to uid 65534' job.err && test ! -e sticky/job.exp/rank0.exp &&
		test $rco = 0 && test $rco1 = 0 && test -d sticky/own.exp/rank1.exp"
fi
# --- archive copies and files: never wider than the original or the umask
# A private program (0700): its copy is its owner's read bit only.
cp aw priv && chmod 700 priv
( umask 022; "$TALLY" record -o priv.exp -- ./priv shares 20 >priv.out 2>priv.err ); rcp=$?
check archive_copy_keeps_private_mode sh -c "cat priv.err; test $rcp = 0 &&
	for f in priv.exp/archive/*; do cmp -s \$f priv && exec test \$(stat -c %a \$f) = 400; done; exit 1"
# Under umask 000 every file of the experiment has the same bits (log.txt
# was 0666, the rest 0644); under umask 077 none is readable by others.
( umask 000; "$TALLY" record -o u0.exp -- ./aw shares 20 >u0.out 2>u0.err ); rc0=$?
( umask 077; "$TALLY" record -o u77.exp -- ./aw shares 20 >u77.out 2>u77.err ); rc77=$?
check experiment_modes_consistent sh -c "cat u0.err u77.err; test $rc0 = 0 && test $rc77 = 0 &&
	find u0.exp -type f -not -path '*/archive/*' -printf '%m %p\n' | grep -v '^644 ' | grep . && exit 1;
	find u0.exp/archive -type f -printf '%m %p\n' | grep -v '^444 ' | grep . && exit 1;
	find u77.exp -perm /077 | grep . && exit 1; test -s u0.exp/log.txt"
# --- names from the program reach no terminal raw ----------------------------
# A program file, a JIT function (tally_func_load) and a thread named with
# ESC colour and screen codes, an OSC title with BEL, CR, and C1 CSI both as
# a bare byte and as UTF-8: text, CSV and the text exports (collapsed,
# callgrind; arcs alike) show them as \xNN; JSON keeps the
# name (escaped by JSON's rules).
EVIL=$(printf 'ev\033[2Jil')
cp jitty "$EVIL"
JITTY_NAME=$(printf 'jit\033[31mred\033]0;title\007\r\233\302\233X') JITTY_THREAD=$(printf 'th\033[5m\a') \
	"$TALLY" record -o evil.exp -- "./$EVIL" api 0.3 >evil.out 2>evil.err; rce=$?
for v in "report evil.exp" "report evil.exp --threads" "report evil.exp --format csv" \
	"report evil.exp --callers main" "report evil.exp --tree" "report evil.exp --gprof" "diff evil.exp evil.exp" \
	"export evil.exp --format collapsed" "export evil.exp --format callgrind"; do
	$TALLY $v >"evil.$(echo $v | tr -c 'a-z\n' _)" 2>&1
done
cat >clean.py <<'EOF'
import glob, re, sys
bad = 0
for f in sorted(glob.glob("evil.*_*")):
    b = open(f, "rb").read()
    # form feed (\x0c) is gprof's page break in the --gprof listing, as in gprof -b's
    raw = re.search(rb"[\x00-\x08\x0b\x0d-\x1f\x7f]|\xc2[\x80-\x9f]|\x9b", b)
    # the text exports name functions, not the program: the JIT function's
    # name is the one shown there
    shown = rb"ev\x1b[2Jil" in b or (b"export" in f.encode() and rb"jit\x1b[31mred" in b)
    print(f, "raw control at", raw.start() if raw else None, "escaped name shown", shown)
    bad += bool(raw) or not shown
jit = open("evil.report_evil_exp", "rb").read()
bad += rb"jit\x1b[31mred\x1b]0;title\x07\x0d\x9b\xc2\x9bX" not in jit
js = open("evil.json", "rb").read()
print("json keeps the name:", rb"jit\u001b[31mred" in js)
bad += rb"jit\u001b[31mred" not in js
sys.exit(bad)
EOF
"$TALLY" report evil.exp --format json >evil.json 2>&1
check text_output_neutralises_control_characters sh -c "cat evil.err; test $rce = 0 && python3 clean.py"
# --- root shows source only from files the experiment's owner may read --------
if [ "$(id -u)" != 0 ]; then
	skip source_hidden_from_other_owner "not root: the case is root reading another user's experiment"
else
	chmod 755 "$T"
	mkdir secret && chmod 700 secret
	for i in $(seq 12); do echo "TOPSECRET root-only line $i"; done >secret/secret.c
	cat >lined.c <<EOF
#line 1 "$T/secret/secret.c"
__attribute__((noinline)) void spin(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < 60000000ul; i++) x += i; }
int main(void) { spin(); return 0; }
EOF
	cc -O1 -g -o lined lined.c
	"$TALLY" record -o lined.exp -- ./lined >/dev/null 2>lined.err
	"$TALLY" annotate lined.exp spin >own.txt 2>&1           # root's own: shown
	chown -R 65534:65534 lined.exp
	"$TALLY" annotate lined.exp spin >other.txt 2>&1; rca=$?
	"$TALLY" html lined.exp -o other.html 2>html.err; rch=$?
	check source_hidden_from_other_owner sh -c "head -3 other.txt; grep -q TOPSECRET own.txt &&
		test $rca = 0 && ! grep -q TOPSECRET other.txt &&
		grep -q 'secret.c: not shown: uid 65534, the experiment.s owner, may not read it' other.txt &&
		test $rch = 0 && ! grep -q TOPSECRET other.html"
fi
exit 0
