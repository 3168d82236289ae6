// Inl.java — a compiled loop whose allocation is in a small method the JIT
// inlines into it (fresh): samples in the JVM's allocation path, where
// AsyncGetCallTrace gives no stack, are recovered from the compiled code,
// and what was inlined at that place is a frame of its own.
public class Inl {
    static int[] fresh(int n) {
        return new int[n];
    }
    static long fill(int rounds) {
        long s = 0;
        for (int r = 0; r < rounds; r++) {
            int[] x = fresh(8192);
            x[r & 8191] = r;
            s += x[(r * 7) & 8191] + x.length;
        }
        return s;
    }
    public static void main(String[] args) {
        double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        // secs of its own CPU time, not of the wall clock: a loaded machine
        // still gives it its time compiled (the lines above stay put).
        java.lang.management.ThreadMXBean clock = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = clock.getCurrentThreadCpuTime() + (long)(secs * 1e9), s = 0;
        while (clock.getCurrentThreadCpuTime() < end) s += fill(1000);
        System.out.println("inl done " + s);
    }
}
