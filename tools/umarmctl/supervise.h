/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * supervise.h - run one instance: UML, passt, console, readiness
 */

#ifndef UMARM_SUPERVISE_H
#define UMARM_SUPERVISE_H

#include "conf.h"
#include "paths.h"

int supervise(const struct inst *in, const struct conf *c, int ready_fd);
int reap_orphans(const struct inst *in);

#endif /* UMARM_SUPERVISE_H */
