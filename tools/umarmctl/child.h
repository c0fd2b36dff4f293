/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * child.h - the signal state, umask and open-file limit of the programs the
 * supervisor starts
 */

#ifndef UMARM_CHILD_H
#define UMARM_CHILD_H

#include <sys/types.h>

void child_signals_reset(void);
void child_die_with(pid_t parent, int sig);
pid_t child_watch(pid_t target);
void child_umask_keep(void);
void child_umask_restore(void);
void child_nofile_raise(void);

#endif /* UMARM_CHILD_H */
