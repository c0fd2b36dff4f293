/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * image.h - base images by name or file
 */

#ifndef UMARM_IMAGE_H
#define UMARM_IMAGE_H

int image_resolve(const char *image, char *out);
const char *image_arch(void);
const char *image_kind(const char *path);

#endif /* UMARM_IMAGE_H */
