/* chrooter.c — changes its root, then execs a program there (as a build
 * sandbox or an init script does): under tally, the new root has no
 * collector to preload.  Used by test_exec.sh (needs root).
 *
 * usage: chrooter DIR PROGRAM   (PROGRAM's path inside DIR)
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: chrooter DIR PROGRAM\n");
		return 2;
	}
	if (chroot(argv[1]) != 0 || chdir("/") != 0) {
		perror("chrooter: chroot");
		return 2;
	}
	execl(argv[2], argv[2], (char *)NULL);
	perror("chrooter: exec");
	return 127;
}
