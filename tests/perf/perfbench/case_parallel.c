// SPDX-License-Identifier: GPL-2.0
/*
 * case_parallel.c - the validator's arithmetic over every online CPU, in
 * processes (parallel) and in threads of one process (parallel-threads)
 *
 * What an SMP guest is for: CPU-bound work spread over its CPUs.  OPS
 * operations of compute's chain are shared out among one worker per
 * online CPU, so the time per operation is compute's divided by the CPUs
 * the workers really got: compute over parallel in one condition is the
 * speed-up, and parallel across guests booted with ncpus=1, 2, 4 shows
 * what each vCPU adds.  The two differ in UML: it runs an mm's user code
 * in one host process (its stub), one CPU at a time, so threads of one
 * process take turns where processes run side by side; natively both
 * scale.  Reaping the workers (and starting the threads) is inside the
 * measured time: a few of them against tens of milliseconds of work.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfbench.h"

/* more workers than this would measure the scheduler, not the CPUs */
#define PARALLEL_MAX_WORKERS	64

/* the results, kept so that the compiler cannot drop the loops */
static volatile uint64_t parallel_sink;

/* parallel_workers() - one worker per online CPU, within the cap */
static int parallel_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > PARALLEL_MAX_WORKERS ? PARALLEL_MAX_WORKERS : (int)n;
}

/* parallel_share() - worker @i's operations of @ops shared by @n */
static long parallel_share(long ops, int n, int i)
{
	return ops / n + (i < ops % n);
}

/* parallel_child() - wait for the start (the pipe closes), run a share */
static void parallel_child(int start_fd, long ops)
{
	char c;

	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	parallel_sink = compute_chain(ops);
	_exit(0);
}

/**
 * case_parallel() - @ops compute operations shared by a process per CPU
 * @ops:	operations in all
 * @s:		result
 *
 * The workers are forked before the clock starts and wait on a pipe that
 * the parent closes to start them all: a fork costs a guest far more than
 * a host, and would otherwise be measured as part of the work.
 *
 * Return: 0, or a negative errno when a worker cannot be started or fails
 */
int case_parallel(long ops, struct sample *s)
{
	int i, n = parallel_workers(), started, status, err = 0, start[2];
	pid_t pid[PARALLEL_MAX_WORKERS];
	uint64_t t0;

	if (pipe(start) < 0)
		return -errno;
	for (started = 0; started < n; started++) {
		pid[started] = fork();
		if (pid[started] < 0) {
			err = -errno;
			break;
		}
		if (pid[started] == 0) {
			close(start[1]);
			parallel_child(start[0], parallel_share(ops, n, started));
		}
	}
	close(start[0]);
	t0 = now_ns();
	close(start[1]);	/* every worker's read() returns 0: go */
	for (i = 0; i < started; i++) {
		if (waitpid(pid[i], &status, 0) < 0)
			err = err ? err : -errno;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			err = err ? err : -ECHILD;
	}
	s->ns_total = now_ns() - t0;
	return err;
}

/**
 * struct parallel_thread - one thread's part of the work
 * @ops:	operations this thread runs
 * @result:	its chain's last value, kept so the loop stays
 */
struct parallel_thread {
	long ops;
	uint64_t result;
};

/* parallel_thread_run() - run one thread's share of the chain */
static void *parallel_thread_run(void *arg)
{
	struct parallel_thread *t = arg;

	t->result = compute_chain(t->ops);
	return NULL;
}

/**
 * case_parallel_threads() - @ops compute operations shared by a thread per
 * CPU, all in this process
 * @ops:	operations in all
 * @s:		result
 *
 * Return: 0, or a negative errno when a thread cannot be started
 */
int case_parallel_threads(long ops, struct sample *s)
{
	struct parallel_thread t[PARALLEL_MAX_WORKERS];
	pthread_t tid[PARALLEL_MAX_WORKERS];
	int i, n = parallel_workers(), started, err = 0;
	uint64_t t0 = now_ns(), sum = 0;

	for (started = 0; started < n; started++) {
		t[started].ops = parallel_share(ops, n, started);
		err = pthread_create(&tid[started], NULL, parallel_thread_run,
				     &t[started]);
		if (err)
			break;
	}
	/*
	 * Each thread writes its own t[i] alone; pthread_join() returns
	 * after the thread ended and orders its writes before this read.
	 */
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		sum ^= t[i].result;
	}
	s->ns_total = now_ns() - t0;
	parallel_sink = sum;
	return err ? -err : 0;
}
