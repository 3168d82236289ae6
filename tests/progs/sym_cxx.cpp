// SPDX-License-Identifier: MIT
//
// sym_cxx.cpp — test program for tests/unit/test_symbols.c: a member of a
// class template in a namespace, whose demangled name the symbolizer must
// print as binutils does, and C++ runtime calls through the PLT.
#include <cstdio>
#include <vector>

namespace ns {
template <class T> struct Matrix {
	std::vector<T> v;
	explicit Matrix(int n) : v(static_cast<size_t>(n * n), T(1)) {}
	__attribute__((noinline)) Matrix multiply(const Matrix &o) const
	{
		Matrix r(1);
		r.v[0] = v[0] * o.v[0];
		return r;
	}
};
template struct Matrix<double>;
} // namespace ns

int main(int argc, char **)
{
	ns::Matrix<double> a(argc), b(2);
	std::printf("%f\n", a.multiply(b).v[0]);
	return 0;
}
