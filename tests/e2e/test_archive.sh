# test_archive.sh — the archive keeps the program as it was: a copy of its
# own (never a hard link), read-only, that neither `truncate` nor `cp` over
# the program afterwards can change; without it, a report on a rebuilt
# program warns that the build-id differs.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog status
cd "$T"

cp spin prog
"$TALLY" record -o a.exp ./prog 0.2 2>/dev/null
"$TALLY" export a.exp --format collapsed | sed 's/ [0-9]*$//' | sort -u >before.txt
copy=
for f in a.exp/archive/*; do cmp -s "$f" prog && copy=$f; done

check archive_is_a_copy_not_a_link sh -c "
	test -f '$copy' && test \$(stat -c %h '$copy') -eq 1 && test \$(stat -c %i '$copy') != \$(stat -c %i prog) &&
	cmp -s '$copy' prog"
check archive_is_read_only sh -c "test \$(stat -c %a '$copy') = 444"
check archive_has_no_partial_copies sh -c "! ls a.exp/archive | grep -q part"
check report_before_has_the_functions grep -q 'main;parent;leaf_two' before.txt

truncate -s 0 prog
check truncate_program_leaves_experiment_unchanged sh -c "
	test -s '$copy' && \"\$TALLY\" export a.exp --format collapsed 2>err | sed 's/ [0-9]*\$//' | sort -u >t.txt &&
	cmp before.txt t.txt && ! grep -q warning err"

cp status prog        # cp over the file rewrites it in place (same inode)
check cp_over_program_leaves_experiment_unchanged sh -c "
	\"\$TALLY\" export a.exp --format collapsed 2>err | sed 's/ [0-9]*\$//' | sort -u >c.txt &&
	cmp before.txt c.txt && ! grep -q warning err"

rm -rf a.exp/archive
check live_file_with_other_build_id_warned sh -c "
	\"\$TALLY\" report a.exp >/dev/null 2>err; grep -q 'prog: build-id differs' err"

# A file that changed during the run is not archived, and said so.
cp spin prog2
check changed_during_run_warned sh -c "
	\"\$TALLY\" record -o b.exp sh -c 'cp status prog2.new; ./prog2 0.01; mv prog2.new prog2' 2>err;
	grep -q 'prog2 changed during the run' err"
