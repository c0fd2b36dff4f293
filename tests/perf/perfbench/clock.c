// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the time base and the statistics of perfbench
 *
 * CLOCK_MONOTONIC: it does not jump with the wall clock, and in a UML guest
 * it is the guest's own clock, so guest figures are in guest time as a guest
 * program would see them.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "perfbench.h"

/**
 * now_ns() - read CLOCK_MONOTONIC in nanoseconds
 *
 * Return: nanoseconds since an arbitrary fixed point
 */
uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * sleep_ns() - sleep for @ns nanoseconds, resuming after signals
 * @ns:		how long
 *
 * The marker mode's pauses must really last: an interrupted nanosleep
 * would shorten the window a tracer relies on.
 */
void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* cmp_u64() - qsort order for uint64_t */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * median_u64() - median of @n values (sorts @v in place)
 * @v:		values
 * @n:		how many, at least 1
 *
 * Medians, never means: one preempted round must not move the figure.
 *
 * Return: the middle value, or the mean of the two middle ones
 */
uint64_t median_u64(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}
