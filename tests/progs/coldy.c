/* coldy: gcc moves the block that calls a cold function into work.cold; that
 * block does two thirds of the work (100 rounds of 2n against 200 of n/2).
 * The user view imputes a call work -> work.cold (tests/e2e/test_structure.sh). */
#include <stdio.h>
static volatile unsigned long sink;
static unsigned long rounds;
#define SPIN(n) do { unsigned long x_ = sink; for (unsigned long i_ = 0; i_ < (n); i_++) { x_ = x_ * 6364136223846793005UL + 1; __asm__ volatile("" : "+r"(x_)); } sink = x_; } while (0)
__attribute__((cold, noinline)) void rare(void) { rounds++; }
__attribute__((noinline)) int work(int i, unsigned long n)
{
	if (i % 3 == 0) {          /* "cold": it calls a cold function, so gcc moves the block to work.cold */
		rare();
		SPIN(2 * n);
		return i;
	}
	SPIN(n / 2);
	return i + 1;
}
int main(void) { int s = 0; for (int i = 0; i < 300; i++) s += work(i, 1000000); printf("%d %lu\n", s, rounds); return 0; }
