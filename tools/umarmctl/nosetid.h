/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * nosetid.h - no set-ID bits on host files written for the guest
 */

#ifndef UMARM_NOSETID_H
#define UMARM_NOSETID_H

int nosetid_install(void);
void nosetid_or_exit(void);

#endif /* UMARM_NOSETID_H */
