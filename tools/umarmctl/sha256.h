/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * sha256.h - SHA-256 (FIPS 180-4), for the integrity of exec jobs
 */

#ifndef UMARM_SHA256_H
#define UMARM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN	65	/* 64 digits and a NUL */

/**
 * struct sha256 - hashing state
 * @h:		chaining value
 * @len:	bytes hashed so far
 * @buf:	partial block
 */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_hex(struct sha256 *c, char hex[SHA256_HEX_LEN]);

#endif /* UMARM_SHA256_H */
