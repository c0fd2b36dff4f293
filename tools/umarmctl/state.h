/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * state.h - runtime state of an instance
 */

#ifndef UMARM_STATE_H
#define UMARM_STATE_H

#include <stdint.h>
#include <sys/types.h>

#include "paths.h"

/**
 * struct state - what the supervisor publishes about a running instance
 * @status:	"starting", "booting", "running", "paused", "stopping",
 *		"stopped", "failed"
 * @supervisor:	pid of umarmctl's supervisor
 * @uml:	pid of the UML kernel process
 * @passt:	pid of passt, 0 if none
 * @mconsole:	path of the mconsole socket, as UML announced it
 * @net:	"none", "vhost-user" or "relay"
 * @started:	wall-clock ms when the kernel was started
 * @boot:	wall-clock ms when the current boot began: @started, or when
 *		the kernel re-executed itself for a reboot (0 from a
 *		supervisor older than this field: take @started)
 * @ready:	wall-clock ms when the guest was seen booted (this boot), 0
 *		if not yet
 * @exit:	exit description, for stopped/failed
 */
struct state {
	char status[16];
	pid_t supervisor;
	pid_t uml;
	pid_t passt;
	char mconsole[600];
	char net[16];
	uint64_t started;
	uint64_t boot;
	uint64_t ready;
	char exit[128];
};

int state_write(const char *path, const struct state *s);
int state_read(const char *path, struct state *s);

#endif /* UMARM_STATE_H */
