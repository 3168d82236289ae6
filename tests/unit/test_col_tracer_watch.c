/* SPDX-License-Identifier: MIT
 *
 * test_col_tracer_watch.c — the --states tracer check is asked only on the
 * loop a tracer's stops make (async switch signals in a row at one pc), at
 * most once per COL_TRACER_WATCH_REPEATS blocked signals, never on async
 * signals at moving pcs (a switch inside a handler) nor on plain ones.
 */
#include "collector/col_tracer_watch.h"
#include "testhelp.h"

static void asked_only_on_the_loop(void)
{
	struct col_tracer_watch w = { 0 };
	int asked = 0;

	/* Blocked signals at pcs the program moves through: never asked. */
	for (uint64_t pc = 0x1000; pc < 0x1000 + 10000; pc++)
		asked += col_tracer_watch_sigsafe(&w, true, pc);
	CHECK(asked == 0);

	/* Plain signals, even at one pc: never asked. */
	for (int i = 0; i < 1000; i++)
		asked += col_tracer_watch_sigsafe(&w, false, 0x2000);
	CHECK(asked == 0);

	/* Two in a row at one pc, then a plain one: the run starts again. */
	for (int i = 0; i < 1000; i++) {
		asked += col_tracer_watch_sigsafe(&w, true, 0x3000);
		asked += col_tracer_watch_sigsafe(&w, true, 0x3000);
		asked += col_tracer_watch_sigsafe(&w, false, 0x3000);
	}
	CHECK(asked == 0);

	/* The loop: asked at the third, and once per three from then on. */
	CHECK(!col_tracer_watch_sigsafe(&w, true, 0x4000));
	CHECK(!col_tracer_watch_sigsafe(&w, true, 0x4000));
	CHECK(col_tracer_watch_sigsafe(&w, true, 0x4000));
	for (int i = 0; i < 300; i++)
		asked += col_tracer_watch_sigsafe(&w, true, 0x4000);
	CHECK(asked == 100);
}

int main(void)
{
	RUN(asked_only_on_the_loop);
	TEST_EXIT();
}
