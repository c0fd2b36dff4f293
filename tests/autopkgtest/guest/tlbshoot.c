// SPDX-License-Identifier: GPL-2.0
/*
 * tlbshoot.c - a page one thread unmaps is gone for its other threads at
 * once, on every CPU
 *
 * Usage: tlbshoot SECONDS
 *
 * A writer thread, pinned to CPU 0, fills the page the mapper publishes
 * with 0x5a, without a syscall, round after round; the mapper, pinned to
 * the last CPU, maps a page, publishes it, lets the writer run, and
 * unmaps it.  After munmap() the writer's next store must fault (its
 * SIGSEGV handler waits for the next page).  A filler process on the
 * mapper's CPU meanwhile takes fresh pages one by one, which must read as
 * zeroes when it checks them all again: the page just freed is the next
 * one its CPU hands out, and a UML kernel that let the writer's stub keep
 * the unmapped page (a stale host mapping, until the stub's next stop)
 * shows the writer's bytes there.
 *
 * Prints TLBSHOOT_OK rounds=N faults=F (F: the writer's stores that
 * faulted after an munmap(), the times the race was run) or
 * TLBSHOOT_FAIL with what was seen; exit status 0 only on success.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define PATTERN	0x5a
#define FILLER_PAGES	512

static long page_size;
static int last_cpu;
static unsigned char *volatile published;
static volatile int stop;
static volatile unsigned long faults;
static sigjmp_buf writer_jump;

/* Run the calling thread on @cpu only */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("TLBSHOOT_FAIL cannot pin to CPU %d\n", cpu);
		exit(1);
	}
}

/* The writer's store hit an unmapped page: as it must after munmap() */
static void on_segv(int sig)
{
	(void)sig;
	faults++;
	siglongjmp(writer_jump, 1);
}

/* Fill whatever page is published, without a syscall, until stopped */
static void *writer(void *arg)
{
	unsigned char *volatile page;
	long i;

	(void)arg;
	pin(0);
	sigsetjmp(writer_jump, 1);
	while (!stop) {
		page = published;
		if (!page)
			continue;
		for (i = 0; i < page_size; i++)
			page[i] = PATTERN;
	}
	return NULL;
}

/*
 * Fresh pages on the mapper's CPU must read as zeroes; exit 1 if not.
 * Pages are taken one by one into a region that is freed only after all
 * were checked again: a CPU hands out the page freed last first, and the
 * filler's own pages must not cover the one the mapper just freed.
 */
static void filler(void)
{
	size_t len = FILLER_PAGES * page_size;
	unsigned char *region;
	long i, n;

	pin(last_cpu);
	for (;;) {
		region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (region == MAP_FAILED)
			_exit(2);
		for (n = 0; n < FILLER_PAGES; n++)
			region[n * page_size] = 1;
		for (i = 0; i < (long)len; i++) {
			if (i % page_size && region[i]) {
				printf("TLBSHOOT_FAIL a fresh page holds 0x%02x at %ld: another process's stub wrote a page it had unmapped\n",
				       region[i], i % page_size);
				fflush(stdout);
				_exit(1);
			}
		}
		munmap(region, len);
	}
}

int main(int argc, char **argv)
{
	struct timespec let_run = { 0, 2000000 };
	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER };
	unsigned long rounds = 0;
	pthread_t thread;
	int status, filler_ended = 0;
	time_t end;
	pid_t pid;
	unsigned char *page;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		printf("TLBSHOOT_FAIL usage: tlbshoot SECONDS\n");
		return 1;
	}
	page_size = sysconf(_SC_PAGESIZE);
	last_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (last_cpu < 1) {
		printf("TLBSHOOT_FAIL needs two CPUs at least\n");
		return 1;
	}
	end = time(NULL) + atoi(argv[1]);

	pid = fork();
	if (!pid)
		filler();
	sigaction(SIGSEGV, &sa, NULL);
	pthread_create(&thread, NULL, writer, NULL);
	pin(last_cpu);

	while (time(NULL) < end) {
		page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED) {
			printf("TLBSHOOT_FAIL mmap failed\n");
			return 1;
		}
		published = page;
		nanosleep(&let_run, NULL);
		munmap(page, page_size);
		published = NULL;
		rounds++;
		/* The filler ends only when it saw the writer's bytes */
		filler_ended = waitpid(pid, &status, WNOHANG) == pid;
		if (filler_ended)
			break;
	}
	stop = 1;
	pthread_join(thread, NULL);
	if (filler_ended || waitpid(pid, &status, WNOHANG) == pid) {
		printf("TLBSHOOT_FAIL the filler ended (status 0x%x) after %lu rounds\n",
		       status, rounds);
		return 1;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("TLBSHOOT_OK rounds=%lu faults=%lu\n", rounds, faults);
	return 0;
}
