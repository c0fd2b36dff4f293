// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * host.c - what the host offers: page size, kernels, images, checks
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "host.h"
#include "log.h"
#include "net.h"
#include "sdnotify.h"
#include "util.h"

/**
 * host_default_flavour() - the flavour matching the host page size
 *
 * Return: "4k" or "16k", NULL if no flavour can run here (64K pages)
 */
const char *host_default_flavour(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps == 4096)
		return "4k";
	if (ps == 16384)
		return "16k";
	return NULL;
}

/**
 * flavour_page_size() - guest page size of a flavour
 * @flavour:	"4k" or "16k"
 *
 * Return: page size in bytes, 0 if unknown
 */
int flavour_page_size(const char *flavour)
{
	if (!strcmp(flavour, "4k"))
		return 4096;
	if (!strcmp(flavour, "16k"))
		return 16384;
	return 0;
}

/**
 * flavour_check() - refuse a flavour whose pages are smaller than the host's
 * @name:	instance name, for the message
 * @flavour:	"4k" or "16k"
 *
 * UML maps guest pages with host mmap(), which cannot map a 4K page on a
 * 16K-page host: the port measured a silent hang, so refuse early.
 *
 * Return: 0 if usable, -EINVAL otherwise (message printed)
 */
int flavour_check(const char *name, const char *flavour)
{
	long host = sysconf(_SC_PAGESIZE);
	int guest = flavour_page_size(flavour);

	if (!guest) {
		err("%s: unknown flavour '%s': use 4k or 16k", name, flavour);
		return -EINVAL;
	}
	if (guest < host) {
		err("%s: flavour %s (%d-byte pages) cannot run on this host with %ld-byte pages: use --flavour 16k or set 'flavour = 16k'",
		    name, flavour, guest, host);
		return -EINVAL;
	}
	return 0;
}

/**
 * kernel_path() - which UML kernel an instance boots
 * @c:		configuration
 * @buf:	output, PATH_LEN bytes
 *
 * Order: $UMARM_KERNEL, 'kernel =' of the configuration, then the packaged
 * KERNEL_DIR/FLAVOUR/linux.
 *
 * Return: 0 on success, -ENAMETOOLONG
 */
int kernel_path(const struct conf *c, char *buf)
{
	const char *env = getenv("UMARM_KERNEL");
	const char *fl = *c->flavour ? c->flavour : host_default_flavour();

	if (env && *env)
		return pathf(buf, "%s", env);
	if (*c->kernel)
		return pathf(buf, "%s", c->kernel);
	return pathf(buf, "%s/%s/linux", KERNEL_DIR, fl ? fl : "16k");
}

/**
 * kernel_check() - find the kernel and make sure it can be executed
 * @name:	instance name, for messages
 * @c:		configuration
 * @buf:	set to the kernel path, PATH_LEN bytes
 *
 * Return: 0 if usable, negative errno otherwise (message printed)
 */
int kernel_check(const char *name, const struct conf *c, char *buf)
{
	if (kernel_path(c, buf)) {
		err("%s: kernel path too long", name);
		return -ENAMETOOLONG;
	}
	if (access(buf, X_OK)) {
		int e = errno;

		err("%s: UML kernel %s: %s; install linux-uml-arm64-%s, or set 'kernel = PATH' in the configuration or UMARM_KERNEL",
		    name, buf, strerror(e), *c->flavour ? c->flavour : "4k");
		return -e;
	}
	return 0;
}

/**
 * tmpdir_exec_ok() - can UML map its memory file with PROT_EXEC?
 * @dir:	directory UML will use (its choose_tempdir() logic)
 *
 * Return: 0 if yes, negative errno otherwise
 */
static int tmpdir_exec_ok(const char *dir)
{
	void *p;
	int fd, rc = 0;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, 4096)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE,
		 fd, 0);
	if (p == MAP_FAILED)
		rc = -errno;
	else
		munmap(p, 4096);
	close(fd);
	return rc;
}

/**
 * uml_tmpdir() - the directory UML's choose_tempdir() would pick
 *
 * arch/um/os-Linux/mem.c: $TMPDIR, $TMP or $TEMP if set, else /dev/shm if
 * it is tmpfs, else /tmp.
 *
 * Return: directory path (static or from the environment)
 */
static const char *uml_tmpdir(void)
{
	static const char *vars[] = { "TMPDIR", "TMP", "TEMP" };
	struct statfs sf;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	/* TMPFS_MAGIC */
	if (!statfs("/dev/shm", &sf) && sf.f_type == 0x01021994)
		return "/dev/shm";
	return "/tmp";
}

/**
 * ptrace_ok() - can we trace a child? (UML's ptrace mode needs it)
 *
 * Return: 0 if a forked child could PTRACE_TRACEME and be continued
 */
static int ptrace_ok(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status))
		return -EPERM;
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EPERM;
}

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
static int seccomp_filter_ok(void)
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

/* What a failed seccomp_filter_ok() means */
#define NO_SECCOMP_FILTER						\
	": the UML kernel cannot run on this host in any mode, as its stubs install a filter (host kernel without CONFIG_SECCOMP_FILTER, or a container policy refusing seccomp())"

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
static const char *seccomp_mode_ok(void)
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

/**
 * host_check() - report whether this host can run UML instances
 * @verbose:	print every check, not only failures
 *
 * Return: number of failed checks
 */
int host_check(int verbose)
{
	const char *fl = host_default_flavour(), *td = uml_tmpdir(), *why;
	struct conf c;
	char k[PATH_LEN], v[96];
	int fails = 0, rc;

#define REPORT(ok, what, fmt, ...) do {					\
		if (!(ok))						\
			fails++;					\
		if (!(ok) || verbose)					\
			printf("%-5s %-22s " fmt "\n", (ok) ? "ok" : "FAIL",\
			       what, ##__VA_ARGS__);			\
	} while (0)

	REPORT(fl, "host page size", "%ld bytes%s", sysconf(_SC_PAGESIZE),
	       fl ? "" : ": no flavour runs on this host (4k/16k only)");
	if (fl)
		REPORT(1, "default flavour", "%s", fl);

	conf_defaults(&c);
	if (fl)
		strcpy(c.flavour, fl);
	kernel_path(&c, k);
	rc = access(k, X_OK) ? -errno : 0;
	REPORT(!rc, "kernel", "%s%s%s", k, rc ? ": " : "",
	       rc ? strerror(-rc) : "");

	rc = ptrace_ok();
	REPORT(!rc, "ptrace", "%s", rc ? "cannot trace children (container policy or yama ptrace_scope=3?)" : "children can be traced");
	rc = seccomp_filter_ok();
	REPORT(!rc, "seccomp", "filters %s%s%s", rc ? "unavailable: " : "available",
	       rc ? strerror(-rc) : " (every mode's stubs install one)",
	       rc ? NO_SECCOMP_FILTER : "");
	/* optional: seccomp=off, the default, does without it */
	why = seccomp_mode_ok();
	if (why)
		printf("%-5s %-22s SECCOMP mode unavailable (needs Linux 5.9 user notifications; %s): seccomp=auto runs ptrace mode, seccomp=on refuses to boot\n",
		       "warn", "seccomp mode", why);
	else if (verbose)
		printf("%-5s %-22s %s\n", "ok", "seccomp mode",
		       "user notifications available (seccomp=on|auto can run SECCOMP mode)");

	rc = tmpdir_exec_ok(td);
	REPORT(!rc, "exec-able TMPDIR", "%s%s%s", td, rc ? ": " : "",
	       rc ? (rc == -EPERM ? "mounted noexec: set TMPDIR to an exec-able directory"
			       : strerror(-rc)) : "");

	rc = access(passt_bin(), X_OK) ? -errno : 0;
	if (rc) {
		/* optional: only network = passt needs it */
		printf("%-5s %-22s %s\n", "warn", "passt",
		       "not installed: network = passt will not work (apt install passt)");
	} else if (verbose) {
		int vn = kernel_virtio_net(k);

		printf("%-5s %-22s %s %s\n", "ok", "passt", passt_bin(),
		       !passt_has_vhost_user() ?
		       "(no --vhost-user: umarmctl relays frames to the vector driver; no 'net add')" :
		       vn && vn != 'y' ?
		       "(vhost-user, but the kernel's virtio_net is a module: 'auto' relays to the vector driver)" :
		       "(vhost-user: the guest uses virtio_net)");
	}
	/* Debian's passt profile keeps passt out of our runtime directories */
	if (!rc && !strcmp(passt_bin(), PASST_BIN)) {
		int aa = passt_apparmor();

		if (aa < 0)
			printf("%-5s %-22s passt's own profile confines it, and profile umarm-passt is %s: passt cannot create instances' sockets; as root: apparmor_parser -r /etc/apparmor.d/umarm-passt\n",
			       "warn", "apparmor",
			       aa == -ENOENT ? "not loaded" : strerror(-aa));
		else if (verbose)
			printf("%-5s %-22s %s\n", aa ? "ok" : "info", "apparmor",
			       aa ? "passt runs under profile umarm-passt" :
			       apparmor_enabled() ? "enabled, no profile for passt loaded: passt runs unconfined" :
			       "not enabled");
	}
	snprintf(v, sizeof(v), "%s", under_systemd() ?
		 "systemd: start/stop go through umarm@NAME.service" :
		 "none: umarmctl supervises instances itself");
	if (verbose)
		printf("%-5s %-22s %s\n", "info", "service manager", v);
#undef REPORT
	return fails;
}
