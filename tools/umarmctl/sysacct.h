/* SPDX-License-Identifier: GPL-2.0-or-later */
/* umarmctl - manage User-Mode Linux instances
 *
 * sysacct.h - the account system instances run under
 */

#ifndef UMARM_SYSACCT_H
#define UMARM_SYSACCT_H

#include "paths.h"

/* The account umarm@.service runs system instances as (debian/postinst) */
#define SYSACCT_DEFAULT	"_umarm"

const char *sysacct_name(void);
int sysacct_warn_root(const struct inst *in);
int sysacct_drop(const struct inst *in);
int sysacct_dir_access(const struct inst *in, const char *dir,
		       const char **who);

#endif /* UMARM_SYSACCT_H */
