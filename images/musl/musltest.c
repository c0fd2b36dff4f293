// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * musltest.c - check that musl's threads, TLS and signals work in the guest
 *
 * musl's startup code sets the thread pointer itself (on arm64 it writes
 * TPIDR_EL0 and asserts reading it back gives the same value), its
 * pthread_create() hands the new thread's pointer to clone(CLONE_SETTLS),
 * and its signal handling relies on the thread pointer being preserved
 * across signal delivery and sigreturn. A UML port that gets any of these
 * wrong shows up here as a crash, a hang, or a wrong value.
 *
 * Prints "UMARM_MUSL_OK threads=N" and exits 0 when everything checks out,
 * otherwise one "UMARM_MUSL_FAIL <what>" line per failure and exits 1.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))

#define NR_THREADS	4
#define TLS_INIT	0x5eed
#define SIGNALS_EACH	3

static __thread long tls_value = TLS_INIT;
/* volatile sig_atomic_t is what C lets a signal handler write. */
static __thread volatile sig_atomic_t tls_signals;
static volatile sig_atomic_t handler_tls_bad;
static int failures;

struct worker {
	pthread_t thread;
	long id;
	long seen_initial;	/* tls_value as the thread found it */
	long seen_final;	/* tls_value after the signals */
	int signals;		/* signals its own handler counted */
	void *tls_addr;		/* &tls_value in that thread */
};

/**
 * fail() - report one failed check
 * @fmt:	printf format describing the check, without newline
 */
static void __printf(1, 2) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("UMARM_MUSL_FAIL ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	failures++;
}

/**
 * on_usr1() - SIGUSR1 handler that checks the thread pointer is intact
 * @sig:	signal number
 * @si:		signal information
 * @uc:		interrupted context
 *
 * Runs on the thread the signal was sent to; the TLS variable it reads must
 * be that thread's. It only touches TLS and sig_atomic_t flags.
 */
static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (sig != SIGUSR1 || tls_value < 0)
		handler_tls_bad = 1;
	tls_signals++;
}

/**
 * worker_main() - thread body: check and change TLS, take signals
 * @arg:	the thread's struct worker
 *
 * Return: @arg.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int i;

	w->seen_initial = tls_value;
	w->tls_addr = (void *)&tls_value;
	tls_value = w->id * 1000;
	for (i = 0; i < SIGNALS_EACH; i++)
		pthread_kill(pthread_self(), SIGUSR1);
	w->signals = tls_signals;
	w->seen_final = tls_value;
	return w;
}

int main(void)
{
	struct worker w[NR_THREADS];
	struct sigaction sa;
	void *ret;
	int i, err;

	setvbuf(stdout, NULL, _IOLBF, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		fail("sigaction");

	if (tls_value != TLS_INIT)
		fail("initial thread: TLS initial value");
	raise(SIGUSR1);
	if (tls_signals != 1)
		fail("initial thread: signal not handled");

	for (i = 0; i < NR_THREADS; i++) {
		w[i].id = i + 1;
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err) {
			fail("pthread_create: %s", strerror(err));
			return 1;
		}
	}
	for (i = 0; i < NR_THREADS; i++) {
		err = pthread_join(w[i].thread, &ret);
		if (err || ret != &w[i]) {
			fail("pthread_join");
			continue;
		}
		if (w[i].seen_initial != TLS_INIT)
			fail("thread %d: TLS initial %ld", i + 1,
			     w[i].seen_initial);
		if (w[i].seen_final != w[i].id * 1000)
			fail("thread %d: TLS final %ld", i + 1,
			     w[i].seen_final);
		if (w[i].signals != SIGNALS_EACH)
			fail("thread %d: %d signals, not %d", i + 1,
			     w[i].signals, SIGNALS_EACH);
		if (w[i].tls_addr == (void *)&tls_value)
			fail("thread %d: shares the initial thread's TLS", i + 1);
	}
	if (handler_tls_bad)
		fail("signal handler saw a bad TLS value");
	if (tls_value != TLS_INIT || tls_signals != 1)
		fail("initial thread: TLS changed by other threads");

	if (failures)
		return 1;
	printf("UMARM_MUSL_OK threads=%d\n", NR_THREADS);
	return 0;
}
