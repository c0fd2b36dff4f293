/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * rmtree.h - remove a tree that someone else may be changing
 */

#ifndef UMARM_RMTREE_H
#define UMARM_RMTREE_H

int rmtree_at(int dfd, const char *name);
int rm_rf(const char *path);
int rm_contents(const char *path);

#endif /* UMARM_RMTREE_H */
