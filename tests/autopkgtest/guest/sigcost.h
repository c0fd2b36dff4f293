/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sigcost.h - what one handled signal costs on this machine, and how much
 * to stretch a test's timer periods so that their signals alone cannot
 * take more than a given share of it
 *
 * Under an emulator (the arm64 test host is TCG) one signal costs a
 * millisecond or more in a UML guest, more in ptrace mode than in SECCOMP
 * mode: a timer every millisecond or two then asks for more than the
 * machine has, and a test that times out or "livelocks" there says nothing
 * about the kernel.  Natively a signal costs tens of microseconds and the
 * stretch is 1, so the tests keep their periods where they can be met.
 */
#ifndef SIGCOST_H
#define SIGCOST_H

#include <signal.h>
#include <time.h>

/* sigcost_now() - the monotonic clock in seconds */
static inline double sigcost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* sigcost_probe() - the empty handler whose delivery sigcost_raise() times */
static inline void sigcost_probe(int sig)
{
	(void)sig;
}

/*
 * sigcost_raise() - seconds per raise()d and handled SIGUSR1, the best of
 * three runs of 100 (the first run also pays for translating the code
 * under an emulator); SIGUSR1's action is left at the probe
 */
static inline double sigcost_raise(void)
{
	struct sigaction sa = { .sa_handler = sigcost_probe };
	double best = 1e9, t;
	int i, j;

	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < 3; i++) {
		t = sigcost_now();
		for (j = 0; j < 100; j++)
			raise(SIGUSR1);
		t = (sigcost_now() - t) / 100;
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * sigcost_stretch() - the factor (1..@max_stretch) to multiply timer
 * periods by so that @per_us signals per microsecond, each costing
 * @cost_s seconds, take at most @max_load of the machine's time
 */
static inline unsigned int sigcost_stretch(double cost_s, double per_us,
					   double max_load,
					   unsigned int max_stretch)
{
	double load = cost_s * 1e6 * per_us;
	unsigned int stretch = 1;

	if (load > max_load)
		stretch = (unsigned int)(load / max_load) + 1;
	return stretch > max_stretch ? max_stretch : stretch;
}

#endif /* SIGCOST_H */
