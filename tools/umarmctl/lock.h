/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * lock.h - per-instance locks
 */

#ifndef UMARM_LOCK_H
#define UMARM_LOCK_H

#include "paths.h"

int lock_take(const struct inst *in, const char *file, int excl,
	      int timeout_ms);
int lock_ops(const struct inst *in);
void lock_ops_error(const struct inst *in, int fd);
int inst_running(const struct inst *in);
void lock_release(int fd);

#endif /* UMARM_LOCK_H */
