/* SPDX-License-Identifier: MIT
 *
 * report_java.c — the overview's lines about a JVM's samples: how many of
 * the Java threads' samples have their Java stack, how many do not
 * (<no Java callstack recorded>) and why, and the JVM's own work
 * (<JVM-System>).  Nothing when no JVM was recorded.
 */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

/* AsyncGetCallTrace's reasons (exp_records.h, exp_java_none), as words. */
static const char *const reasons[EXP_JAVA_NO_ROOM + 1] = {
	"no Java code", "no class-load events", "GC active", "unknown frame outside Java",
	"not walkable outside Java", "unknown Java frame", "not walkable in Java",
	"unknown thread state", "thread exiting", "deoptimizing", "at a safepoint", "frames unusable",
};

void report_java_overview(struct report_doc *d, const struct model *m)
{
	const struct model_java *j = &m->java;
	uint64_t none = 0, java;
	char why[512] = "";
	size_t at = 0;

	for (int r = 1; r <= EXP_JAVA_NO_ROOM; r++) {
		uint64_t n = j->samples[MODEL_JAVA_NO_STACK + r];
		none += n;
		if (n && at < sizeof(why))
			at += (size_t)snprintf(why + at, sizeof(why) - at, "%s%s %llu", at ? ", " : "",
					       reasons[r], (unsigned long long)n);
	}
	uint64_t recovered = 0;
	for (int r = 1; r <= EXP_JAVA_NO_ROOM; r++)
		recovered += j->samples[MODEL_JAVA_RECOVERED + r];
	java = j->samples[MODEL_JAVA_STACK] + recovered + none;
	if (!java && !j->samples[MODEL_JAVA_SYSTEM]) {
		/* A JVM profiled without its Java stacks: say why. */
		for (size_t i = 0; i < m->nprocs; i++) {
			const char *said = m->procs[i].src ? exp_proc_log(m->procs[i].src, "java") : NULL;
			if (said && strncmp(said, "Java stacks", 11)) {
				report_kv(d, "java", "Java", "%s (%s)", said, m->procs[i].label);
				return;
			}
		}
		return;
	}
	double pct = report_pct_of(none, java);
	report_kv_num(d, "java_samples", "Java samples", (double)java,
		      "%llu of Java threads: %llu without a Java stack (%.1f%%, <no Java callstack "
		      "recorded>%s%s)", (unsigned long long)java, (unsigned long long)none, pct,
		      at ? ": " : "", why);
	report_kv_data(d, "java_no_stack", (double)none);
	report_kv_data(d, "java_no_stack_pct", pct);
	if (recovered)
		report_kv_num(d, "java_recovered", "Java recovered", (double)recovered,
			      "%llu samples (%.1f%%) whose Java stack the JVM did not give, its compiled "
			      "methods taken from the machine frames (cut at the first interpreted frame: "
			      "<Truncated-stack>)", (unsigned long long)recovered,
			      report_pct_of(recovered, java));
	uint64_t sys = j->samples[MODEL_JAVA_SYSTEM];
	report_kv_num(d, "jvm_system_samples", "JVM-System", (double)sys,
		      "%llu samples, %.3f s (the JVM's own threads, GC and compilers, and Java threads "
		      "outside Java code: <JVM-System>)", (unsigned long long)sys,
		      (double)j->cpu_ns[MODEL_JAVA_SYSTEM] / 1e9);
	if (j->unnamed)
		report_kv_num(d, "java_unnamed", "Unnamed methods", (double)j->unnamed,
			      "%llu Java methods shown as <Java method 0x...> (their class was unloaded "
			      "before they were named, or the process was killed)",
			      (unsigned long long)j->unnamed);
}
