/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * conffile.h - an instance's configuration file: load and save
 */

#ifndef UMARM_CONFFILE_H
#define UMARM_CONFFILE_H

#include "conf.h"
#include "paths.h"

void conf_missing(const struct inst *in);
int conf_load(const struct inst *in, struct conf *c);
int conf_save(const struct inst *in, const struct conf *c);

#endif /* UMARM_CONFFILE_H */
