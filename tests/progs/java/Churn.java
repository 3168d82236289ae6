// Churn.java — the Java heap and Java monitors under tally record -H -s
// (tests/e2e/test_java.sh): alloc() allocates 1 GiB in 4 KiB arrays (enough
// samples of the JVM's 512 KiB sampling for a 10% check);
// two threads then take turns in a synchronized block.  Java's monitors are
// not fair (the thread that leaves may take the monitor again before the one
// blocked wakes up), and on a loaded machine a thread may ask for it only after
// the other has left, so the contention is made certain: a thread says it
// wants the monitor (wanting) just before it asks; the one inside waits until
// the other wants it, then holds it 2 ms more; after its turn a thread asks
// again only once the other holds it.  Each thread takes 100 turns: about 199
// contended enters, each ~2 ms blocked.  The waits outside the 2 ms park
// (20 us at a time) rather than spin: a spinning Java loop is CPU time whose
// samples AsyncGetCallTrace often cannot walk (5-6% of the samples had no
// Java stack with spinning waits, 2.2-3.8% parked).
public class Churn {
    static volatile Object keep;
    static final Object lock = new Object();
    static volatile long sink;
    static final java.util.concurrent.atomic.AtomicInteger wanting =
        new java.util.concurrent.atomic.AtomicInteger();
    static volatile boolean finished;
    static volatile Thread holder;

    static void alloc() {
        for (int i = 0; i < 262144; i++)
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
        Thread me = Thread.currentThread();
        for (int i = 0; i < 100; i++) {
            wanting.incrementAndGet();
            synchronized (lock) {
                wanting.decrementAndGet();
                holder = me;
                long giveUp = System.nanoTime() + 1_000_000_000L;
                while (wanting.get() == 0 && !finished && System.nanoTime() < giveUp)
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                hold();
            }
            long giveUp = System.nanoTime() + 1_000_000_000L;
            while (holder == me && !finished && System.nanoTime() < giveUp)
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        finished = true;
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
