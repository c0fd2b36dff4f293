/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * sharens.h - hostfs shares in the kernel's own mount namespace
 */

#ifndef UMARM_SHARENS_H
#define UMARM_SHARENS_H

#include <stddef.h>

#include "conf.h"
#include "paths.h"

struct sup;

int shares_table(const struct inst *in, const struct conf *c);
int shares_prepare(const struct inst *in, const struct conf *c);
int shares_check(const struct inst *in, const struct conf *c);
int shares_enter(const struct inst *in, const struct conf *c);
int shares_hot(struct sup *s, const struct conf *c, int i, int add,
	       char *why, size_t len);

#endif /* UMARM_SHARENS_H */
