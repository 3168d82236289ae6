// Churn.java — the Java heap and Java monitors under tally record -H -s
// (tests/e2e/test_java.sh): alloc() allocates 256 MiB in 4 KiB arrays;
// two threads then take turns in a synchronized block, each holding it
// 2 ms at a time, so each waits for the other about half the time.
public class Churn {
    static volatile Object keep;
    static final Object lock = new Object();
    static volatile long sink;

    static void alloc() {
        for (int i = 0; i < 65536; i++)
            keep = new byte[4096];
    }

    static void hold() {
        long end = System.nanoTime() + 2_000_000;
        long x = 1;
        while (System.nanoTime() < end)
            x = x * 31 + 7;
        sink += x;
    }

    static void locked() {
        for (int i = 0; i < 100; i++)
            synchronized (lock) {
                hold();
            }
    }

    public static void main(String[] args) throws Exception {
        alloc();
        Thread a = new Thread(Churn::locked, "contender-a"), b = new Thread(Churn::locked, "contender-b");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("churn done");
    }
}
