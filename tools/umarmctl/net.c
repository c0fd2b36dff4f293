// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * net.c - passt networking: vhost-user, or the frame relay
 *
 * Two ways to connect a UML guest to passt (measured in ecosystem.md, B2):
 *
 * - vhost-user: passt --vhost-user -s SOCK, and virtio_uml.device=SOCK:1
 *   on the kernel command line (guest driver virtio_net).  No copies in
 *   umarmctl, and it can be hot-plugged through mconsole.  passt gained
 *   --vhost-user in 2024 (Debian trixie); bookworm's passt lacks it.
 *
 * - relay: UML's vector driver with transport=fd wants a datagram socket
 *   carrying bare Ethernet frames, while passt --fd speaks the qemu socket
 *   protocol (a stream of 32-bit big-endian length + frame).  The
 *   supervisor sits in between with a SOCK_SEQPACKET pair towards UML and
 *   a SOCK_STREAM pair towards passt, adding and stripping the length.
 *   When a side is full a frame is dropped, as a NIC would.
 *
 * AppArmor: passt runs under umarmctl's own profile when it can
 * (helpers.c says why and how).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "child.h"
#include "helpers.h"
#include "host.h"
#include "net.h"
#include "log.h"
#include "util.h"

/* vhost-user socket: wait this long for passt to create it */
#define PASST_SOCK_WAIT_MS	5000
/* MTU announced to the guest in relay mode: UML's vector driver default */
#define RELAY_MTU		"1500"
/* passt gets this long to exit after SIGTERM, then SIGKILL */
#define PASST_STOP_MS		1000

/**
 * port_args() - add passt -t/-u options for forwards
 * @ports:	forwards
 * @nports:	how many, at most CONF_MAX_PORTS
 * @argv:	argument vector to extend
 * @argc:	its length, updated
 * @store:	storage for the option values
 */
static void port_args(const struct conf_port *ports, int nports, char **argv,
		      int *argc, char store[][96])
{
	int i;

	for (i = 0; i < nports; i++) {
		const struct conf_port *p = &ports[i];

		argv[(*argc)++] = p->udp ? "-u" : "-t";
		if (*p->addr)
			snprintf(store[i], 96, "%s/%u:%u", p->addr, p->host,
				 p->guest);
		else
			snprintf(store[i], 96, "%u:%u", p->host, p->guest);
		argv[(*argc)++] = store[i];
	}
}

/**
 * spawn_passt() - start passt in the foreground as our child
 * @n:		network state, @passt set
 * @in:		instance, for the log file
 * @argv:	passt command line
 * @keep_fd:	descriptor passt must inherit, or -1
 *
 * Return: 0 on success, negative errno on failure
 */
static int spawn_passt(struct net *n, const struct inst *in, char **argv,
		       int keep_fd)
{
	pid_t self = getpid(), pid;
	char log[PATH_LEN];

	inst_path(in, log, 0, PASST_LOG);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			      0600);

		/* our blocked SIGTERM would make net_stop() wait for
		 * PASST_STOP_MS and SIGKILL; PDEATHSIG may not survive
		 * passt's sandboxing, hence child_watch()
		 */
		child_signals_reset();
		child_die_with(self, SIGTERM);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (keep_fd >= 0)
			set_cloexec(keep_fd, 0);
		passt_confine();
		execv(passt_bin(), argv);
		fprintf(stderr, "exec %s: %s\n", passt_bin(), strerror(errno));
		_exit(127);
	}
	n->passt = pid;
	return 0;
}

/**
 * sock_listening() - whether a Unix socket path has a listener
 * @path:	socket path
 *
 * passt binds its socket while it parses its options but listens only
 * once it is set up: a connection in between is refused (seen as probe
 * error -111 of virtio-uml in the guest).  Connecting to find out would
 * use up passt's one client, so look for the listening flag
 * (__SO_ACCEPTCON) in /proc/net/unix instead.  virtiofsd's sockets are
 * waited for the same way (vfsd.c).
 *
 * Return: 1 if listening, 0 if not (or unknown)
 */
int sock_listening(const char *path)
{
	char *t, *line, *save;
	size_t plen = strlen(path);
	int found = 0;

	if (read_file("/proc/net/unix", &t, 1 << 24) <= 0) {
		free(t);
		return 0;
	}
	for (line = strtok_r(t, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long flags;
		size_t len = strlen(line);

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (len <= plen || line[len - plen - 1] != ' ' ||
		    strcmp(line + len - plen, path))
			continue;
		if (sscanf(line, "%*s %*s %*s %lx", &flags) == 1 &&
		    flags & 0x10000)
			found = 1;
	}
	free(t);
	return found;
}

/**
 * passt_sock_failed() - say why passt did not create its socket
 * @n:		network state, @sock set; @why is filled
 * @in:		instance
 * @log:	passt's log file
 * @logoff:	its size before this passt started
 * @exited:	passt exited (else it ran out of time)
 *
 * The usual cause on Debian is AppArmor: passt's own profile lets it
 * create files under /tmp and $HOME only, and passt exits with "Failed
 * to bind UNIX domain socket: Permission denied" (the log it inherits
 * from us is passed on by AppArmor as it is).
 *
 * Return: -EACCES if AppArmor is the likely cause, else -ETIMEDOUT
 */
static int passt_sock_failed(struct net *n, const struct inst *in,
			     const char *log, off_t logoff, int exited)
{
	int denied = 0, aa = 0, rc = -ETIMEDOUT;
	char *t = NULL;
	ssize_t len;

	len = read_file(log, &t, 1 << 20);
	if (exited && len > logoff)
		denied = !!strstr(t + logoff, "Permission denied");
	free(t);
	if (denied && !strcmp(passt_bin(), PASST_BIN))
		aa = passt_apparmor();
	if (aa < 0) {
		snprintf(n->why, sizeof(n->why),
			 "passt may not create %.200s under AppArmor: passt's own profile allows /tmp and $HOME only, and profile %s is %s; as root: 'apparmor_parser -r %s' (the umarmctl package does this at install); denials: apparmor=\"DENIED\" in the kernel log",
			 n->sock, AA_PROFILE,
			 aa == -ENOENT ? "not loaded" : strerror(-aa),
			 AA_PROFILE_FILE);
		rc = -EACCES;
	} else if (aa > 0) {
		snprintf(n->why, sizeof(n->why),
			 "passt, under AppArmor profile %s, may not create %.200s: the profile allows umarmctl's runtime directories, /tmp and $HOME; add a rule to /etc/apparmor.d/local/%s and, as root, 'apparmor_parser -r %s'; denials: apparmor=\"DENIED\" in the kernel log",
			 AA_PROFILE, n->sock, AA_PROFILE, AA_PROFILE_FILE);
		rc = -EACCES;
	} else {
		snprintf(n->why, sizeof(n->why),
			 "passt did not create %.200s%s; see %.200s/" PASST_LOG,
			 n->sock, exited ? " and exited" : " in time",
			 in->state);
	}
	err("%s: %s", in->name, n->why);
	return rc;
}

/**
 * net_spawn_vhost_user() - start a passt --vhost-user and wait for its socket
 * @n:		network state to fill: @backend, @passt, @sock
 * @in:		instance
 * @sockname:	socket name in the runtime directory
 * @ports:	forwards for this passt
 * @nports:	how many, at most CONF_MAX_PORTS
 * @one_off:	passt exits when UML closes the socket
 *
 * Used at start for the configured network and by "umarmctl net add" for
 * hot-plugged interfaces.  PR_SET_PDEATHSIG does not survive passt
 * dropping its privileges or entering its user namespace, so @one_off is
 * what ends a hot-plugged passt if the supervisor is SIGKILLed (UML dies
 * with it); it would also end the configured one when the guest reboots
 * (UML re-executes itself and reconnects), so that one does without and
 * gets a watcher instead (child_watch()).
 *
 * Return: 0 on success, negative errno on failure (message printed)
 */
int net_spawn_vhost_user(struct net *n, const struct inst *in,
			 const char *sockname, const struct conf_port *ports,
			 int nports, int one_off)
{
	char *argv[16 + 2 * CONF_MAX_PORTS], store[CONF_MAX_PORTS][96];
	char log[PATH_LEN];
	uint64_t deadline;
	struct stat st;
	int argc = 0, rc, exited;
	off_t logoff;

	n->backend = NETB_VHOST_USER;
	n->uml_fd = n->ufd = n->pfd = -1;
	*n->why = 0;
	inst_path(in, n->sock, 1, sockname);
	unlink(n->sock);
	inst_path(in, log, 0, PASST_LOG);
	logoff = stat(log, &st) ? 0 : st.st_size;
	argv[argc++] = "passt";
	argv[argc++] = "--foreground";
	argv[argc++] = "--quiet";
	argv[argc++] = "--vhost-user";
	argv[argc++] = "--socket";
	argv[argc++] = n->sock;
	if (one_off)
		argv[argc++] = "--one-off";
	port_args(ports, nports, argv, &argc, store);
	argv[argc] = NULL;
	rc = spawn_passt(n, in, argv, -1);
	if (rc)
		return rc;
	/* without --one-off, nothing else ends it if we are killed */
	if (!one_off) {
		n->watch = child_watch(n->passt);
		if (n->watch < 0)
			n->watch = 0;
	}
	deadline = boot_ms() + PASST_SOCK_WAIT_MS;
	while (stat(n->sock, &st) || !S_ISSOCK(st.st_mode) ||
	       !sock_listening(n->sock)) {
		exited = waitpid(n->passt, NULL, WNOHANG) == n->passt;
		if (exited || boot_ms() > deadline) {
			if (exited)
				n->passt = 0;
			rc = passt_sock_failed(n, in, log, logoff, exited);
			net_stop(n);
			return rc;
		}
		sleep_ms(10);
	}
	return 0;
}

/**
 * net_start() - start passt and prepare what UML needs
 * @n:		network state to initialise
 * @in:		instance
 * @c:		configuration
 * @kernel:	the kernel that will boot
 *
 * network-backend = auto takes vhost-user when passt has it and the
 * kernel has virtio_net built in (or its configuration cannot be found);
 * with virtio_net as a module (the linux-uml-arm64 kernels) the guest would
 * have to load it before it had a network, while the relay's vector
 * driver is always built in.
 *
 * Return: 0 on success (also for network = none), negative errno on
 *	   failure (message printed)
 */
int net_start(struct net *n, const struct inst *in, const struct conf *c,
	      const char *kernel)
{
	char *argv[16 + 2 * CONF_MAX_PORTS], store[CONF_MAX_PORTS][96];
	char fdarg[16];
	int argc = 0, sp[2], pp[2], rc;

	memset(n, 0, sizeof(*n));
	n->backend = -1;
	n->uml_fd = n->ufd = n->pfd = -1;
	if (c->net == NET_NONE)
		return 0;

	if (access(passt_bin(), X_OK)) {
		err("%s: 'network = passt' but %s is missing: apt install passt, or set 'network = none' in %s",
		    in->name, passt_bin(), in->conf);
		return -ENOENT;
	}
	rc = passt_userns_ok();
	if (rc) {
		snprintf(n->why, sizeof(n->why),
			 "'network = passt' cannot work: unshare(CLONE_NEWUSER): %s" PASST_NO_USERNS "; set 'network = none' in %.160s",
			 strerror(-rc), in->conf);
		err("%s: %s", in->name, n->why);
		return rc;
	}
	n->backend = c->net_backend;
	if (n->backend == NETB_AUTO) {
		int vn = kernel_virtio_net(kernel);

		n->backend = passt_has_vhost_user() && (!vn || vn == 'y') ?
			     NETB_VHOST_USER : NETB_RELAY;
	}
	if (n->backend == NETB_VHOST_USER && !passt_has_vhost_user()) {
		err("%s: 'network-backend = vhost-user' but %s has no --vhost-user (passt from 2024 or later); use 'network-backend = relay'",
		    in->name, passt_bin());
		return -ENOTSUP;
	}

	argv[argc++] = "passt";
	argv[argc++] = "--foreground";
	argv[argc++] = "--quiet";

	if (n->backend == NETB_VHOST_USER)
		return net_spawn_vhost_user(n, in, PASST_SOCK, c->port,
					    c->nports, 0);

	/* Relay */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
		return -errno;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pp)) {
		rc = -errno;
		close(sp[0]);
		close(sp[1]);
		return rc;
	}
	n->ufd = sp[0];
	n->uml_fd = sp[1];
	n->pfd = pp[0];
	set_nonblock(n->ufd);
	set_nonblock(n->pfd);

	snprintf(fdarg, sizeof(fdarg), "%d", pp[1]);
	argv[argc++] = "--fd";
	argv[argc++] = fdarg;
	argv[argc++] = "--mtu";
	argv[argc++] = RELAY_MTU;
	port_args(c->port, c->nports, argv, &argc, store);
	argv[argc] = NULL;
	rc = spawn_passt(n, in, argv, pp[1]);
	close(pp[1]);
	if (rc)
		net_stop(n);
	return rc;
}

/**
 * net_uml_arg() - the kernel command line argument for the network
 * @n:		network state
 * @buf:	output
 * @len:	size of @buf
 *
 * The relay descriptor is always passed to UML as fd 3.  The second
 * argument asks the minimal and musl images' init to configure the
 * interface by DHCP from passt (umarm.net=dhcp:IF, images/minimal/init.c;
 * other inits ignore it): eth0 is virtio_net's name for the vhost-user
 * device, vec0 the vector driver's.
 *
 * Return: 1 if @buf and @dhcp were filled, 0 if no network, -ENOSPC
 */
int net_uml_arg(const struct net *n, char *buf, size_t len, char *dhcp,
		size_t dlen)
{
	const char *ifname;
	int r, d;

	if (n->backend == NETB_VHOST_USER) {
		r = snprintf(buf, len, "virtio_uml.device=%s:1", n->sock);
		ifname = "eth0";
	} else if (n->backend == NETB_RELAY) {
		r = snprintf(buf, len, "vec0:transport=fd,fd=3");
		ifname = "vec0";
	} else {
		return 0;
	}
	d = snprintf(dhcp, dlen, "umarm.net=dhcp:%s", ifname);
	return r < 0 || (size_t)r >= len || d < 0 || (size_t)d >= dlen ?
		-ENOSPC : 1;
}

/**
 * net_from_uml() - relay frames from UML to passt
 * @n:		network state
 *
 * Return: 0, or -EPIPE if the UML side is gone
 */
int net_from_uml(struct net *n)
{
	unsigned char frame[NET_FRAME_MAX];

	for (;;) {
		ssize_t r = recv(n->ufd, frame, sizeof(frame), MSG_DONTWAIT);
		uint32_t be;

		if (r < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
		if (!r)
			return -EPIPE;
		if (n->outlen + 4 + r > sizeof(n->out)) {
			n->drops++;
			continue;
		}
		be = htonl(r);
		memcpy(n->out + n->outlen, &be, 4);
		memcpy(n->out + n->outlen + 4, frame, r);
		n->outlen += 4 + r;
		net_flush_passt(n);
	}
}

/**
 * net_flush_passt() - write pending bytes to passt's stream
 * @n:		network state
 *
 * Return: 0, or -EPIPE if passt is gone
 */
int net_flush_passt(struct net *n)
{
	while (n->outlen) {
		ssize_t w = send(n->pfd, n->out, n->outlen,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
		memmove(n->out, n->out + w, n->outlen - w);
		n->outlen -= w;
	}
	return 0;
}

/**
 * net_from_passt() - relay frames from passt to UML
 * @n:		network state
 *
 * Return: 0, -EPIPE if passt closed the stream, -EPROTO on a bad length
 */
int net_from_passt(struct net *n)
{
	for (;;) {
		ssize_t r = recv(n->pfd, n->in + n->inlen,
				 sizeof(n->in) - n->inlen, MSG_DONTWAIT);
		size_t off = 0;

		if (r < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
		if (!r)
			return -EPIPE;
		n->inlen += r;
		while (n->inlen - off >= 4) {
			uint32_t len;

			memcpy(&len, n->in + off, 4);
			len = ntohl(len);
			if (!len || len > NET_FRAME_MAX)
				return -EPROTO;
			if (n->inlen - off - 4 < len)
				break;
			if (send(n->ufd, n->in + off + 4, len,
				 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				n->drops++;
			off += 4 + len;
		}
		memmove(n->in, n->in + off, n->inlen - off);
		n->inlen -= off;
	}
}

/**
 * net_stop() - stop passt and close the relay
 * @n:		network state
 */
void net_stop(struct net *n)
{
	/* --fd implies --one-off: passt exits when its stream closes */
	if (n->ufd >= 0)
		close(n->ufd);
	if (n->pfd >= 0)
		close(n->pfd);
	if (n->uml_fd >= 0)
		close(n->uml_fd);
	n->ufd = n->pfd = n->uml_fd = -1;
	if (n->watch > 0) {
		kill(n->watch, SIGKILL);
		waitpid(n->watch, NULL, 0);
		n->watch = 0;
	}
	if (n->passt > 0) {
		uint64_t deadline = boot_ms() + PASST_STOP_MS;

		kill(n->passt, SIGTERM);
		while (waitpid(n->passt, NULL, WNOHANG) == 0) {
			if (boot_ms() > deadline) {
				kill(n->passt, SIGKILL);
				waitpid(n->passt, NULL, 0);
				break;
			}
			sleep_ms(10);
		}
		n->passt = 0;
	}
	if (*n->sock)
		unlink(n->sock);
}

/**
 * net_backend_name() - name of the backend in use
 * @n:		network state
 *
 * Return: "none", "vhost-user" or "relay"
 */
const char *net_backend_name(const struct net *n)
{
	if (n->backend == NETB_VHOST_USER)
		return "vhost-user";
	if (n->backend == NETB_RELAY)
		return "relay";
	return "none";
}
