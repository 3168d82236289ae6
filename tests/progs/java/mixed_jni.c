/* mixed_jni.c — the native method of Mixed.java: spins in C, then calls
 * back into Java, so a stack holds Java, native and Java frames again. */
#include <jni.h>

__attribute__((noinline)) static long c_spin(long n)
{
	volatile long x = n;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005L + 1442695040888963407L;
	return x;
}

JNIEXPORT jlong JNICALL Java_Mixed_nat(JNIEnv *env, jclass cls, jint n)
{
	static jmethodID back;
	long t = c_spin(n);

	if (!back)
		back = (*env)->GetStaticMethodID(env, cls, "back", "(I)J");
	return t + (*env)->CallStaticLongMethod(env, cls, back, n);
}
