/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * ctl.h - talk to a running instance's supervisor (its control socket)
 */

#ifndef UMARM_CTL_H
#define UMARM_CTL_H

#include <stddef.h>

#include "paths.h"

/* How long a verb waits for a starting supervisor's control socket and
 * answer: as long as a start waits for another command's operations lock
 */
#define CTL_START_WAIT_MS	60000

int ctl_connect(const struct inst *in);
int ctl_request(const struct inst *in, const char *req, char *reply,
		size_t len);
const char *ctl_why(int rc, const char *reply);

#endif /* UMARM_CTL_H */
