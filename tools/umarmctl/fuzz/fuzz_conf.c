// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * fuzz_conf.c - libFuzzer harness for the configuration parser
 *
 * Parses the input; on success, formats the result and parses that again,
 * which must succeed and give the same text (the writer and the reader
 * agree on every configuration the reader accepts).  Build and run with
 * "make fuzz"; the seed corpus is fuzz/corpus/.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/**
 * LLVMFuzzerTestOneInput() - one fuzzing iteration
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char a[CONF_MAX_SIZE], b[CONF_MAX_SIZE];
	struct conf_error e;
	struct conf c, d;
	int n, m;

	conf_defaults(&c);
	if (conf_parse(&c, (const char *)data, size, &e))
		return 0;
	n = conf_format(&c, a, sizeof(a));
	if (n < 0)
		abort();
	conf_defaults(&d);
	if (conf_parse(&d, a, n, &e))
		abort();
	m = conf_format(&d, b, sizeof(b));
	if (m != n || memcmp(a, b, n))
		abort();
	return 0;
}
