/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * net.h - passt networking: vhost-user, or the frame relay
 */

#ifndef UMARM_NET_H
#define UMARM_NET_H

#include <sys/types.h>

#include "conf.h"
#include "paths.h"

#define NET_FRAME_MAX	65536

/**
 * struct net - network of one running instance
 * @backend:	NETB_VHOST_USER, NETB_RELAY, or -1 for none
 * @passt:	pid of passt, 0 if not running
 * @uml_fd:	relay: the descriptor UML inherits (SOCK_SEQPACKET)
 * @ufd:	relay: our end towards UML
 * @pfd:	relay: our end towards passt (SOCK_STREAM, length-prefixed)
 * @sock:	vhost-user: passt's socket path
 * @in:		relay: bytes read from passt, not yet a whole frame
 * @inlen:	bytes in @in
 * @out:	relay: bytes for passt that didn't fit in the socket yet
 * @outlen:	bytes in @out
 * @drops:	frames dropped because a side was full
 * @why:	why passt failed to start, for the user, or ""
 */
struct net {
	int backend;
	pid_t passt;
	pid_t watch;
	int uml_fd;
	int ufd;
	int pfd;
	char sock[PATH_LEN];
	unsigned char in[NET_FRAME_MAX + 4];
	size_t inlen;
	unsigned char out[2 * (NET_FRAME_MAX + 4)];
	size_t outlen;
	unsigned long drops;
	char why[512];
};

int sock_listening(const char *path);
int net_spawn_vhost_user(struct net *n, const struct inst *in,
			 const char *sockname, const struct conf_port *ports,
			 int nports, int one_off);
int net_start(struct net *n, const struct inst *in, const struct conf *c,
	      const char *kernel);
int net_uml_arg(const struct net *n, char *buf, size_t len, char *dhcp,
		size_t dlen);
int net_from_uml(struct net *n);
int net_from_passt(struct net *n);
int net_flush_passt(struct net *n);
void net_stop(struct net *n);
const char *net_backend_name(const struct net *n);

#endif /* UMARM_NET_H */
