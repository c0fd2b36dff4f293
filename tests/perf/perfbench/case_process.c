// SPDX-License-Identifier: GPL-2.0
/*
 * case_process.c - cases that create or switch between tasks: forkexec,
 * pipe (a round trip between two processes), thread (create + join)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfbench.h"

/**
 * case_forkexec() - fork, execve of this program as EXEC_CHILD_ARG (which
 * exits at once) and wait, @ops times
 * @ops:	operations
 * @s:		result
 *
 * A static binary: the exec costs the kernel's exec and nothing of a
 * dynamic loader, the same natively, under proot and in a guest.
 *
 * Return: 0, or -errno if a fork fails or a child does not exit with 0
 */
int case_forkexec(long ops, struct sample *s)
{
	char *argv[] = { (char *)self_path, EXEC_CHILD_ARG, NULL };
	char *envp[] = { NULL };
	uint64_t t0 = now_ns();
	int status;
	pid_t pid;
	long i;

	for (i = 0; i < ops; i++) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			execve(self_path, argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			return -errno;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return -ENOEXEC;
	}
	s->ns_total = now_ns() - t0;
	return 0;
}

/**
 * echo_bytes() - the pipe case's child: send back every byte it reads
 * @in:		read end
 * @out:	write end
 */
static void echo_bytes(int in, int out)
{
	char c;

	while (read(in, &c, 1) == 1)
		if (write(out, &c, 1) != 1)
			break;
	_exit(0);
}

/**
 * case_pipe() - one byte to a child process and back, @ops times
 * @ops:	round trips
 * @s:		result
 *
 * Two wake-ups of another process per operation: in a guest that is the
 * scheduler and two guest context switches, which is what a guest's
 * daemons talking over sockets pay.
 *
 * Return: 0, or -errno if the pipes or the child cannot be made or a
 * round trip fails
 */
int case_pipe(long ops, struct sample *s)
{
	int to_child[2], to_parent[2], err = 0;
	uint64_t t0;
	char c = 'x';
	pid_t pid;
	long i;

	if (pipe(to_child) || pipe(to_parent))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		echo_bytes(to_child[0], to_parent[1]);
	}
	close(to_child[0]);
	close(to_parent[1]);
	t0 = now_ns();
	for (i = 0; i < ops && !err; i++)
		if (write(to_child[1], &c, 1) != 1 ||
		    read(to_parent[0], &c, 1) != 1)
			err = -EPIPE;
	s->ns_total = now_ns() - t0;
	close(to_child[1]);
	close(to_parent[0]);
	waitpid(pid, NULL, 0);
	return err;
}

/* thread_body() - the thread case's thread: returns at once */
static void *thread_body(void *arg)
{
	return arg;
}

/**
 * case_thread() - pthread_create and pthread_join, @ops times
 * @ops:	operations
 * @s:		result
 *
 * clone with a new stack (mmap), the exit and the futex wake of the join.
 *
 * Return: 0, or -errno (as pthread returns it) if a thread cannot be made
 */
int case_thread(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();
	pthread_t t;
	long i;
	int err;

	for (i = 0; i < ops; i++) {
		err = pthread_create(&t, NULL, thread_body, NULL);
		if (err)
			return -err;
		pthread_join(t, NULL);
	}
	s->ns_total = now_ns() - t0;
	return 0;
}
