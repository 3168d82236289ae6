// Shares.java — a Java workload of known costs (tests/e2e/test_java.sh):
// each task calls one(), two() and three(), which spend 1:2:3 of its
// time in spin(); three() reaches its share by recursion (three -> three
// -> three).  The main thread runs a fifth of the tasks itself and a pool
// of 4 workers the rest, so stacks read main -> task -> one/two/three ->
// spin, and Thread.run -> ... -> task -> ... for the workers.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class Shares {
    static volatile long sink;
    static final long N = 40_000;

    static long spin(long n, long seed) {
        long x = seed;
        for (long i = 0; i < n; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static long one() { return spin(N, 1); }

    static long two() { return spin(2 * N, 2); }

    static long three(int depth) {
        long x = spin(N, 3 + depth);
        return depth == 0 ? x : x ^ three(depth - 1);
    }

    static long task() { return one() + two() + three(2); }

    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 8000;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < tasks - tasks / 5; i++)
            done.add(pool.submit(Shares::task));
        long t = 0;
        for (int i = 0; i < tasks / 5; i++)
            t += task();
        for (Future<Long> f : done)
            t += f.get();
        pool.shutdown();
        sink = t;
        System.out.println("shares done");
    }
}
