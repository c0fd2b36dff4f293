// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake-usbipd.c - a usbipd that exports one device without hardware
 *
 * Usage: fake-usbipd BUSID
 *
 * For the integration test of the guest's usbip (images/minimal/usbip.c)
 * on hosts without usbip-host and dummy_hcd: listens on 127.0.0.1:3240,
 * answers one OP_REQ_IMPORT for BUSID with a high-speed device 1d6b:0104
 * on bus 1, device 2, then reads what the guest's vhci-hcd sends over the
 * handed-over socket and reports the first command (USBIP_CMD_SUBMIT = 1:
 * the guest kernel enumerating the device).  It never answers the URB;
 * it keeps the connection until killed.  One line per event on stdout:
 *
 *	listening
 *	import BUSID version=0x0111
 *	urb command=N
 *
 * Exit status 1 with a message if it cannot listen (3240 in use).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct op_common {
	uint16_t version;
	uint16_t code;
	uint32_t status;
} __attribute__((packed));

struct usb_device_desc {
	char path[256];
	char busid[32];
	uint32_t busnum, devnum, speed;
	uint16_t id_vendor, id_product, bcd_device;
	uint8_t class, subclass, protocol;
	uint8_t config_value, num_configs, num_interfaces;
} __attribute__((packed));

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(3240) };
	struct usb_device_desc dev = { 0 };
	struct op_common op;
	char busid[32], buf[4096];
	uint32_t cmd;
	int s, c, one = 1;

	if (argc != 2 || strlen(argv[1]) >= sizeof(busid)) {
		fprintf(stderr, "usage: fake-usbipd BUSID\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s, 4)) {
		perror("fake-usbipd: 127.0.0.1:3240");
		return 1;
	}
	printf("listening\n");
	for (;;) {
		c = accept(s, NULL, NULL);
		if (c < 0)
			return 1;
		if (read_full(c, &op, sizeof(op)) ||
		    read_full(c, busid, sizeof(busid))) {
			close(c);	/* a port probe, not an import */
			continue;
		}
		busid[sizeof(busid) - 1] = 0;
		printf("import %s version=0x%04x code=0x%04x\n", busid,
		       ntohs(op.version), ntohs(op.code));
		if (ntohs(op.code) != 0x8003 || strcmp(busid, argv[1])) {
			op.code = htons(0x0003);
			op.status = htonl(1);
			(void)!write(c, &op, sizeof(op));
			close(c);
			continue;
		}
		op.code = htons(0x0003);
		op.status = 0;
		strcpy(dev.path, "/sys/devices/fake");
		strcpy(dev.busid, busid);
		dev.busnum = htonl(1);
		dev.devnum = htonl(2);
		dev.speed = htonl(3);	/* USB_SPEED_HIGH */
		dev.id_vendor = htons(0x1d6b);
		dev.id_product = htons(0x0104);
		dev.num_configs = 1;
		if (write(c, &op, sizeof(op)) != sizeof(op) ||
		    write(c, &dev, sizeof(dev)) != sizeof(dev))
			return 1;
		if (read_full(c, &cmd, sizeof(cmd)) == 0)
			printf("urb command=%u\n", ntohl(cmd));
		while (read(c, buf, sizeof(buf)) > 0)
			;
		printf("closed\n");
		close(c);
	}
}
