// SPDX-License-Identifier: GPL-2.0
/*
 * perfbench - micro-benchmarks of what a UML guest pays per operation
 *
 * One static binary that runs natively, under proot and in a guest, so that
 * the same instructions are timed everywhere.  Usage:
 *
 *   perfbench [-l] [-c CASE[,CASE...]] [-r ROUNDS] [-n [CASE=]OPS]...
 *             [-m ACKDIR|- [-p PAUSE_MS]]
 *
 *   -l          list the cases and their default operations per round
 *   -c          the cases to run (default: all, in the order of -l)
 *   -r          rounds (default 5); each case warms up once before round 1
 *   -n          operations per round, for one case or (without CASE=) all
 *   -m          marker mode for the census (marker.c): ACKDIR is where the
 *               tracer acknowledges, "-" for none; -p the pause around each
 *               measured window (default 500 ms)
 *
 * Output: one TSV line per case and round (header "#PB ..."), PERFBENCH-SKIP
 * lines for cases that cannot run here, a summary of medians as "#" lines,
 * and PERFBENCH-DONE as the last line.  Exit status 0 when every case ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfbench.h"

#define MAX_ROUNDS	1000
#define DEFAULT_ROUNDS	5
#define DEFAULT_PAUSE_MS 500

/* Defaults: a few hundred ms per round in an x86_64 guest, tens natively. */
static const struct bench_case cases[] = {
	{ "syscall", 20000, "getppid()", case_syscall },
	{ "clock", 20000, "clock_gettime(CLOCK_MONOTONIC)", case_clock },
	{ "openat", 5000, "openat(" OPENAT_PATH ") + close()", case_openat },
	{ "fault", 2048, "first write to a fresh anonymous page", case_fault },
	{ "fault-huge", 2048,
	  "the same, in memory advised for transparent huge pages",
	  case_fault_huge },
	{ "forkexec", 100, "fork + execve(self) + waitpid", case_forkexec },
	{ "pipe", 5000, "1-byte round trip to a child over two pipes",
	  case_pipe },
	{ "thread", 500, "pthread_create + pthread_join", case_thread },
	{ "mmap", 5000, "mmap + munmap of 64 KiB, untouched", case_mmap },
	{ "compute", 20000, "1024 multiply/xorshift steps (the validator)",
	  case_compute },
	{ "parallel", 20000,
	  "compute's op, the ops shared by a process per online CPU",
	  case_parallel },
	{ "parallel-threads", 20000,
	  "compute's op, the ops shared by a thread per online CPU",
	  case_parallel_threads },
	{ "membarrier", 2000,
	  "membarrier(PRIVATE_EXPEDITED), a thread computing on each other CPU",
	  case_membarrier },
	{ "sigtrap", 20000, "seccomp RET_TRAP + SIGSYS handler + sigreturn",
	  case_sigtrap },
	{ "signal", 20000, "tgkill(self) + handler + rt_sigreturn", case_signal },
	{ "tick", 200, "a 1 kHz timer signal into syscall-free code",
	  case_tick },
};
#define NCASES	((int)(sizeof(cases) / sizeof(cases[0])))

/**
 * struct options - what the command line asked for
 * @selected:	the cases to run, in order (indices into cases[])
 * @nselected:	how many
 * @ops:	operations per round of each case
 * @rounds:	rounds
 * @ackdir:	marker mode's acknowledgement directory, NULL without -m
 * @pause_ns:	marker mode's pause
 */
struct options {
	int selected[NCASES];
	int nselected;
	long ops[NCASES];
	int rounds;
	const char *ackdir;
	uint64_t pause_ns;
};

/* per case and round: the measured ns (0: not run), for the summary */
static uint64_t results[NCASES][MAX_ROUNDS];
static uint64_t result_bytes[NCASES];
static int skipped[NCASES];

const char *self_path;

/* usage() - the header comment's usage lines on stderr, exit 2 */
static void __attribute__((noreturn)) usage(const char *why)
{
	if (why)
		fprintf(stderr, "perfbench: %s\n", why);
	fprintf(stderr, "usage: perfbench [-l] [-c CASE[,CASE...]] [-r ROUNDS] "
		"[-n [CASE=]OPS]... [-m ACKDIR|- [-p PAUSE_MS]]\n"
		"       perfbench -l lists the cases\n");
	exit(2);
}

/**
 * find_case() - the index of case @name
 * @name:	case name
 * @len:	its length (it may be part of a longer string)
 *
 * Return: the index, or exit 2 with the list of cases
 */
static int find_case(const char *name, size_t len)
{
	int i;

	for (i = 0; i < NCASES; i++)
		if (strlen(cases[i].name) == len &&
		    !strncmp(cases[i].name, name, len))
			return i;
	fprintf(stderr, "perfbench: no case '%.*s'; the cases are:", (int)len,
		name);
	for (i = 0; i < NCASES; i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

/**
 * parse_long() - a positive number from an option, or exit 2 naming it
 * @s:		the text
 * @what:	the option, for the message
 *
 * Return: the number
 */
static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "perfbench: %s '%s' is not a positive number\n",
			what, s);
		exit(2);
	}
	return v;
}

/* select_cases() - -c CASE[,CASE...] into @o */
static void select_cases(struct options *o, const char *list)
{
	const char *p = list, *comma;

	o->nselected = 0;
	while (*p) {
		comma = strchrnul(p, ',');
		if (o->nselected == NCASES)
			usage("-c names a case twice");
		o->selected[o->nselected++] = find_case(p, comma - p);
		p = *comma ? comma + 1 : comma;
	}
	if (!o->nselected)
		usage("-c needs at least one case");
}

/* set_ops() - -n [CASE=]OPS into @o */
static void set_ops(struct options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	int i;

	if (eq) {
		o->ops[find_case(arg, eq - arg)] = parse_long(eq + 1, "-n");
		return;
	}
	for (i = 0; i < NCASES; i++)
		o->ops[i] = parse_long(arg, "-n");
}

/* list_cases() - -l: name, default operations, what one operation is */
static void list_cases(void)
{
	int i;

	for (i = 0; i < NCASES; i++)
		printf("%-16s %7ld  %s\n", cases[i].name, cases[i].ops,
		       cases[i].what);
	exit(0);
}

/* parse_args() - the command line into @o (exits 2 on bad input) */
static void parse_args(struct options *o, int argc, char **argv)
{
	int c, i;

	for (i = 0; i < NCASES; i++) {
		o->selected[i] = i;
		o->ops[i] = cases[i].ops;
	}
	o->nselected = NCASES;
	o->rounds = DEFAULT_ROUNDS;
	o->ackdir = NULL;
	o->pause_ns = DEFAULT_PAUSE_MS * 1000000ull;
	while ((c = getopt(argc, argv, "lc:r:n:m:p:")) != -1) {
		switch (c) {
		case 'l':
			list_cases();
			break;
		case 'c':
			select_cases(o, optarg);
			break;
		case 'r':
			o->rounds = parse_long(optarg, "-r");
			if (o->rounds > MAX_ROUNDS)
				usage("-r: at most 1000 rounds");
			break;
		case 'n':
			set_ops(o, optarg);
			break;
		case 'm':
			o->ackdir = optarg;
			break;
		case 'p':
			o->pause_ns = parse_long(optarg, "-p") * 1000000ull;
			break;
		default:
			usage(NULL);
		}
	}
	if (optind != argc)
		usage("unexpected arguments");
}

/**
 * print_sample() - the TSV line of one case and round
 * @ci:		case index
 * @round:	round, from 1
 * @ops:	operations
 * @s:		what was measured
 *
 * Columns: PB, case, round, ops, ns_total, ns_per_op, page_size, ns_per_mb
 * ("-" unless the case faulted memory in: then per MiB of memory, which
 * compares across page sizes where ns_per_op does not).
 */
static void print_sample(int ci, int round, long ops, const struct sample *s)
{
	printf("PB\t%s\t%d\t%ld\t%llu\t%.3f\t%ld\t", cases[ci].name, round, ops,
	       (unsigned long long)s->ns_total, (double)s->ns_total / ops,
	       sysconf(_SC_PAGESIZE));
	if (s->bytes)
		printf("%.1f\n", (double)s->ns_total * 1048576.0 / s->bytes);
	else
		printf("-\n");
	fflush(stdout);
}

/**
 * measure() - run case @ci for one round (or a warm-up), print and keep it
 * @ci:		case index
 * @round:	round from 1, 0 for the warm-up (neither printed nor kept)
 * @ops:	operations
 *
 * A case that cannot run here is reported once and skipped from then on.
 */
static void measure(int ci, int round, long ops)
{
	struct sample s = { 0, 0 };
	int err;

	if (skipped[ci])
		return;
	err = cases[ci].run(ops, &s);
	if (err) {
		printf("PERFBENCH-SKIP\t%s\t%s\n", cases[ci].name,
		       strerror(-err));
		fflush(stdout);
		skipped[ci] = 1;
		return;
	}
	if (!round)
		return;
	results[ci][round - 1] = s.ns_total;
	result_bytes[ci] = s.bytes;
	print_sample(ci, round, ops, &s);
}

/* warm_up() - each case once with a tenth of its operations */
static void warm_up(const struct options *o, int ci)
{
	long ops = o->ops[ci] / 10;

	measure(ci, 0, ops ? ops : 1);
}

/* run_rounds() - round-major: every selected case once per round */
static void run_rounds(const struct options *o)
{
	int i, r;

	for (i = 0; i < o->nselected; i++)
		warm_up(o, o->selected[i]);
	for (r = 1; r <= o->rounds; r++)
		for (i = 0; i < o->nselected; i++)
			measure(o->selected[i], r, o->ops[o->selected[i]]);
}

/**
 * run_marked() - case-major, each case's rounds inside one marker window
 * @o:		options
 *
 * Return: 0, or -ETIMEDOUT when the tracer did not answer
 */
static int run_marked(const struct options *o)
{
	uint64_t start;
	int i, r, ci, err = 0;

	for (i = 0; i < o->nselected && !err; i++) {
		ci = o->selected[i];
		warm_up(o, ci);
		err = marker_begin(cases[ci].name, o->ops[ci] * o->rounds,
				   o->ackdir, o->pause_ns, &start);
		for (r = 1; r <= o->rounds && !err; r++)
			measure(ci, r, o->ops[ci]);
		if (!err)
			err = marker_end(cases[ci].name, o->ackdir,
					 o->pause_ns, start);
	}
	return err;
}

/* print_summary() - medians per case as "#" lines, for people */
static void print_summary(const struct options *o)
{
	uint64_t med;
	int i, ci;

	printf("# case             median us/op  rounds  page_size=%ld\n",
	       sysconf(_SC_PAGESIZE));
	for (i = 0; i < o->nselected; i++) {
		ci = o->selected[i];
		if (skipped[ci] || !results[ci][0]) {
			printf("# %-16s skipped\n", cases[ci].name);
			continue;
		}
		med = median_u64(results[ci], o->rounds);
		printf("# %-16s %12.3f  %6d", cases[ci].name,
		       (double)med / o->ops[ci] / 1000.0, o->rounds);
		if (result_bytes[ci])
			printf("  (%.1f us/MiB)",
			       (double)med * 1048576.0 / result_bytes[ci] / 1000.0);
		printf("\n");
	}
}

/* find_self() - an absolute path of this program, for forkexec's execve */
static void find_self(const char *argv0)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n > 0) {
		path[n] = '\0';
		self_path = path;
	} else {
		self_path = argv0;
	}
}

int main(int argc, char **argv)
{
	struct options o;
	int i, err = 0;

	if (argc == 2 && !strcmp(argv[1], EXEC_CHILD_ARG))
		return 0;
	find_self(argv[0]);
	parse_args(&o, argc, argv);
	printf("#PB\tcase\tround\tops\tns_total\tns_per_op\tpage_size\tns_per_mb\n");
	if (o.ackdir)
		err = run_marked(&o);
	else
		run_rounds(&o);
	print_summary(&o);
	for (i = 0; i < o.nselected; i++)
		err |= skipped[o.selected[i]];
	printf("PERFBENCH-DONE rc=%d\n", err ? 1 : 0);
	return err ? 1 : 0;
}
