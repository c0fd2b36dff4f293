// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - pthreads, futexes, thread-directed signals and TLS in a guest
 *
 * Pairs of threads ping-pong a counter through a mutex and two condition
 * variables (futex waits and wakes), every thread keeps a __thread counter
 * that must match its own work, and the main thread sends SIGUSR1 to each
 * worker with pthread_kill() while they run.  Prints THREADS_OK or
 * THREADS_FAIL with the reason; exit status 0 only on success.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAIRS	4
#define ROUNDS	2000

static __thread unsigned long tls_count;
static __thread int tls_signals;

struct pair {
	pthread_mutex_t lock;
	pthread_cond_t cond[2];
	unsigned long turn;
	int failed;
};

struct worker {
	pthread_t thread;
	struct pair *pair;
	int side;
	int signals;
	unsigned long count;
};

/**
 * on_usr1() - count thread-directed signals in thread-local storage
 * @sig:	signal number
 */
static void on_usr1(int sig)
{
	(void)sig;
	tls_signals++;
}

/**
 * ping() - take turns with the other side of the pair for ROUNDS rounds
 * @arg:	struct worker
 *
 * Return: NULL
 */
static void *ping(void *arg)
{
	struct worker *w = arg;
	struct pair *p = w->pair;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&p->lock);
		while ((p->turn & 1) != (unsigned long)w->side)
			pthread_cond_wait(&p->cond[w->side], &p->lock);
		p->turn++;
		tls_count++;
		pthread_cond_signal(&p->cond[!w->side]);
		pthread_mutex_unlock(&p->lock);
	}
	w->count = tls_count;
	w->signals = tls_signals;
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	struct pair pairs[PAIRS];
	struct worker w[PAIRS * 2];
	int i, k, sent = 0, got = 0;

	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < PAIRS; i++) {
		memset(&pairs[i], 0, sizeof(pairs[i]));
		pthread_mutex_init(&pairs[i].lock, NULL);
		pthread_cond_init(&pairs[i].cond[0], NULL);
		pthread_cond_init(&pairs[i].cond[1], NULL);
	}
	for (i = 0; i < PAIRS * 2; i++) {
		w[i] = (struct worker){ .pair = &pairs[i / 2], .side = i % 2 };
		if (pthread_create(&w[i].thread, NULL, ping, &w[i])) {
			printf("THREADS_FAIL pthread_create\n");
			return 1;
		}
	}
	for (k = 0; k < 20; k++)
		for (i = 0; i < PAIRS * 2; i++)
			if (!pthread_kill(w[i].thread, SIGUSR1))
				sent++;
	for (i = 0; i < PAIRS * 2; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].count != ROUNDS) {
			printf("THREADS_FAIL thread=%d tls_count=%lu want=%d\n",
			       i, w[i].count, ROUNDS);
			return 1;
		}
		got += w[i].signals;
	}
	for (i = 0; i < PAIRS; i++)
		if (pairs[i].turn != 2 * ROUNDS) {
			printf("THREADS_FAIL pair=%d turns=%lu\n", i, pairs[i].turn);
			return 1;
		}
	/* A signal sent to a thread that already exited is not counted. */
	if (got > sent || got == 0) {
		printf("THREADS_FAIL signals sent=%d received=%d\n", sent, got);
		return 1;
	}
	printf("THREADS_OK threads=%d rounds=%d signals=%d/%d\n",
	       PAIRS * 2, ROUNDS, got, sent);
	return 0;
}
