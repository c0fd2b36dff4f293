// SPDX-License-Identifier: GPL-2.0
/*
 * case_compute.c - pure userspace arithmetic: the validator
 *
 * No kernel entry, no memory beyond registers: the same instruction stream
 * must take the same time natively, under proot and in any guest, because
 * guest code runs as real instructions on the real CPU.  If it does not,
 * the machine moved during the run (frequency, a neighbour's load) and the
 * runner throws the table away.
 *
 * PERFBENCH_PLANT_COMPUTE_PCT=N makes every operation N% longer: a planted
 * drift, to show once that the runner refuses such a table.
 */
#include <stdlib.h>

#include "perfbench.h"

/* iterations of the dependency chain per operation (~1 us natively) */
#define COMPUTE_ITERS	1024

/* the result, kept so that the compiler cannot drop the loop */
static volatile uint64_t compute_sink;

/* compute_iters() - steps per operation, with the planted drift if any */
static int compute_iters(void)
{
	const char *plant = getenv("PERFBENCH_PLANT_COMPUTE_PCT");

	if (!plant)
		return COMPUTE_ITERS;
	return COMPUTE_ITERS + COMPUTE_ITERS * atoi(plant) / 100;
}

/**
 * case_compute() - @ops times COMPUTE_ITERS steps of a 64-bit
 * multiply/xorshift chain
 * @ops:	operations
 * @s:		result
 *
 * Each step depends on the one before (no vectorisation, no closed form),
 * so the time is the multiplier's latency times the steps on any core.
 *
 * Return: 0
 */
int case_compute(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();

	compute_sink = compute_chain(ops);
	s->ns_total = now_ns() - t0;
	return 0;
}

/**
 * compute_chain() - the validator's arithmetic, shared with the parallel
 * case so that both run the same instruction stream
 * @ops:	operations of COMPUTE_ITERS steps (plus the planted drift)
 *
 * Return: the chain's last value, for the caller to keep
 */
uint64_t compute_chain(long ops)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)ops;
	int j, iters = compute_iters();
	long i;

	for (i = 0; i < ops; i++) {
		for (j = 0; j < iters; j++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			x ^= x >> 29;
		}
		/* an opaque barrier per op: the chain stays a chain */
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
