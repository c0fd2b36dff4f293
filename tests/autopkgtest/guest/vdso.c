// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vdso.c - the guest's vDSO tells the time as the kernel does
 *
 * The program finds the time functions in the vDSO that AT_SYSINFO_EHDR
 * announces (its own ELF lookup: the libc may or may not use them) and
 * checks, for every clock the vDSO serves:
 *
 *   - each vDSO reading lies between two clock_gettime() syscalls around
 *     it (the guest's own timekeeping), gettimeofday() and clock_getres()
 *     alike, and CLOCK_MONOTONIC never goes back over many readings;
 *   - in a time namespace with a monotonic and boottime offset (the vvar
 *     page of time namespaces) the same holds, shifted by the offset;
 *   - with --no-syscalls, that none of these calls enters the kernel: a
 *     seccomp filter traps clock_gettime, gettimeofday and clock_getres
 *     (SECCOMP_RET_TRAP) and the calls must raise no SIGSYS.
 *
 * --stale SECONDS (aarch64): for SECONDS of the counter, read
 * CLOCK_MONOTONIC through the vDSO without a syscall and compare every
 * reading with CNTVCT_EL0 scaled by CNTFRQ_EL0.  The host stops the UML
 * kernel meanwhile (the vdso-stale gate) for longer than the vDSO's data
 * may go without an update: the vDSO must still agree with the counter.
 *
 * Prints "VDSO_OK ..." or "VDSO_FAIL <what>".
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define NS_PER_SEC 1000000000LL
#define TIMENS_OFFSET_SEC 1000
#define MONOTONIC_READS 200000
/* where the vDSO falls back to the syscall: each read is a guest syscall */
#define MONOTONIC_SYSCALL_READS 20000
#define BRACKET_READS 2000

#if defined(__aarch64__)
static const char *const sym_gettime = "__kernel_clock_gettime";
static const char *const sym_gettimeofday = "__kernel_gettimeofday";
static const char *const sym_getres = "__kernel_clock_getres";
#else
static const char *const sym_gettime = "__vdso_clock_gettime";
static const char *const sym_gettimeofday = "__vdso_gettimeofday";
static const char *const sym_getres = "__vdso_clock_getres";
#endif

typedef int (*gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);

static gettime_fn vdso_gettime;
static gettimeofday_fn vdso_gettimeofday;
static gettime_fn vdso_getres;

static const struct {
	clockid_t id;
	const char *name;
} clocks[] = {
	{ CLOCK_REALTIME, "realtime" },
	{ CLOCK_MONOTONIC, "monotonic" },
	{ CLOCK_BOOTTIME, "boottime" },
	{ CLOCK_MONOTONIC_RAW, "monotonic_raw" },
	{ CLOCK_TAI, "tai" },
	{ CLOCK_REALTIME_COARSE, "realtime_coarse" },
	{ CLOCK_MONOTONIC_COARSE, "monotonic_coarse" },
};
#define NCLOCKS (sizeof(clocks) / sizeof(clocks[0]))

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Print the verdict VDSO_FAIL with the reason and stop */
static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("VDSO_FAIL ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

/* vdso_sym() - the address of NAME in the vDSO at BASE, or NULL */
static void *vdso_sym(uintptr_t base, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *symtab = NULL;
	const char *strtab = NULL;
	const Elf32_Word *hash = NULL;
	uintptr_t load = 0;
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = base + ph[i].p_offset - ph[i].p_vaddr;
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(base + ph[i].p_offset);
	}
	if (!dyn || !load)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			symtab = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(load + dyn->d_un.d_ptr);
	}
	if (!symtab || !strtab || !hash)
		return NULL;
	/* DT_HASH's nchain is the number of symbols */
	for (i = 0; i < (int)hash[1]; i++) {
		if (ELF64_ST_TYPE(symtab[i].st_info) != STT_FUNC ||
		    symtab[i].st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(strtab + symtab[i].st_name, name))
			return (void *)(load + symtab[i].st_value);
	}
	return NULL;
}

/* Find the three time functions, or fail naming the one missing */
static void vdso_find(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);

	if (!base)
		fail("no AT_SYSINFO_EHDR: the kernel announces no vDSO");
	vdso_gettime = (gettime_fn)vdso_sym(base, sym_gettime);
	vdso_gettimeofday = (gettimeofday_fn)vdso_sym(base, sym_gettimeofday);
	vdso_getres = (gettime_fn)vdso_sym(base, sym_getres);
	if (!vdso_gettime)
		fail("the vDSO has no %s", sym_gettime);
	if (!vdso_gettimeofday)
		fail("the vDSO has no %s", sym_gettimeofday);
#if defined(__aarch64__)
	/* x86_64 UML's vDSO has no clock_getres() */
	if (!vdso_getres)
		fail("the vDSO has no %s", sym_getres);
#endif
}

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NS_PER_SEC + ts->tv_nsec;
}

/* The kernel's answer, by the syscall itself */
static long long sys_ns(clockid_t id)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, id, &ts))
		fail("clock_gettime(%d) syscall: %s", id, strerror(errno));
	return ts_ns(&ts);
}

/* The vDSO's answer */
static long long vdso_ns(clockid_t id, const char *name)
{
	struct timespec ts;
	int err = vdso_gettime(id, &ts);

	if (err)
		fail("vDSO clock_gettime(%s) returned %d", name, err);
	return ts_ns(&ts);
}

/*
 * check_brackets() - every clock: syscall <= vDSO <= syscall, READS times;
 * gettimeofday() against CLOCK_REALTIME; clock_getres() equal to the
 * syscall's.  WHERE names the namespace in a failure.
 */
static void check_brackets(const char *where)
{
	struct timespec vres, sres;
	struct timeval tv;
	long long before, mid, after;
	unsigned int c, i;

	for (c = 0; c < NCLOCKS; c++) {
		for (i = 0; i < BRACKET_READS; i++) {
			before = sys_ns(clocks[c].id);
			mid = vdso_ns(clocks[c].id, clocks[c].name);
			after = sys_ns(clocks[c].id);
			if (mid < before || mid > after)
				fail("%s %s: the vDSO read %lld ns, outside the syscalls' %lld..%lld",
				     where, clocks[c].name, mid, before, after);
		}
		if (!vdso_getres)
			continue;
		if (vdso_getres(clocks[c].id, &vres) ||
		    syscall(SYS_clock_getres, clocks[c].id, &sres))
			fail("%s clock_getres(%s) failed", where, clocks[c].name);
		if (vres.tv_sec != sres.tv_sec || vres.tv_nsec != sres.tv_nsec)
			fail("%s clock_getres(%s): vDSO %lld ns, syscall %lld ns",
			     where, clocks[c].name, ts_ns(&vres), ts_ns(&sres));
	}
	for (i = 0; i < BRACKET_READS; i++) {
		before = sys_ns(CLOCK_REALTIME) / 1000;
		if (vdso_gettimeofday(&tv, NULL))
			fail("%s vDSO gettimeofday() failed", where);
		mid = tv.tv_sec * 1000000LL + tv.tv_usec;
		after = sys_ns(CLOCK_REALTIME) / 1000;
		if (mid < before || mid > after)
			fail("%s gettimeofday: %lld us, outside the syscalls' %lld..%lld",
			     where, mid, before, after);
	}
}

/*
 * check_monotonic() - CLOCK_MONOTONIC through the vDSO never goes back,
 * over @reads reads: many where the vDSO computes the time itself (its
 * arithmetic over counter values is what is checked), fewer where each
 * read is a syscall (the kernel's clock; under TCG 200000 syscalls took
 * most of the gate's five minutes)
 */
static void check_monotonic(int reads)
{
	long long last = vdso_ns(CLOCK_MONOTONIC, "monotonic"), now;
	int i;

	for (i = 0; i < reads; i++) {
		now = vdso_ns(CLOCK_MONOTONIC, "monotonic");
		if (now < last)
			fail("CLOCK_MONOTONIC went back by %lld ns after %d reads",
			     last - now, i);
		last = now;
	}
}

static volatile sig_atomic_t sigsys_count;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	sigsys_count++;
}

/*
 * trap_time_syscalls() - from now on the three time syscalls raise SIGSYS
 * (counted) instead of reaching the kernel's implementation
 */
static void trap_time_syscalls(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_getres, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL))
		fail("sigaction(SIGSYS): %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		fail("cannot install the seccomp filter: %s", strerror(errno));
}

/*
 * count_syscalls() - call each vDSO time function READS times under
 * trap_time_syscalls() and return how many of the calls entered the kernel
 */
static int count_syscalls(void)
{
	struct timespec ts;
	struct timeval tv;
	unsigned int c;
	int i;

	trap_time_syscalls();
	for (i = 0; i < MONOTONIC_READS; i++)
		vdso_gettime(clocks[i % NCLOCKS].id, &ts);
	for (i = 0; i < BRACKET_READS; i++)
		vdso_gettimeofday(&tv, NULL);
	for (c = 0; vdso_getres && c < NCLOCKS; c++)
		vdso_getres(clocks[c].id, &ts);
	return sigsys_count;
}

/* fork(), with stdout flushed first; fails the program if it cannot */
static pid_t fork_or_fail(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	return pid;
}

/* The wait status of child PID; fails the program if there is none */
static int wait_or_fail(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid: %s", strerror(errno));
	return status;
}

/* In a child, so that the filter leaves the rest of the checks alone */
static void check_no_syscalls(const char *where)
{
	int status;
	pid_t pid;

	pid = fork_or_fail();
	if (pid == 0)
		_exit(count_syscalls() ? 3 : 0);
	status = wait_or_fail(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		fail("%s: vDSO time calls entered the kernel (SIGSYS from the filter)",
		     where);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("%s: the syscall-counting child ended with status 0x%x",
		     where, status);
}

/*
 * timens_child() - in a new time namespace whose monotonic and boottime
 * clocks run TIMENS_OFFSET_SEC ahead: the vDSO agrees with the syscall
 * there, and is that far ahead of the parent's clock (read by the parent
 * right before the fork: BEFORE)
 */
static void timens_child(long long before, int no_syscalls)
{
	long long mono = vdso_ns(CLOCK_MONOTONIC, "monotonic");
	long long off = TIMENS_OFFSET_SEC * NS_PER_SEC;

	if (mono < before + off || mono > before + off + 60 * NS_PER_SEC)
		fail("in a time namespace monotonic reads %lld ns, not %d s past %lld",
		     mono, TIMENS_OFFSET_SEC, before);
	check_brackets("timens");
	if (no_syscalls)
		check_no_syscalls("timens");
	fflush(stdout);
	_exit(0);
}

/* Set the offsets of the time namespace this process's children enter */
static void timens_enter(void)
{
	char offsets[64];
	int fd, len;

	if (unshare(CLONE_NEWTIME))
		fail("unshare(CLONE_NEWTIME): %s", strerror(errno));
	len = snprintf(offsets, sizeof(offsets), "monotonic %d 0\nboottime %d 0\n",
		       TIMENS_OFFSET_SEC, TIMENS_OFFSET_SEC);
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	if (fd < 0 || write(fd, offsets, len) != len)
		fail("cannot write /proc/self/timens_offsets: %s", strerror(errno));
	close(fd);
}

/* check_timens() - the time namespace checks, in a child of a child */
static void check_timens(int no_syscalls)
{
	int status;
	pid_t pid;

	pid = fork_or_fail();
	if (pid == 0) {
		long long before;
		pid_t child;

		timens_enter();
		before = sys_ns(CLOCK_MONOTONIC);
		child = fork_or_fail();
		if (child == 0)
			timens_child(before, no_syscalls);
		status = wait_or_fail(child);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
	}
	status = wait_or_fail(pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		exit(1); /* the child printed VDSO_FAIL */
}

#if defined(__aarch64__)
static uint64_t cntvct(void)
{
	uint64_t cnt;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r" (cnt) :: "memory");
	return cnt;
}

static uint64_t cntfrq(void)
{
	uint64_t frq;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r" (frq));
	return frq;
}

/* Nanoseconds of the counter in TICKS at FRQ Hz */
static long long cnt_ns(uint64_t ticks, uint64_t frq)
{
	return (long long)((unsigned __int128)ticks * NS_PER_SEC / frq);
}

/*
 * check_stale() - SECONDS of vDSO readings without a syscall, each read
 * between two counter reads and within a millisecond of what the counter
 * says passed; the host stops the kernel meanwhile, so that the vDSO's
 * data goes stale
 */
static void check_stale(long seconds)
{
	const long long tolerance = 1000000;
	uint64_t frq = cntfrq(), a0, b0, a, b;
	long long v0, v, last;
	unsigned long reads = 0;

	a0 = cntvct();
	v0 = vdso_ns(CLOCK_MONOTONIC, "monotonic");
	b0 = cntvct();
	last = v0;
	printf("VDSO_STALE_READY %ld\n", seconds);
	fflush(stdout);
	do {
		a = cntvct();
		v = vdso_ns(CLOCK_MONOTONIC, "monotonic");
		b = cntvct();
		if (v < last)
			fail("stale: CLOCK_MONOTONIC went back by %lld ns after %.1f s",
			     last - v, cnt_ns(a - a0, frq) / 1e9);
		if (v - v0 < cnt_ns(a - b0, frq) - tolerance ||
		    v - v0 > cnt_ns(b - a0, frq) + tolerance)
			fail("stale: after %.3f s of the counter the vDSO says %.3f s",
			     cnt_ns(a - a0, frq) / 1e9, (v - v0) / 1e9);
		last = v;
		reads++;
	} while (cnt_ns(b - a0, frq) < seconds * NS_PER_SEC);
	printf("VDSO_OK stale seconds=%ld reads=%lu\n", seconds, reads);
}
#endif

int main(int argc, char **argv)
{
	int no_syscalls = argc > 1 && !strcmp(argv[1], "--no-syscalls");

	setvbuf(stdout, NULL, _IOLBF, 0);
	vdso_find();
#if defined(__aarch64__)
	if (argc > 2 && !strcmp(argv[1], "--stale")) {
		check_stale(strtol(argv[2], NULL, 10));
		return 0;
	}
#endif
	check_brackets("init");
	check_monotonic(no_syscalls ? MONOTONIC_READS : MONOTONIC_SYSCALL_READS);
	if (no_syscalls)
		check_no_syscalls("init");
	check_timens(no_syscalls);
	printf("VDSO_OK clocks=%zu %s\n", NCLOCKS,
	       no_syscalls ? "no syscalls" : "syscalls allowed");
	return 0;
}
