/* newroot_hello.c — a dynamically linked program that says where it runs:
 * test_exec.sh runs it inside a new root (chrooter.c). */
#include <stdio.h>

int main(void)
{
	printf("hello from the new root\n");
	return 0;
}
