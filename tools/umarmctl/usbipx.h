/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * usbipx.h - the host side of one USB/IP import, instead of usbipd
 */

#ifndef UMARM_USBIPX_H
#define UMARM_USBIPX_H

#include <sys/types.h>

#define USBIP_PORT	3240

const char *usb_sysfs(void);
int usbipx_listen(void);
int usbipx_serve(int lfd, const char *busid, const pid_t *peers,
		 int npeers, int timeout_ms);

#endif /* UMARM_USBIPX_H */
