/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * helpers.h - passt and virtiofsd as this host has them
 */

#ifndef UMARM_HELPERS_H
#define UMARM_HELPERS_H

#define PASST_BIN	"/usr/bin/passt"
/* the AppArmor profile umarmctl runs PASST_BIN under, and its file */
#define AA_PROFILE	"umarm-passt"
#define AA_PROFILE_FILE	"/etc/apparmor.d/" AA_PROFILE
/* what a failed passt_userns_ok() means, after its strerror() */
#define PASST_NO_USERNS							\
	": passt isolates itself in a user namespace and this host refuses one (a chroot, user.max_user_namespaces = 0, kernel.unprivileged_userns_clone = 0 or a container policy)"

const char *passt_bin(void);
int passt_has_vhost_user(void);
int passt_userns_ok(void);
int apparmor_enabled(void);
int passt_apparmor(void);
void passt_confine(void);
const char *vfsd_bin(void);

#endif /* UMARM_HELPERS_H */
