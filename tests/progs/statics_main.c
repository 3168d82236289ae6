/* statics_main.c: see statics_a.c. */
void run_a(unsigned long n);
void run_b(unsigned long n);
int main(void)
{
	for (int i = 0; i < 100; i++) {
		run_a(1000000);
		run_b(1000000);
	}
	return 0;
}
