// Vec.java — vectorised loops that C2 compiles to SIMD, one of them
// allocating an array per call: samples in the JVM's allocation path
// called from compiled code, where AsyncGetCallTrace gives no stack.
public class Vec {
    static float[] a = new float[4096], b = new float[4096], c = new float[4096];
    static float saxpy(int rounds) {
        float s = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < a.length; i++) c[i] = a[i] * 1.0001f + b[i];
            float[] t = a; a = c; c = t;
            s += a[r & 4095];
        }
        return s;
    }
    static long sum(int rounds) {
        long s = 0;
        int[] x = new int[8192];
        for (int i = 0; i < x.length; i++) x[i] = i;
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < x.length; i++) s += x[i] ^ r;
        return s;
    }
    public static void main(String[] args) {
        double secs = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        for (int i = 0; i < a.length; i++) { a[i] = i; b[i] = 1; }
        long end = System.nanoTime() + (long)(secs * 1e9);
        float f = 0; long l = 0;
        while (System.nanoTime() < end) { f += saxpy(2000); l += sum(200); }
        System.out.println("vec done " + f + " " + l);
    }
}
