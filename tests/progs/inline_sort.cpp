/* inline_sort.cpp — C++ whose time is all in inlined templates
 * (tests/e2e/test_inline.sh): std::sort with a lambda comparator that calls
 * Key::operator<.  At -O2 the comparisons are inlined into
 * std::__introsort_loop, itself partly inlined into main: the source's chain
 * is main -> std::sort -> std::__sort -> std::__introsort_loop -> ... ->
 * the lambda -> Key::operator<.  usage: inline_sort [rounds] */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Key {
	unsigned a, b;
	bool operator<(const Key &o) const { return a != o.a ? a < o.a : b < o.b; }
};

static unsigned seed = 12345;
static unsigned next_rand() { seed = seed * 1103515245u + 12345u; return seed >> 8; }

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	std::vector<Key> v(200000);
	unsigned long sum = 0;
	for (int r = 0; r < rounds; r++) {
		for (auto &k : v) { k.a = next_rand() % 1000; k.b = next_rand(); }
		std::sort(v.begin(), v.end(), [](const Key &x, const Key &y) { return x < y; });
		sum += v[r % v.size()].b;
	}
	printf("%lu\n", sum);
	return 0;
}
