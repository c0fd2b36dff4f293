// SPDX-License-Identifier: GPL-2.0
/*
 * smp.c - a guest with N CPUs has N CPUs, and parallel work uses them
 *
 * Usage: smp N
 *
 * 1. The guest reports N CPUs online and in this process's affinity mask.
 * 2. A thread pinned to each CPU in turn (sched_setaffinity()) runs there
 *    (sched_getcpu()).
 * 3. Parallel work: a fixed amount of pure user arithmetic, run once by
 *    one process and then by N processes at once (each the same amount).
 *    While all N run (until the first ends), every CPU must have been busy
 *    for at least half of the time /proc/stat accounts it (busy and idle):
 *    a CPU the guest leaves idle with N workers runnable fails.  Not a
 *    share of the wall time: where the host has fewer free cores than the
 *    guest has CPUs (an emulated host with 4 vCPUs on 2 cores), a CPU's
 *    host thread is starved and takes fewer ticks, busy as it is.  The
 *    speed-up N * T1 / TN is reported (it depends on the host's free CPUs,
 *    not only on the guest), TN from the first worker's start to the last
 *    one's end (the workers start together once all are forked).  The
 *    same work in N threads of one process is reported too: in parallel
 *    where the stub runs a lane per CPU, else one CPU at a time.
 * 4. Kernel-side concurrency: N threads in getppid() loops, and N threads
 *    that fork and reap children (each child a new mm, stub and SIGCHLD),
 *    all at once.  The step does the same amount of work for any N above
 *    2 (each thread 2/N of it): the threads of one process share one stub,
 *    and with N = 4 and the per-thread amount of N = 2 the step took 14
 *    minutes in an emulated host with 4 vCPUs on 2 cores.
 *
 *    Every child checks a page of its parent thread's stack: as it was at
 *    the fork, though the parent overwrites it at once.  Then all 2N
 *    threads fork at once (with stub lanes a child once started with
 *    another thread's state).
 * 5. Locks and time across CPUs: N threads, one pinned to each CPU, pass a
 *    baton round the ring under a mutex and condition variable (every pass
 *    wakes a thread on another CPU: futex wake-ups and IPIs), and then
 *    take the mutex in a tight loop; each reads CLOCK_MONOTONIC (the vDSO
 *    where the guest has one) under the mutex, which must never be earlier
 *    than the last reading another CPU stored under it, and the count of
 *    passes and increments must come out exact.
 *
 * Usage: smp N [plant-idle]: plant-idle keeps the N workers of step 3
 * off the last CPU, which must fail the test.
 *
 * Prints SMP_OK ncpus=N ... speedup=S busy=B0,B1,... threads_speedup=T or
 * SMP_FAIL with the reason; exit status 0 only on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAX_CPUS	32
#define WORK_ROUNDS	100000000UL
#define SYSCALLS	20000	/* per thread, for N <= 2 */
#define FORKS		200	/* per thread, for N <= 2 */
#define BATON_PASSES	2000	/* round the ring, in all */
#define LOCK_ROUNDS	20000	/* per thread, for N <= 2 */

static int ncpus;
/* step 3's workers kept off the last CPU (a planted fault) */
static int plant_idle;

/* Fail the test with a reason, as the gate's marker line */
static void fail(const char *what)
{
	printf("SMP_FAIL %s\n", what);
	fflush(stdout);
	exit(1);
}

/* Monotonic time in ns */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Monotonic time in seconds, for the speed-up */
static double now(void)
{
	return now_ns() / 1e9;
}

/*
 * Say on stderr (the console) that a step ended and how long it took
 * since @since: a run that times out shows which step it was in.
 * Returns the time now, where the next step starts.
 */
static double step_done(const char *step, double since)
{
	double t = now();

	fprintf(stderr, "smp: %s done in %.2f s\n", step, t - since);
	return t;
}

/* A CPU's time as /proc/stat accounts it, in jiffies */
struct cpu_time {
	unsigned long long busy;	/* user + nice + system */
	unsigned long long idle;	/* idle + iowait */
};

/* Per-CPU busy and idle jiffies from /proc/stat */
static void read_times(struct cpu_time times[MAX_CPUS])
{
	unsigned long long user, nice, sys, idle, iowait;
	char line[512];
	FILE *f;
	int cpu;

	memset(times, 0, MAX_CPUS * sizeof(times[0]));
	f = fopen("/proc/stat", "r");
	if (!f)
		fail("cannot read /proc/stat");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu", &cpu, &user,
			   &nice, &sys, &idle, &iowait) == 6 &&
		    cpu >= 0 && cpu < MAX_CPUS) {
			times[cpu].busy = user + nice + sys;
			times[cpu].idle = idle + iowait;
		}
	}
	fclose(f);
}

/* Pure user arithmetic that the compiler cannot fold away */
static void *compute(void *arg)
{
	volatile unsigned long sink;
	unsigned long x = (unsigned long)arg | 1, i;

	/* xorshift64: a chain of dependent steps, no closed form */
	for (i = 0; i < WORK_ROUNDS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
	(void)sink;
	return NULL;
}

/* @work for each of the 2N threads of step 4: the total of N = 2 */
static int per_thread(int work)
{
	return ncpus <= 2 ? work : work * 2 / ncpus;
}

/* Kernel entries on every CPU at once: the shortest syscall */
static void *syscalls(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < per_thread(SYSCALLS); i++)
		syscall(SYS_getppid);
	return NULL;
}

/*
 * fork_checked() - fork a child that finds @buf as it was at the fork:
 * filled with @pat, though the parent overwrites it at once.  Return NULL
 * or what went wrong.
 */
static const char *fork_checked(volatile unsigned char *buf, size_t len,
				unsigned char pat)
{
	size_t i, old = 0, other = 0;
	int status;
	pid_t pid;

	for (i = 0; i < len; i++)
		buf[i] = pat;
	/*
	 * The raw syscall: glibc's fork() takes locks that serialize the
	 * forks of a process's threads.  The child calls nothing of libc.
	 */
	pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid < 0)
		return "fork failed";
	if (!pid) {
		for (i = 0; i < len; i++) {
			if (buf[i] == (unsigned char)~pat)
				old++;
			else if (buf[i] != pat)
				other++;
		}
		syscall(SYS_exit_group, old ? 20 : other ? 21 : 7);
	}
	for (i = 0; i < len; i++)
		buf[i] = ~pat;
	if (waitpid(pid, &status, 0) != pid)
		return "waitpid failed";
	if (WIFEXITED(status) && WEXITSTATUS(status) == 20)
		return "a child saw its parent's writes after the fork";
	if (WIFEXITED(status) && WEXITSTATUS(status) == 21)
		return "a child found its stack changed across the fork";
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 7)
		return "a child did not exit with its status (another thread's state?)";
	return NULL;
}

/*
 * New mms, stubs and SIGCHLDs on every CPU at once; each child checks a
 * page of its parent thread's stack
 */
static void *forks(void *arg)
{
	volatile unsigned char buf[4096];
	const char *err;
	int i;

	for (i = 0; i < per_thread(FORKS); i++) {
		err = fork_checked(buf, sizeof(buf),
				   (unsigned char)((long)arg * 17 + i));
		if (err)
			return (void *)err;
	}
	return NULL;
}

/* Half the threads in syscall loops, half forking, all at once */
static void *kernel_work(void *arg)
{
	return ((long)arg & 1) ? forks(arg) : syscalls(arg);
}

/* With plant_idle: keep the calling worker off the last CPU */
static void keep_off_last_cpu(void)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < ncpus - 1; cpu++)
		CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
}

/* A worker process's compute window, in the memory it shares with us */
struct window {
	long long start;	/* ns, CLOCK_MONOTONIC, after the start gate */
	long long end;		/* ns, when @fn returned */
};

/*
 * The worker of run_procs(): wait at the start gate, so that the workers
 * start together once all are forked, and record when @fn ran.
 */
static void proc_worker(void *(*fn)(void *), long i, int gate,
			struct window *w)
{
	void *res;
	char c;

	if (plant_idle)
		keep_off_last_cpu();
	if (read(gate, &c, 1) != 1)
		_exit(1);
	w->start = now_ns();
	res = fn((void *)i);
	w->end = now_ns();
	_exit(res ? 1 : 0);
}

/*
 * Run @fn in @n processes at once; any that fails fails the test.  The
 * CPUs' times are read into @started once all are forked and into
 * @first_end when the first one ends.  Returns the seconds from the first
 * worker's start to the last one's end: the fork()s, exits and waits are
 * not the parallel work (under an emulated host a fork costs a good part
 * of the arithmetic).
 */
static double run_procs(int n, void *(*fn)(void *),
			struct cpu_time *started, struct cpu_time *first_end)
{
	long long first, last;
	int i, status, bad = 0, gate[2];
	struct window *w;
	pid_t pid;

	w = mmap(NULL, n * sizeof(*w), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED || pipe(gate))
		fail("no shared memory or pipe for the workers");
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			fail("fork failed");
		if (!pid) {
			/* A parent that fails closes the gate: EOF, exit */
			close(gate[1]);
			proc_worker(fn, i, gate[0], &w[i]);
		}
	}
	read_times(started);
	for (i = 0; i < n; i++)
		if (write(gate[1], "g", 1) != 1)
			fail("cannot open the start gate");
	for (i = 0; i < n; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
		if (i == 0)
			read_times(first_end);
	}
	if (bad)
		fail("a worker process failed");
	first = w[0].start;
	last = w[0].end;
	for (i = 1; i < n; i++) {
		if (w[i].start < first)
			first = w[i].start;
		if (w[i].end > last)
			last = w[i].end;
	}
	close(gate[0]);
	close(gate[1]);
	munmap(w, n * sizeof(*w));
	return (last - first) / 1e9;
}

/* Run @fn in @n threads at once; the first non-NULL result fails */
static void run_threads(int n, void *(*fn)(void *))
{
	pthread_t t[2 * MAX_CPUS];
	void *res;
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(long)i))
			fail("pthread_create failed");
	for (i = 0; i < n; i++) {
		pthread_join(t[i], &res);
		if (res)
			fail(res);
	}
}

/* Step 5's shared state, all under its mutex */
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ring_turn = PTHREAD_COND_INITIALIZER;
static int baton;		/* the thread whose turn it is */
static long passes, increments;
static long long last_ns;	/* the latest time read under the lock */
static const char *ring_error;

/*
 * Under ring_lock: read the time, which must not be earlier than the last
 * reading stored under the lock (by this or another CPU), and store it
 */
static void ring_check_time(void)
{
	long long t = now_ns();

	if (t < last_ns && !ring_error)
		ring_error = "CLOCK_MONOTONIC read under a lock went back across CPUs";
	last_ns = t;
}

/* Pin the calling thread to @cpu */
static const char *pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ?
		"pthread_setaffinity_np failed" : NULL;
}

/* Step 5: thread @arg on CPU @arg passes the baton, then takes the lock */
static void *ring_member(void *arg)
{
	int me = (long)arg, i;
	const char *err = pin_to(me);

	if (err)
		return (void *)err;

	pthread_mutex_lock(&ring_lock);
	while (passes < BATON_PASSES) {
		while (baton != me && passes < BATON_PASSES)
			pthread_cond_wait(&ring_turn, &ring_lock);
		if (passes >= BATON_PASSES)
			break;
		ring_check_time();
		passes++;
		baton = (me + 1) % ncpus;
		pthread_cond_broadcast(&ring_turn);
	}
	pthread_mutex_unlock(&ring_lock);

	for (i = 0; i < per_thread(LOCK_ROUNDS); i++) {
		pthread_mutex_lock(&ring_lock);
		if (!(i & 15))
			ring_check_time();
		increments++;
		pthread_mutex_unlock(&ring_lock);
	}
	return NULL;
}

/* Step 5: the ring, and what it must have counted */
static void check_locks_and_time(void)
{
	char msg[128];
	long expected = (long)ncpus * per_thread(LOCK_ROUNDS);

	run_threads(ncpus, ring_member);
	if (ring_error)
		fail(ring_error);
	if (passes != BATON_PASSES || increments != expected) {
		snprintf(msg, sizeof(msg),
			 "the lock lost updates: %ld passes of %d, %ld increments of %ld",
			 passes, BATON_PASSES, increments, expected);
		fail(msg);
	}
}

/* Step 1: N CPUs online and usable by this process */
static void check_count(void)
{
	cpu_set_t set;
	char msg[128];
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(set), &set))
		fail("sched_getaffinity failed");
	if (online != ncpus || CPU_COUNT(&set) != ncpus) {
		snprintf(msg, sizeof(msg), "online=%ld affinity=%d, expected %d",
			 online, CPU_COUNT(&set), ncpus);
		fail(msg);
	}
}

/* Step 2: pinned to a CPU, the thread runs on it */
static void check_pinning(void)
{
	cpu_set_t set;
	char msg[128];
	int cpu, i;

	for (cpu = 0; cpu < ncpus; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fail("sched_setaffinity failed");
		for (i = 0; i < 1000; i++)
			if (sched_getcpu() != cpu)
				break;
		if (i < 1000) {
			snprintf(msg, sizeof(msg), "pinned to CPU %d, ran on %d",
				 cpu, sched_getcpu());
			fail(msg);
		}
	}
	CPU_ZERO(&set);
	for (cpu = 0; cpu < ncpus; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Every CPU busy for at least half of the time /proc/stat accounts it
 * between @before and @after (all N workers runnable); @busy gets the
 * shares in percent
 */
static void check_busy(const struct cpu_time *before,
		       const struct cpu_time *after, char *busy, size_t size)
{
	unsigned long long dbusy, accounted;
	char msg[512];
	int cpu, share;

	for (cpu = 0; cpu < ncpus; cpu++) {
		dbusy = after[cpu].busy - before[cpu].busy;
		accounted = dbusy + after[cpu].idle - before[cpu].idle;
		share = accounted ? (int)(100 * dbusy / accounted) : -1;
		snprintf(busy + strlen(busy), size - strlen(busy), "%s%d",
			 cpu ? "," : "", share);
		if (share < 50) {
			snprintf(msg, sizeof(msg),
				 "CPU %d was busy %d%% of its accounted time while %d workers ran (busy=%s; -1: none accounted)",
				 cpu, share, ncpus, busy);
			fail(msg);
		}
	}
}

int main(int argc, char **argv)
{
	struct cpu_time before[MAX_CPUS], after[MAX_CPUS];
	double start, t1, tn, tt;
	char busy[256] = "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 3 || (ncpus = atoi(argv[1])) < 1 ||
	    ncpus > MAX_CPUS || (argc == 3 && strcmp(argv[2], "plant-idle")))
		fail("usage: smp N [plant-idle]");
	plant_idle = argc == 3;

	start = now();
	check_count();
	check_pinning();
	start = step_done("count and pinning", start);

	t1 = now();
	compute((void *)1);
	t1 = now() - t1;
	start = step_done("one process's arithmetic", start);

	tn = run_procs(ncpus, compute, before, after);
	start = step_done("arithmetic in N processes", start);

	/* Threads of one process: in parallel where the stub has lanes */
	tt = now();
	run_threads(ncpus, compute);
	tt = now() - tt;
	start = step_done("arithmetic in N threads", start);

	check_busy(before, after, busy, sizeof(busy));

	run_threads(2 * ncpus, kernel_work);
	start = step_done("syscalls and forks in 2N threads", start);

	run_threads(2 * ncpus, forks);
	start = step_done("forks in 2N threads at once", start);

	check_locks_and_time();
	step_done("baton and lock across CPUs", start);

	printf("SMP_OK ncpus=%d t1=%.2f tn=%.2f speedup=%.2f busy=%s threads_speedup=%.2f\n",
	       ncpus, t1, tn, ncpus * t1 / tn, busy, ncpus * t1 / tt);
	return 0;
}
