/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * host.h - what the host offers: page size, kernels, images, checks
 */

#ifndef UMARM_HOST_H
#define UMARM_HOST_H

#include "conf.h"

#define KERNEL_DIR	"/usr/lib/uml/linux-uml-arm64"
#define IMAGE_DIR	"/usr/share/umarm/images"

const char *host_default_flavour(void);
const char *conf_flavour(const struct conf *c);
int flavour_page_size(const char *flavour);
int flavour_check(const char *name, const char *flavour);
void cpus_warn(const char *name, const char *conf, const struct conf *c);
int kernel_path(const struct conf *c, char *buf);
int kernel_check(const char *name, const struct conf *c, char *buf);
int kernel_config_opt(const char *kernel, const char *opt);
int kernel_virtio_net(const char *kernel);
int vfsd_usable(const char *name, const struct conf *c);
int host_check(int verbose);
void host_check_json(void);

#endif /* UMARM_HOST_H */
