/* plty: caller() calls labs through the PLT in a loop.  With LD_BIND_NOT=1
 * every call goes through the lazy resolver, which is then nearly all the
 * time (tests/e2e/test_structure.sh). */
#include <stdlib.h>
__attribute__((noinline)) long caller(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += labs(-i);
	return s;
}
int main(int argc, char **argv)
{
	return (int)(caller(argc > 1 ? atol(argv[1]) : 3000000) & 1);
}
