// SPDX-License-Identifier: GPL-2.0-or-later
/* notify-listen - receive sd_notify(3) datagrams, for the integration tests
 *
 * Usage: notify-listen SOCKET [TIMEOUT_S]
 *
 * Binds an AF_UNIX datagram socket at SOCKET and prints each message on
 * one line (newlines turned into spaces) until a message carries
 * STOPPING=1 (exit 0) or TIMEOUT_S (default 60) pass without one (exit 1).
 * The tests used python3 for this; hosts without python3 (the emulated
 * arm64 host) run this instead.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, timeout = argc > 2 ? atoi(argv[2]) : 60;
	time_t end;

	if (argc < 2 || strlen(argv[1]) >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: notify-listen SOCKET [TIMEOUT_S]\n");
		return 2;
	}
	strcpy(a.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror(argv[1]);
		return 2;
	}
	end = time(NULL) + timeout;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[4096];
		ssize_t n, i;
		int left = (int)(end - time(NULL));

		if (left <= 0 || poll(&p, 1, left * 1000) == 0) {
			printf("notify-listen: timeout\n");
			return 1;
		}
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("recv");
			return 2;
		}
		buf[n] = 0;
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		printf("%s\n", buf);
		fflush(stdout);
		if (strstr(buf, "STOPPING=1"))
			return 0;
	}
}
