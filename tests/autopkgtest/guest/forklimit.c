// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * forklimit.c - a guest that forks until the host refuses UML a stub process
 *
 * Every guest process has a stub process on the host, and in SECCOMP mode
 * UML keeps a host descriptor per lane of it (its seccomp listener): a
 * guest that forks enough takes the UML process to a host limit (its open
 * files, processes, pid_max, memory).  fork() must then fail in the guest
 * with an error, and nothing worse happen: UML once left the refused mm on
 * the list its SIGCHLD handler walks, and freed it (kernel patch "Take a
 * new mm off mm_list when its stub cannot be started"), and leaked a host
 * mapping per refusal (patch "Unmap the temporary stack of a stub that
 * cannot be started").
 *
 * Usage: forklimit [MAX]   (default 4096)
 *
 * Forks children that wait to be killed until fork() fails or MAX live,
 * tries RETRIES more forks at the limit (each must fail too, or succeed if
 * the limit moved), kills and reaps every child (a SIGCHLD for UML per
 * stub), then forks and reaps AFTER short-lived children one after the
 * other (their mms take the freed ones' memory, and their deaths walk the
 * list again).  Prints FORKLIMIT_OK children=N errno=NAME, else
 * FORKLIMIT_FAIL and why.  Reaching MAX is a failure: the gate's limit was
 * not reached, and the test would prove nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "childwait.h"

/* Forks tried again at the limit: the refusal path, over and over */
#define RETRIES 64
/* Short-lived children forked one by one after the limit */
#define AFTER 256
/* How long a short-lived child may take */
#define CHILD_SECONDS 60

/* spawn_waiter() - a child that waits to be killed; -errno on failure */
static pid_t spawn_waiter(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* kill_all() - kill and reap the @n children in @pids */
static int kill_all(const pid_t *pids, int n)
{
	int i, status;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &status, 0) != pids[i]) {
			printf("FORKLIMIT_FAIL waitpid of child %d: %s\n",
			       pids[i], strerror(errno));
			return 1;
		}
	return 0;
}

/* run_after() - fork, let exit and reap AFTER children one by one */
static int run_after(void)
{
	int i, status;

	for (i = 0; i < AFTER; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			printf("FORKLIMIT_FAIL fork %d after the limit: %s\n",
			       i, strerror(errno));
			return 1;
		}
		if (pid == 0)
			_exit(7);
		if (wait_child_for(pid, &status, CHILD_SECONDS) ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 7) {
			printf("FORKLIMIT_FAIL child %d after the limit did not exit with 7 (status 0x%x)\n",
			       i, status);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 4096;
	int n = 0, err = 0, refused = 0, i;
	pid_t *pids;

	if (max <= 0) {
		printf("FORKLIMIT_FAIL bad MAX '%s' (a number of children)\n",
		       argv[1]);
		return 1;
	}
	pids = calloc(max + RETRIES, sizeof(*pids));
	if (!pids) {
		printf("FORKLIMIT_FAIL no memory for %d pids\n", max);
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	while (n < max) {
		pid_t pid = spawn_waiter();

		if (pid < 0) {
			err = -pid;
			break;
		}
		pids[n++] = pid;
	}
	if (!err) {
		printf("FORKLIMIT_FAIL %d children and no refusal: the host limit was not reached\n",
		       n);
		kill_all(pids, n);
		return 1;
	}
	for (i = 0; i < RETRIES; i++) {
		pid_t pid = spawn_waiter();

		if (pid < 0)
			refused++;
		else
			pids[n++] = pid;
	}
	printf("FORKLIMIT_LIMIT children=%d errno=%s refused_again=%d/%d\n",
	       n, strerrorname_np(err), refused, RETRIES);
	if (kill_all(pids, n) || run_after())
		return 1;
	printf("FORKLIMIT_OK children=%d errno=%s after=%d\n", n,
	       strerrorname_np(err), AFTER);
	return 0;
}
