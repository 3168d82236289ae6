# test_omp_tail.sh — OpenMP bodies that tail-call their work (docs/
# structure.md, "OpenMP"): `#pragma omp parallel { work(n); }` at -O2 is a
# body that jumps to work, so no stack holds the body.  On every thread the
# work must keep its share of the machine view (the frames as recorded) in
# the user view, under the function that opened the region, and not go to
# <OMP-*>; also when that function itself jumped to the runtime
# (region_tail).  gcc (libgomp), clang (libomp) and gfortran.
. "$(dirname "$0")/lib.sh"
cd "$T"

tail_case() {   # tail_case NAME EXE WORK:OPENER...
	cname=$1 exe=$2
	shift 2
	if ! OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$TALLY" record -o "$cname.exp" -- "./$exe" 1 \
		>"$cname.out" 2>"$cname.err"; then
		check "omp_tail_${cname}_records" sh -c "cat $cname.err; false"
		return
	fi
	tids=$("$TALLY" report "$cname.exp" --threads --format csv |
		python3 -c 'import csv, sys; print(" ".join(r["tid"] for r in csv.DictReader(sys.stdin)))')
	nt=0
	for tid in $tids; do
		nt=$((nt + 1))
		"$TALLY" export "$cname.exp" --format collapsed --thread "$tid" --view machine >"m.$tid.txt"
		"$TALLY" export "$cname.exp" --format collapsed --thread "$tid" >"u.$tid.txt"
		check "omp_tail_${cname}_thread_${nt}_work_keeps_its_share" \
			python3 "$E2E/omp_tail.py" "m.$tid.txt" "u.$tid.txt" "$@"
	done
	check "omp_tail_${cname}_two_threads" test "$nt" -eq 2
}

if cc -O2 -g -fopenmp -o omp_tail_gcc "$PROGS/omp_tail.c" 2>/dev/null; then
	tail_case gcc omp_tail_gcc work_a:region work_b:region_tail
else
	skip omp_tail_gcc "gcc -fopenmp cannot build"
fi
if clang -O2 -g -fopenmp -o omp_tail_clang "$PROGS/omp_tail.c" 2>/dev/null; then
	tail_case clang omp_tail_clang work_a:region work_b:region_tail
else
	skip omp_tail_clang "clang -fopenmp (libomp) not installed"
fi
if gfortran -O2 -fno-inline -g -fopenmp -o omp_tail_f "$PROGS/omp_tail.f90" 2>/dev/null; then
	tail_case gfortran omp_tail_f work_:region_
else
	skip omp_tail_gfortran "gfortran -fopenmp cannot build"
fi
