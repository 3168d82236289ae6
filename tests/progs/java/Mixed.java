// Mixed.java — one stack through interpreted, JIT-compiled and native code,
// and a method deoptimized and compiled again (tests/e2e/test_java.sh).
//
// Phase 1: main() (kept interpreted: -XX:CompileCommand=exclude,Mixed::main)
// calls outer() (hot: compiled), which calls the native method nat()
// (mixed_jni.c: Java_Mixed_nat spins in C, c_spin, then calls back the
// Java method back()).
// Phase 2: sum() is compiled for the one Shape it has seen, Square; then
// Circles come, the compiled code's guess fails, the JVM deoptimizes sum()
// and compiles it again (-XX:+PrintCompilation shows "made not entrant").
public class Mixed {
    static volatile long sink;

    static native long nat(int n);

    static long spin(long n) {
        long x = n;
        for (long i = 0; i < n; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static long back(int n) { return spin(n); }

    static long outer(int n) { return nat(n) + 1; }

    interface Shape { long area(long x); }

    static final class Square implements Shape {
        public long area(long x) { return x * x + 1; }
    }

    static final class Circle implements Shape {
        public long area(long x) { return 3 * x * x + 7; }
    }

    static long sum(Shape s, long n) {
        long t = 0;
        for (long i = 0; i < n; i++)
            t += s.area(i) ^ (t >>> 3);
        return t;
    }

    public static void main(String[] args) {
        System.loadLibrary("mixed");
        for (int i = 0; i < 4000; i++)
            sink += outer(40_000);
        Shape square = new Square(), circle = new Circle();
        for (int i = 0; i < 3000; i++)
            sink += sum(square, 30_000);
        for (int i = 0; i < 3000; i++)
            sink += sum(circle, 30_000);
        System.out.println("mixed done");
    }
}
