/* embed.c — a C program that creates a JVM itself (JNI_CreateJavaVM, linked
 * with libjvm.so) and runs Shares.main("ARG") in it: tally must give this
 * JVM its agent too, and keep the C main at the root of the Java stacks
 * (tests/e2e/test_java.sh). */
#include <jni.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	JavaVMOption opts[] = { { "-Djava.class.path=.", NULL } };
	JavaVMInitArgs args = { JNI_VERSION_1_8, 1, opts, JNI_FALSE };
	JavaVM *vm;
	JNIEnv *env;

	if (JNI_CreateJavaVM(&vm, (void **)&env, &args) != JNI_OK) {
		fprintf(stderr, "embed: no JVM\n");
		return 1;
	}
	jclass cls = (*env)->FindClass(env, "Shares");
	jmethodID main_id = cls ? (*env)->GetStaticMethodID(env, cls, "main", "([Ljava/lang/String;)V") : NULL;
	jclass string = (*env)->FindClass(env, "java/lang/String");
	jobjectArray a = string ? (*env)->NewObjectArray(env, 1, string, NULL) : NULL;
	if (!main_id || !a) {
		fprintf(stderr, "embed: no Shares.main\n");
		return 1;
	}
	(*env)->SetObjectArrayElement(env, a, 0, (*env)->NewStringUTF(env, argc > 1 ? argv[1] : "400"));
	(*env)->CallStaticVoidMethod(env, cls, main_id, a);
	int failed = (*env)->ExceptionCheck(env);
	(*vm)->DestroyJavaVM(vm);
	return failed;
}
