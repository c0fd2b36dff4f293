// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * hostseccomp.c - what the UML kernel's stubs need of the host's seccomp:
 * filters in every mode, user notifications in SECCOMP mode
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "hostseccomp.h"
#include "util.h"

/**
 * seccomp_filter_ok() - can an unprivileged process install a seccomp filter?
 *
 * Every stub of the UML kernel, ptrace mode's too, sets PR_SET_NO_NEW_PRIVS
 * (Linux 3.5) and installs a filter with seccomp() (3.17) returning
 * SECCOMP_RET_KILL_PROCESS (4.14) or ALLOW, and exits if that fails: without
 * filters no mode runs.  Installs a filter that allows everything in a child.
 *
 * Return: 0 if it could, negative errno of the failure otherwise
 */
int seccomp_filter_ok(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(errno);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -EPERM;
	return -WEXITSTATUS(status);
}

/* The descriptor the SECCOMP-mode probe installs in its child, as the UML
 * kernel installs the memory file in a stub (SECCOMP_ADDFD_FLAG_SETFD)
 */
#define NOTIFY_PROBE_FD		100

/* How long the probe waits for its child's notification */
#define NOTIFY_PROBE_TIMEOUT_MS	5000

/* Why the SECCOMP-mode probe's child exited, by exit status */
static const char *const notify_child_fail[] = {
	[1] = "PR_SET_NO_NEW_PRIVS failed",
	[2] = "seccomp() refused SECCOMP_FILTER_FLAG_NEW_LISTENER (Linux 5.0)",
	[3] = "the listener could not be passed on",
	[4] = "the notified getppid() did not run (SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5)",
	[5] = "the descriptor added with SECCOMP_ADDFD_FLAG_SETFD is missing (Linux 5.9)",
	[6] = "close_range() failed (Linux 5.9)",
};

/**
 * send_fd() - pass a descriptor over a unix socket
 * @sock:	connected unix socket
 * @fd:		descriptor to pass (SCM_RIGHTS)
 *
 * Return: 0 on success, -1 with errno set
 */
static int send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctrl;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/**
 * recv_fd() - receive a descriptor send_fd() passed
 * @sock:	connected unix socket
 *
 * Return: the descriptor (close-on-exec), -1 on end-of-file, error or none
 */
static int recv_fd(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctrl;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/**
 * notify_probe_child() - the SECCOMP-mode probe's child: getppid() notified
 * @sock:	socket to pass the listener to the parent over
 * @parent:	the parent's pid, what getppid() must return
 *
 * Does what a SECCOMP-mode stub asks of the host: a filter whose listener
 * the UML kernel holds, a syscall it lets run (CONTINUE) after installing a
 * descriptor at a fixed number (ADDFD), and close_range().  Never returns;
 * exits 0 only if all of that worked, else an index of notify_child_fail.
 */
static void notify_probe_child(int sock, pid_t parent)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};
	int listener;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(1);
	listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			   SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		_exit(2);
	if (send_fd(sock, listener))
		_exit(3);
	close(listener);
	if (syscall(SYS_getppid) != parent)
		_exit(4);
	if (fcntl(NOTIFY_PROBE_FD, F_GETFD) < 0)
		_exit(5);
	if (syscall(SYS_close_range, NOTIFY_PROBE_FD, NOTIFY_PROBE_FD, 0))
		_exit(6);
	_exit(0);
}

/**
 * notify_sizes_ok() - are the host's notification structures ours?
 *
 * NOTIF_RECV and NOTIF_SEND copy the host's sizes: larger ones than this
 * build knows would overrun ours.
 *
 * Return: 1 if the host's are no larger, 0 otherwise
 */
static int notify_sizes_ok(void)
{
	struct seccomp_notif_sizes sizes;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes))
		return 0;
	return sizes.seccomp_notif <= sizeof(struct seccomp_notif) &&
	       sizes.seccomp_notif_resp <= sizeof(struct seccomp_notif_resp);
}

/**
 * notify_probe_answer() - the probe parent's side: answer the notification
 * @listener:	the child's listener
 * @srcfd:	descriptor to install in the child at NOTIFY_PROBE_FD
 *
 * Waits up to 5 s for the child's getppid(), installs @srcfd in it with
 * ADDFD and SETFD (Linux 5.9), and lets the syscall run (CONTINUE, 5.5).
 *
 * Return: NULL if the host did all that, else what it did not do
 */
static const char *notify_probe_answer(int listener, int srcfd)
{
	struct seccomp_notif notif;
	struct seccomp_notif_addfd addfd = {
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = srcfd,
		.newfd = NOTIFY_PROBE_FD,
	};
	struct seccomp_notif_resp resp = {
		.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
	};
	struct pollfd pfd = { .fd = listener, .events = POLLIN };

	if (!notify_sizes_ok())
		return "SECCOMP_GET_NOTIF_SIZES failed or gave larger structures than umarmctl knows";
	if (poll(&pfd, 1, NOTIFY_PROBE_TIMEOUT_MS) != 1 || !(pfd.revents & POLLIN))
		return "no notification came within 5 s";
	memset(&notif, 0, sizeof(notif));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &notif))
		return "SECCOMP_IOCTL_NOTIF_RECV failed";
	addfd.id = notif.id;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) != NOTIFY_PROBE_FD)
		return "SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SETFD failed (Linux 5.9)";
	resp.id = notif.id;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp))
		return "SECCOMP_USER_NOTIF_FLAG_CONTINUE refused (Linux 5.5)";
	return NULL;
}

/**
 * seccomp_mode_ok() - can the UML kernel run its SECCOMP mode here?
 *
 * SECCOMP mode (seccomp=on|auto) has the kernel vet its stubs through user
 * notifications; the kernel's boot probe (stub_notify_works()) does what
 * this does and falls back to ptrace mode, or refuses seccomp=on.
 *
 * Return: NULL if it can, else why not
 */
const char *seccomp_mode_ok(void)
{
	const char *why;
	int sock[2], listener, status = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock))
		return "socketpair() failed";
	pid = fork();
	if (!pid)
		notify_probe_child(sock[1], getppid());
	close(sock[1]);
	if (pid < 0) {
		close(sock[0]);
		return "fork() failed";
	}
	listener = recv_fd(sock[0]);
	why = listener < 0 ? "no listener came" :
	      notify_probe_answer(listener, sock[0]);
	if (why)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (listener >= 0)
		close(listener);
	close(sock[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) &&
	    WEXITSTATUS(status) < ARRAY_SIZE(notify_child_fail))
		return notify_child_fail[WEXITSTATUS(status)];
	if (!why && !(WIFEXITED(status) && !WEXITSTATUS(status)))
		return "the probe's child died";
	return why;
}
