/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * ctl.h - talk to a running instance's supervisor (its control socket)
 */

#ifndef UMARM_CTL_H
#define UMARM_CTL_H

#include <stddef.h>

#include "paths.h"

int ctl_connect(const struct inst *in);
int ctl_request(const struct inst *in, const char *req, char *reply,
		size_t len);

#endif /* UMARM_CTL_H */
