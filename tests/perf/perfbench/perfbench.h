/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfbench.h - the cases of perfbench and what they share
 *
 * A case runs OPS operations and reports how long the measured part took;
 * main.c does the warm-up, the rounds, the output and the marker mode.
 */
#ifndef PERFBENCH_H
#define PERFBENCH_H

#include <stdint.h>

/**
 * struct sample - what one run of a case measured
 * @ns_total:	nanoseconds spent in the measured loop (CLOCK_MONOTONIC)
 * @bytes:	bytes of memory the loop touched for the first time (the fault
 *		case: OPS pages), 0 for the other cases
 */
struct sample {
	uint64_t ns_total;
	uint64_t bytes;
};

/**
 * struct bench_case - one perfbench case
 * @name:	what the command line and the output call it
 * @ops:	default operations per round
 * @what:	one line for --list: what one operation is
 * @run:	run @ops operations and fill @s; Return: 0, or a negative errno
 *		when the case cannot run here (the output says so)
 */
struct bench_case {
	const char *name;
	long ops;
	const char *what;
	int (*run)(long ops, struct sample *s);
};

/* clock.c */
uint64_t now_ns(void);
void sleep_ns(uint64_t ns);
uint64_t median_u64(uint64_t *v, int n);

/* marker.c: the census windows (see there) */
int marker_begin(const char *name, long ops, const char *ackdir,
		 uint64_t pause_ns, uint64_t *start);
int marker_end(const char *name, const char *ackdir, uint64_t pause_ns,
	       uint64_t start);

/* main.c: the path of this program, for forkexec */
extern const char *self_path;

/* the cases, one file per family */
int case_syscall(long ops, struct sample *s);
int case_clock(long ops, struct sample *s);
int case_openat(long ops, struct sample *s);
int case_mmap(long ops, struct sample *s);
int case_fault(long ops, struct sample *s);
int case_fault_huge(long ops, struct sample *s);
int case_forkexec(long ops, struct sample *s);
int case_pipe(long ops, struct sample *s);
int case_thread(long ops, struct sample *s);
int case_compute(long ops, struct sample *s);
uint64_t compute_chain(long ops);
int case_parallel(long ops, struct sample *s);
int case_parallel_threads(long ops, struct sample *s);
int case_membarrier(long ops, struct sample *s);
int case_sigtrap(long ops, struct sample *s);
int case_signal(long ops, struct sample *s);
int case_tick(long ops, struct sample *s);

/* forkexec's child: perfbench started with this as its only argument exits */
#define EXEC_CHILD_ARG	"--exec-child"

/* openat's file: present natively, under proot and in every guest image */
#define OPENAT_PATH	"/etc/passwd"

#endif /* PERFBENCH_H */
