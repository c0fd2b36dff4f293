/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * confjson.h - an instance's configuration as JSON
 */

#ifndef UMARM_CONFJSON_H
#define UMARM_CONFJSON_H

#include "conf.h"

void conf_share_json(const struct conf *c, int i);
void conf_json(const struct conf *c, const char *name, const char *file,
	       const char *flavour);

#endif /* UMARM_CONFJSON_H */
