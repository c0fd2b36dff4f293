/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * childwait.h - wait for a child that may never end on its own
 *
 * The isolation and limit tests run what they provoke in a child: a child
 * the kernel should kill may instead spin in the guest for good (a fault
 * that never ends, a frame that blocks every signal), and the parent must
 * say so rather than hang with it.
 */
#ifndef CHILDWAIT_H
#define CHILDWAIT_H

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

/*
 * wait_child_for() - wait up to @seconds for child @pid, then kill it
 *
 * Return: 0 with *status filled in when it ended, 1 when it still ran
 * (killed, and reaped), -1 when waitpid() failed
 */
static inline int wait_child_for(pid_t pid, int *status, int seconds)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < seconds * 10; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return 1;
}

#endif
