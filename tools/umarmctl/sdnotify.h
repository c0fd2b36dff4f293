/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * sdnotify.h - systemd readiness notification, without libsystemd
 */

#ifndef UMARM_SDNOTIFY_H
#define UMARM_SDNOTIFY_H

int sd_notify_msg(const char *msg);
int under_systemd(void);

#endif /* UMARM_SDNOTIFY_H */
