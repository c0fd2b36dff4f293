/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * name.h - instance name rules
 */

#ifndef UMARM_NAME_H
#define UMARM_NAME_H

/* UML's umid buffer is 64 bytes including the NUL: arch/um/os-Linux/umid.c */
#define NAME_MAX_LEN	63

const char *name_check(const char *name);

#endif /* UMARM_NAME_H */
