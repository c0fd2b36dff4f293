// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * sha256.c - SHA-256 (FIPS 180-4), for the integrity of exec jobs
 *
 * exec's job files travel through the exchange directory, which a guest
 * user with the host user's uid can write; the guest's root shell checks
 * them against digests that come over the console (see exec.c).  The
 * guest side is sha256sum (busybox or coreutils); umarmctl links no
 * library, hence this straightforward implementation.
 */

#include <stdio.h>
#include <string.h>

#include "sha256.h"

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

/**
 * sha256_init() - start a digest
 * @c:		state
 */
void sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, h0, sizeof(h0));
	c->len = 0;
}

/**
 * sha256_block() - compress one 64-byte block into the state
 * @c:		state
 * @p:		block
 */
static void sha256_block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], v[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ w[i - 15] >> 3) +
		       (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ w[i - 2] >> 10);
	memcpy(v, c->h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + k[i] + w[i];
		t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		c->h[i] += v[i];
}

/**
 * sha256_update() - hash more data
 * @c:		state
 * @data:	data
 * @len:	its length
 */
void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t used = c->len % 64;

	c->len += len;
	while (len) {
		size_t n = 64 - used < len ? 64 - used : len;

		memcpy(c->buf + used, p, n);
		used += n;
		p += n;
		len -= n;
		if (used == 64) {
			sha256_block(c, c->buf);
			used = 0;
		}
	}
}

/**
 * sha256_hex() - finish a digest, as sha256sum prints it
 * @c:		state, unusable afterwards
 * @hex:	64 lower-case hex digits
 */
void sha256_hex(struct sha256 *c, char hex[SHA256_HEX_LEN])
{
	uint64_t bits = c->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = 64 - (c->len + 8) % 64;
	int i;

	if (padlen == 0)
		padlen = 64;
	for (i = 0; i < 8; i++)
		pad[padlen + i] = bits >> (56 - 8 * i);
	sha256_update(c, pad, padlen + 8);
	for (i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", c->h[i]);
}
