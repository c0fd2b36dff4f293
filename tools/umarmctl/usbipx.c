// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * usbipx.c - the host side of one USB/IP import, instead of usbipd
 *
 * usbipd(8) listens on TCP 3240 on every address: it has no option to bind
 * to one (-4 and -6 only pick the family), and hosts_access(5), the only
 * restriction it knows, is host-wide configuration.  A device exported for
 * one guest was offered to the whole network, without authentication, for
 * as long as usbipd ran.  What a guest needs is one OP_REQ_IMPORT
 * exchange, after which usbip-host owns the socket: so "usb attach" does
 * that exchange itself, like usbipd's recv_request_import() does
 * (tools/usb/usbip/src/usbipd.c in the kernel):
 *
 * - it listens on 127.0.0.1:3240 only (passt maps the guest's gateway to
 *   the host's loopback) and only while the guest attaches;
 * - it takes the connection only if the socket on the other end belongs
 *   to one of the instance's passt processes, so neither another guest nor
 *   another local user gets the device;
 * - it answers only for the bus id being attached, hands the socket to
 *   usbip-host (usbip_sockfd in sysfs), replies, and closes the listener.
 *
 * Nothing keeps running after "usb attach": there is no daemon to stop.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "log.h"
#include "usbipx.h"
#include "util.h"

#define USBIP_VERSION	0x0111
#define OP_REQ_IMPORT	0x8003
#define OP_REP_IMPORT	0x0003
#define ST_OK		0
#define ST_NA		1	/* device not available */
#define ST_NODEV	4
#define BUSID_LEN	32
#define SYSFS_PATH_LEN	256

/**
 * struct op_common - header of every USB/IP operation (network order)
 */
struct op_common {
	uint16_t version;
	uint16_t code;
	uint32_t status;
} __attribute__((packed));

/**
 * struct usbip_usb_device - the device as OP_REP_IMPORT describes it
 */
struct usbip_usb_device {
	char path[SYSFS_PATH_LEN];
	char busid[BUSID_LEN];
	uint32_t busnum, devnum, speed;
	uint16_t id_vendor, id_product, bcd_device;
	uint8_t dev_class, dev_subclass, dev_protocol;
	uint8_t config_value, num_configs, num_interfaces;
} __attribute__((packed));

/**
 * usb_sysfs() - where sysfs is
 *
 * Return: $UMARM_SYSFS if set (the integration tests' fake device tree),
 *	   else /sys
 */
const char *usb_sysfs(void)
{
	const char *e = getenv("UMARM_SYSFS");

	return e && *e ? e : "/sys";
}

/**
 * attr_ul() - read a numeric sysfs attribute of a USB device
 * @busid:	device
 * @attr:	attribute
 * @base:	16 for ids and classes, 10 for counts
 *
 * Return: its value, 0 if missing or empty (an unconfigured device)
 */
static unsigned long attr_ul(const char *busid, const char *attr, int base)
{
	char path[PATH_LEN], *v;
	unsigned long n = 0;

	if (pathf(path, "%s/bus/usb/devices/%s/%s", usb_sysfs(), busid, attr))
		return 0;
	if (read_file(path, &v, 64) > 0)
		n = strtoul(v, NULL, base);
	free(v);
	return n;
}

/**
 * usb_speed() - the device's speed as enum usb_device_speed
 * @busid:	device
 *
 * Return: USB_SPEED_LOW (1) to USB_SPEED_SUPER_PLUS (6), 0 if unknown
 */
static uint32_t usb_speed(const char *busid)
{
	static const char *const mbps[] = { "1.5", "12", "480", "53.3-480",
					    "5000", "10000" };
	char path[PATH_LEN], *v;
	uint32_t speed = 0, i;

	if (pathf(path, "%s/bus/usb/devices/%s/speed", usb_sysfs(), busid) ||
	    read_file(path, &v, 64) <= 0)
		return 0;
	v[strcspn(v, "\n")] = 0;
	for (i = 0; i < ARRAY_SIZE(mbps); i++)
		if (!strcmp(v, mbps[i]))
			speed = i + 1;
	if (!strcmp(v, "20000"))
		speed = 6;
	free(v);
	return speed;
}

/**
 * describe() - the OP_REP_IMPORT device record, from sysfs
 * @busid:	device
 * @d:		record, in network byte order
 */
static void describe(const char *busid, struct usbip_usb_device *d)
{
	char path[PATH_LEN], real[PATH_LEN];

	memset(d, 0, sizeof(*d));
	if (!pathf(path, "%s/bus/usb/devices/%s", usb_sysfs(), busid) &&
	    realpath(path, real) && strlen(real) < sizeof(d->path))
		memcpy(d->path, real, strlen(real) + 1);
	snprintf(d->busid, sizeof(d->busid), "%s", busid);
	d->busnum = htonl(attr_ul(busid, "busnum", 10));
	d->devnum = htonl(attr_ul(busid, "devnum", 10));
	d->speed = htonl(usb_speed(busid));
	d->id_vendor = htons(attr_ul(busid, "idVendor", 16));
	d->id_product = htons(attr_ul(busid, "idProduct", 16));
	d->bcd_device = htons(attr_ul(busid, "bcdDevice", 16));
	d->dev_class = attr_ul(busid, "bDeviceClass", 16);
	d->dev_subclass = attr_ul(busid, "bDeviceSubClass", 16);
	d->dev_protocol = attr_ul(busid, "bDeviceProtocol", 16);
	d->config_value = attr_ul(busid, "bConfigurationValue", 10);
	d->num_configs = attr_ul(busid, "bNumConfigurations", 10);
	d->num_interfaces = attr_ul(busid, "bNumInterfaces", 10);
}

/**
 * usbipx_listen() - listen on 127.0.0.1:3240
 *
 * Return: listening socket, negative errno (-EADDRINUSE: a usbipd runs)
 */
int usbipx_listen(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(USBIP_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/**
 * peer_inode() - the inode of the socket at the other end of a connection
 * @fd:		accepted loopback TCP connection
 *
 * The other end is a local socket whose local address is our peer
 * address and whose remote address is our local one: /proc/net/tcp has
 * its inode.
 *
 * Return: inode, 0 if not found
 */
static unsigned long peer_inode(int fd)
{
	struct sockaddr_in me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	char want_l[32], want_r[32], *t, *line, *save;
	unsigned long ino = 0;

	if (getsockname(fd, (struct sockaddr *)&me, &ml) ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) ||
	    peer.sin_family != AF_INET)
		return 0;
	/* /proc/net/tcp: address as a host-order hex u32, port in hex */
	snprintf(want_l, sizeof(want_l), "%08X:%04X", peer.sin_addr.s_addr,
		 ntohs(peer.sin_port));
	snprintf(want_r, sizeof(want_r), "%08X:%04X", me.sin_addr.s_addr,
		 ntohs(me.sin_port));
	if (read_file("/proc/net/tcp", &t, 1 << 24) <= 0) {
		free(t);
		return 0;
	}
	for (line = strtok_r(t, "\n", &save); line && !ino;
	     line = strtok_r(NULL, "\n", &save)) {
		char l[32], r[32];
		unsigned long i;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, "%*s %31s %31s %*s %*s %*s %*s %*s %*s %lu",
			   l, r, &i) == 3 && !strcmp(l, want_l) &&
		    !strcmp(r, want_r))
			ino = i;
	}
	free(t);
	return ino;
}

/**
 * pid_has_socket() - whether a process holds a socket
 * @pid:	process
 * @ino:	socket inode
 *
 * Return: 1 if one of its descriptors is socket:[@ino]
 */
static int pid_has_socket(pid_t pid, unsigned long ino)
{
	char dir[64], want[64];
	struct dirent *de;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		char link[64], path[PATH_LEN];
		ssize_t n;

		if (pathf(path, "%s/%s", dir, de->d_name))
			continue;
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		found = !strcmp(link, want);
	}
	if (d)
		closedir(d);
	return found;
}

/**
 * peer_allowed() - whether a connection comes from one of the given processes
 * @fd:		accepted connection
 * @peers:	processes (the instance's passts)
 * @npeers:	how many
 *
 * Return: 1 if allowed
 */
static int peer_allowed(int fd, const pid_t *peers, int npeers)
{
	unsigned long ino = peer_inode(fd);
	int i;

	for (i = 0; ino && i < npeers; i++)
		if (peers[i] > 0 && pid_has_socket(peers[i], ino))
			return 1;
	return 0;
}

/**
 * read_full() - read exactly @len bytes, within a time limit
 * @fd:		socket
 * @buf:	buffer
 * @len:	bytes wanted
 * @ms:		time limit
 *
 * Return: 0, or -1 on EOF, error or timeout
 */
static int read_full(int fd, void *buf, size_t len, int ms)
{
	char *p = buf;

	while (len) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, ms) <= 0)
			return -1;
		n = read(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * export_socket() - give the connection to usbip-host
 * @busid:	device, bound to usbip-host
 * @fd:		connection
 *
 * usbip-host takes its own reference on the socket (usbip_sockfd_store()
 * in drivers/usb/usbip/stub_dev.c): ours can be closed afterwards.
 *
 * Return: 0, negative errno
 */
static int export_socket(const char *busid, int fd)
{
	char path[PATH_LEN], num[16];
	int sfd, rc = 0, one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (pathf(path, "%s/bus/usb/devices/%s/usbip_sockfd", usb_sysfs(),
		  busid))
		return -ENAMETOOLONG;
	sfd = open(path, O_WRONLY | O_CLOEXEC);
	if (sfd < 0)
		return -errno;
	snprintf(num, sizeof(num), "%d\n", fd);
	rc = write_all(sfd, num, strlen(num));
	if (close(sfd) && !rc)
		rc = -errno;
	return rc;
}

/**
 * send_all() - send a whole buffer on a socket, without SIGPIPE
 * @fd:		socket
 * @buf:	data
 * @len:	length
 *
 * Return: 0, or -1 if the peer went away
 */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * import() - answer one OP_REQ_IMPORT
 * @fd:		connection from the guest's passt
 * @busid:	the device being attached
 *
 * Return: 0 if the device was handed over, 1 if the request was for
 *	   something else (answered ST_NODEV), negative errno
 */
static int import(int fd, const char *busid)
{
	struct usbip_usb_device dev;
	struct op_common op;
	char want[BUSID_LEN];
	int rc;

	if (read_full(fd, &op, sizeof(op), 5000) ||
	    ntohs(op.version) != USBIP_VERSION ||
	    ntohs(op.code) != OP_REQ_IMPORT ||
	    read_full(fd, want, sizeof(want), 5000))
		return 1;
	want[sizeof(want) - 1] = 0;
	op.version = htons(USBIP_VERSION);
	op.code = htons(OP_REP_IMPORT);
	if (strcmp(want, busid)) {
		op.status = htonl(ST_NODEV);
		send_all(fd, &op, sizeof(op));
		return 1;
	}
	rc = export_socket(busid, fd);
	op.status = htonl(rc ? ST_NA : ST_OK);
	if (send_all(fd, &op, sizeof(op)) && !rc)
		rc = -EPIPE;
	if (rc)
		return rc;
	describe(busid, &dev);
	return send_all(fd, &dev, sizeof(dev)) ? -EPIPE : 0;
}

/**
 * usbipx_serve() - hand a device to the first import from allowed peers
 * @lfd:	listening socket from usbipx_listen()
 * @busid:	device, bound to usbip-host
 * @peers:	processes whose connections are taken (the instance's passts)
 * @npeers:	how many
 * @timeout_ms:	give up after this long
 *
 * Return: 0 once the device was handed over, negative errno (-ETIMEDOUT)
 */
int usbipx_serve(int lfd, const char *busid, const pid_t *peers,
		 int npeers, int timeout_ms)
{
	uint64_t end = boot_ms() + timeout_ms;

	for (;;) {
		struct pollfd pf = { .fd = lfd, .events = POLLIN };
		uint64_t now = boot_ms();
		int fd, rc;

		if (now >= end || poll(&pf, 1, (int)(end - now)) <= 0)
			return -ETIMEDOUT;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (!peer_allowed(fd, peers, npeers)) {
			warn("usb: refused a connection to 127.0.0.1:%d that is not from the guest's passt",
			     USBIP_PORT);
			close(fd);
			continue;
		}
		rc = import(fd, busid);
		close(fd);
		if (rc <= 0)
			return rc;
	}
}
