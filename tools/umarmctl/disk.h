/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * disk.h - ubd images, COW overlays, locks held by UML
 */

#ifndef UMARM_DISK_H
#define UMARM_DISK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "paths.h"

void disk_abs(const struct inst *in, const char *file, char *out);
pid_t disk_locked_by(const char *path);
int owner_of_pid(const struct scope *sc, pid_t pid, char *name, size_t len);
void disk_owner_msg(const struct inst *in, pid_t pid, char *msg, size_t len);
int disk_check(const struct inst *in, const struct conf *c, int report);
int disk_create(const char *path, uint64_t size);

#endif /* UMARM_DISK_H */
