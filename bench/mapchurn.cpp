// SPDX-License-Identifier: MIT
//
// mapchurn.cpp — C++ allocation churn: a std::map<std::string, std::string>
// of up to 4096 entries, N rounds each inserting a key (most of them new:
// the node and two strings longer than the small-string buffer allocate),
// erasing another and appending to a value (reallocation).  Prints the
// allocations it made (the operator new calls it counted) and a checksum.
// usage: mapchurn N
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <string>

static unsigned long news;

void *operator new(std::size_t n)
{
	news++;
	if (void *p = std::malloc(n ? n : 1))
		return p;
	throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 1000000;
	std::map<std::string, std::string> m;
	unsigned long sum = 0;
	unsigned seed = 1;

	for (long i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		std::string key = "key-number-" + std::to_string((seed >> 8) & 8191) + "-with-some-length";
		auto it = m.find(key);
		if (it == m.end())
			m.emplace(key, std::string(16 + (seed >> 24), 'v'));
		else
			it->second += "more-bytes-added";
		if (m.size() > 4096)
			m.erase(m.begin());
		sum += m.size();
	}
	std::printf("news %lu\nchecksum %lu\n", news, sum);
	return 0;
}
