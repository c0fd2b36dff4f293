// SPDX-License-Identifier: GPL-2.0
/*
 * case_parallel.c - the validator's arithmetic in a thread per online CPU
 *
 * What an SMP guest is for: CPU-bound work spread over its CPUs.  OPS
 * operations of compute's chain are shared out among one thread per
 * online CPU, so the time per operation is compute's divided by the CPUs
 * the threads really got; compute over parallel in one condition is the
 * speed-up, and parallel across guests booted with ncpus=1, 2, 4 shows
 * what each added vCPU gives.  Thread creation and join are inside the
 * measured time: a few of them against tens of milliseconds of work.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "perfbench.h"

/* more threads than this would measure the scheduler, not the CPUs */
#define PARALLEL_MAX_THREADS	64

/**
 * struct parallel_share - one thread's part of the work
 * @ops:	operations this thread runs
 * @result:	its chain's last value, kept so the loop stays
 */
struct parallel_share {
	long ops;
	uint64_t result;
};

/* the results, kept so that the compiler cannot drop the loops */
static volatile uint64_t parallel_sink;

/* parallel_worker() - run one thread's share of the chain */
static void *parallel_worker(void *arg)
{
	struct parallel_share *share = arg;

	share->result = compute_chain(share->ops);
	return NULL;
}

/* parallel_threads() - one thread per online CPU, within the cap */
static int parallel_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (int)n;
}

/**
 * case_parallel() - @ops compute operations shared by a thread per CPU
 * @ops:	operations in all
 * @s:		result
 *
 * Return: 0, or a negative errno when a thread cannot be started
 */
int case_parallel(long ops, struct sample *s)
{
	struct parallel_share share[PARALLEL_MAX_THREADS];
	pthread_t tid[PARALLEL_MAX_THREADS];
	int i, n = parallel_threads(), started, err = 0;
	uint64_t t0 = now_ns(), sum = 0;

	for (started = 0; started < n; started++) {
		share[started].ops = ops / n + (started < ops % n);
		err = pthread_create(&tid[started], NULL, parallel_worker,
				     &share[started]);
		if (err)
			break;
	}
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		sum ^= share[i].result;
	}
	s->ns_total = now_ns() - t0;
	parallel_sink = sum;
	return err ? -err : 0;
}
