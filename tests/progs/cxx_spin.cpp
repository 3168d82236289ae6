// cxx_spin.cpp — CPU time in C++ functions with long names: a method of a
// class template instantiated with a nested template argument, and two
// overloads.  For --no-args and --name-width.  usage: cxx_spin
#include <cstdlib>
#include <map>
#include <vector>

namespace app {
static volatile unsigned long sink;

template <typename T> struct Worker {
	__attribute__((noinline)) unsigned long crunch(const T &seed, unsigned long n)
	{
		unsigned long x = sink + seed.size();
		for (unsigned long i = 0; i < n; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			__asm__ volatile("" : "+r"(x));
		}
		return x;
	}
};

__attribute__((noinline)) unsigned long spin(int n) { Worker<std::vector<int>> w; return w.crunch({}, (unsigned long)n); }
__attribute__((noinline)) unsigned long spin(double n) { Worker<std::map<int, std::vector<long>>> w; return w.crunch({}, (unsigned long)n); }
} // namespace app

int main()
{
	app::sink = app::spin(100000000) + app::spin(100000000.0);
	return 0;
}
