// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usbip.c - the guest side of USB/IP for the minimal image
 *
 * The minimal image has no usbip tool (Debian's needs libudev and a
 * dynamic loader), so "umarmctl usb attach" had nothing to run in it.  This
 * is the part of usbip(8) that umarmctl uses, with the same command lines
 * and the same "port" output, linked into the image's init and reached as
 * /sbin/usbip (a link to /sbin/init):
 *
 *	usbip attach -r HOST -b BUSID	import BUSID from usbipd on HOST
 *					(TCP 3240) into a free vhci-hcd port
 *	usbip detach -p PORT		give the port's device back
 *	usbip port			list the imported devices
 *
 * HOST is a numeric IPv4 or IPv6 address (the image resolves no names).
 * The import is the protocol of tools/usb/usbip in the kernel tree: an
 * OP_REQ_IMPORT request, the device in the reply, then "PORT SOCKFD DEVID
 * SPEED" written to vhci-hcd's attach file, which takes the connected
 * socket over; like usbip, the connection is recorded in
 * /run/vhci_hcd/portN for "port" (the image has no /var/run).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define VHCI_DIR	"/sys/devices/platform/vhci_hcd.0"
#define STATE_DIR	"/run/vhci_hcd"	/* /var/run/vhci_hcd in Debian */
#define USBIP_PORT	3240
#define USBIP_VERSION	0x0111
#define OP_REQ_IMPORT	0x8003
#define OP_REP_IMPORT	0x0003
#define BUSID_SIZE	32
#define VDEV_ST_NULL	4
#define VDEV_ST_USED	6
#define USB_SPEED_SUPER	5

struct op_common {
	uint16_t version;
	uint16_t code;
	uint32_t status;
} __attribute__((packed));

/* struct usbip_usb_device of tools/usb/usbip, big-endian on the wire */
struct usb_device_desc {
	char path[256];
	char busid[BUSID_SIZE];
	uint32_t busnum;
	uint32_t devnum;
	uint32_t speed;
	uint16_t id_vendor;
	uint16_t id_product;
	uint16_t bcd_device;
	uint8_t class, subclass, protocol;
	uint8_t config_value, num_configs, num_interfaces;
} __attribute__((packed));

static int usage(void)
{
	fprintf(stderr,
		"usage: usbip attach -r HOST -b BUSID | usbip detach -p PORT | usbip port\n");
	return 2;
}

static int err(const char *what, int e)
{
	if (e)
		fprintf(stderr, "usbip: %s: %s\n", what, strerror(e));
	else
		fprintf(stderr, "usbip: %s\n", what);
	return 1;
}

static int xfer(int fd, void *buf, size_t len, int out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ECONNRESET;
		p += n;
		len -= n;
	}
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int e = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		e = -errno;
	close(fd);
	return e;
}

/* connect_host() - a TCP connection to HOST:3240, or -errno */
static int connect_host(const char *host)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, one = 1;

	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(USBIP_PORT);
		len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(USBIP_PORT);
		len = sizeof(*in6);
	} else {
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		int e = errno;

		close(fd);
		return -e;
	}
	/* as usbip does: URBs are small and latency-bound */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	return fd;
}

/* free_port() - a free vhci-hcd port for a device of this speed, or -1 */
static int free_port(uint32_t speed)
{
	char line[256], hub[8];
	unsigned int port, sta;
	int found = -1;
	FILE *f = fopen(VHCI_DIR "/status", "re");

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%7s %u %u", hub, &port, &sta) != 3 ||
		    sta != VDEV_ST_NULL)
			continue;
		/* super speed devices on the ss hub, all others on hs */
		if (!strcmp(hub, speed == USB_SPEED_SUPER ? "ss" : "hs"))
			found = (int)port;
	}
	fclose(f);
	return found;
}

static int attach(const char *host, const char *busid)
{
	struct op_common op = {
		.version = htons(USBIP_VERSION),
		.code = htons(OP_REQ_IMPORT),
	};
	struct usb_device_desc dev;
	char req[BUSID_SIZE] = { 0 }, buf[128];
	int fd, port, rc, e;
	FILE *f;

	if (strlen(busid) >= BUSID_SIZE)
		return err("bus id too long", 0);
	if (access(VHCI_DIR "/attach", W_OK))
		return err(VHCI_DIR "/attach (is vhci-hcd in the kernel?)", errno);
	fd = connect_host(host);
	if (fd == -EINVAL) {
		fprintf(stderr, "usbip: '%s' is not an IP address\n", host);
		return 1;
	}
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "connect to %s port %d", host,
			 USBIP_PORT);
		return err(buf, -fd);
	}
	strncpy(req, busid, sizeof(req) - 1);
	rc = xfer(fd, &op, sizeof(op), 1);
	if (!rc)
		rc = xfer(fd, req, sizeof(req), 1);
	if (!rc)
		rc = xfer(fd, &op, sizeof(op), 0);
	if (rc) {
		close(fd);
		return err("import request", -rc);
	}
	if (ntohs(op.code) != OP_REP_IMPORT || op.status) {
		close(fd);
		fprintf(stderr,
			"usbip: %s refused %s (status %u): is it exported (usbip bind -b %s)?\n",
			host, busid, ntohl(op.status), busid);
		return 1;
	}
	rc = xfer(fd, &dev, sizeof(dev), 0);
	if (rc || strncmp(dev.busid, busid, BUSID_SIZE)) {
		close(fd);
		return err("import reply", rc ? -rc : 0);
	}
	/* a port taken between the status read and the write gives EBUSY */
	do {
		port = free_port(ntohl(dev.speed));
		if (port < 0) {
			close(fd);
			return err("no free vhci-hcd port", 0);
		}
		snprintf(buf, sizeof(buf), "%d %d %u %u\n", port, fd,
			 (ntohl(dev.busnum) << 16) | ntohl(dev.devnum),
			 ntohl(dev.speed));
		e = write_file(VHCI_DIR "/attach", buf);
	} while (e == -EBUSY);
	close(fd);
	if (e)
		return err("attach", -e);
	/* the device is attached: a lost record only costs "port" its URL */
	snprintf(buf, sizeof(buf), STATE_DIR "/port%d", port);
	if (mkdir(STATE_DIR, 0700) && errno != EEXIST)
		err("mkdir " STATE_DIR, errno);
	else if (!(f = fopen(buf, "we")))
		err(buf, errno);
	else if ((fprintf(f, "%s %d %s\n", host, USBIP_PORT, busid) < 0) |
		 fclose(f))
		err(buf, errno);
	printf("port %d: %s %04x:%04x from %s\n", port, busid,
	       ntohs(dev.id_vendor), ntohs(dev.id_product), host);
	return 0;
}

/* port_status() - a vhci-hcd port's VDEV_ST_* status, or -1 */
static int port_status(unsigned int want)
{
	char line[256], hub[8];
	unsigned int port, sta;
	int found = -1;
	FILE *f = fopen(VHCI_DIR "/status", "re");

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%7s %u %u", hub, &port, &sta) == 3 &&
		    port == want)
			found = (int)sta;
	fclose(f);
	return found;
}

/*
 * detach() - give a port's device back
 *
 * vhci-hcd frees the port in its event thread after the write returns;
 * wait (up to 5 s) until it has, so that an attach right after a detach
 * finds the port free.
 */
static int detach(const char *p)
{
	const struct timespec tick = { .tv_nsec = 100 * 1000 * 1000 };
	char *end, path[64];
	long port = strtol(p, &end, 10);
	int e, i;

	if (!*p || *end || port < 0 || port > 9999)
		return usage();
	snprintf(path, sizeof(path), "%ld\n", port);
	e = write_file(VHCI_DIR "/detach", path);
	if (e)
		return err("detach", -e);
	snprintf(path, sizeof(path), STATE_DIR "/port%ld", port);
	unlink(path);
	for (i = 0; i < 50 && port_status(port) != VDEV_ST_NULL; i++)
		nanosleep(&tick, NULL);
	if (port_status(port) != VDEV_ST_NULL)
		fprintf(stderr, "usbip: port %ld is still being released\n",
			port);
	printf("port %ld is now detached!\n", port);
	return 0;
}

/* port_list() - the imported devices, in usbip's "port" format */
static int port_list(void)
{
	char line[256], hub[8], local[64], path[64], host[80], busid[64];
	unsigned int port, sta, spd, devid, sock;
	FILE *f = fopen(VHCI_DIR "/status", "re");
	FILE *r;

	if (!f)
		return err(VHCI_DIR "/status (is vhci-hcd in the kernel?)",
			   errno);
	printf("Imported USB devices\n====================\n");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%7s %u %u %u %x %u %63s", hub, &port, &sta,
			   &spd, &devid, &sock, local) != 7 ||
		    sta != VDEV_ST_USED)
			continue;
		printf("Port %02u: <Port in Use> at speed %u\n", port, spd);
		printf("       %s (bus/dev %03u/%03u)\n", local, devid >> 16,
		       devid & 0xffff);
		snprintf(path, sizeof(path), STATE_DIR "/port%u", port);
		r = fopen(path, "re");
		if (r && fscanf(r, "%79s %*s %63s", host, busid) == 2)
			printf("       %s -> usbip://%s:%d/%s\n", local, host,
			       USBIP_PORT, busid);
		if (r)
			fclose(r);
	}
	fclose(f);
	return 0;
}

int usbip_main(int argc, char **argv)
{
	const char *host = NULL, *busid = NULL, *port = NULL;
	int i;

	if (argc < 2)
		return usage();
	for (i = 2; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (!strcmp(o, "-r") || !strcmp(o, "--remote"))
			host = v;
		else if (!strcmp(o, "-b") || !strcmp(o, "--busid"))
			busid = v;
		else if (!strcmp(o, "-p") || !strcmp(o, "--port"))
			port = v;
		else
			return usage();
	}
	if (i != argc)
		return usage();
	if (!strcmp(argv[1], "attach") && host && busid && !port)
		return attach(host, busid);
	if (!strcmp(argv[1], "detach") && port && !host && !busid)
		return detach(port);
	if (!strcmp(argv[1], "port") && argc == 2)
		return port_list();
	return usage();
}
