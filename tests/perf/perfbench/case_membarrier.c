// SPDX-License-Identifier: GPL-2.0
/*
 * case_membarrier.c - membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) while a
 * thread of the process computes on every other online CPU
 *
 * The asymmetric fence of userspace RCU, garbage collectors and JITs: the
 * caller is answered only when every other running thread of the process
 * executed a full memory barrier.  In an SMP guest in SECCOMP mode those
 * threads run in stubs on other host CPUs, and the guest's kernel must
 * order them (the census counts how: one host membarrier() per call, or a
 * stub stopped and resumed).  With one CPU the call returns at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>

#include "perfbench.h"

/* more spinners than this would measure the scheduler */
#define MEMBARRIER_MAX_SPINNERS	63

/* set to end the spinners; read without a lock, written once */
static volatile int membarrier_stop;

/* the spinners' results, kept so that the compiler cannot drop the loops */
static volatile uint64_t membarrier_sink;

/* membarrier_spin() - compute until told to stop, without a syscall */
static void *membarrier_spin(void *arg)
{
	uint64_t v = 0;

	(void)arg;
	while (!membarrier_stop)
		v ^= compute_chain(64);
	membarrier_sink = v;
	return NULL;
}

/*
 * membarrier_start() - start a spinner on @cpu: kept off the caller's
 * CPU, so that every call has a running thread to order.  Where the CPU
 * is not allowed here, the scheduler places it.
 */
static int membarrier_start(pthread_t *tid, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	err = pthread_create(tid, &attr, membarrier_spin, NULL);
	if (err == EINVAL)
		err = pthread_create(tid, NULL, membarrier_spin, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

/* membarrier_cmd() - the syscall: 0, or a negative errno */
static int membarrier_cmd(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0) ? -errno : 0;
}

/* membarrier_spinners() - one spinner per online CPU but this one's */
static int membarrier_spinners(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	if (n < 0)
		return 0;
	return n > MEMBARRIER_MAX_SPINNERS ? MEMBARRIER_MAX_SPINNERS : (int)n;
}

/**
 * case_membarrier() - @ops private expedited membarrier() calls
 * @ops:	calls
 * @s:		result
 *
 * Return: 0, -ENOSYS or -EINVAL where the kernel has no private expedited
 * membarrier(), or another negative errno
 */
int case_membarrier(long ops, struct sample *s)
{
	pthread_t tid[MEMBARRIER_MAX_SPINNERS];
	int i, n = membarrier_spinners(), started, err;
	uint64_t t0;
	long op;

	err = membarrier_cmd(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
	if (err)
		return err;
	membarrier_stop = 0;
	/* the caller runs on the CPU the scheduler gave it, spinners elsewhere */
	for (started = 0; started < n; started++) {
		err = membarrier_start(&tid[started],
				       (sched_getcpu() + 1 + started) % (n + 1));
		if (err)
			break;
	}
	t0 = now_ns();
	for (op = 0; op < ops && !err; op++)
		err = membarrier_cmd(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	s->ns_total = now_ns() - t0;
	membarrier_stop = 1;
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return err;
}
