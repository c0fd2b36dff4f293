/* SPDX-License-Identifier: GPL-2.0-or-later */
/* umarmctl - manage User-Mode Linux instances
 *
 * check.h - what every unit test program prints: "PASS name" or
 *	     "FAIL name: why" per case, counted for the summary line
 */

#ifndef UMARM_TESTS_CHECK_H
#define UMARM_TESTS_CHECK_H

#include <stdio.h>

static int failures, cases;

#define CHECK(name, cond, ...) do {					\
		cases++;						\
		if (cond) {						\
			printf("PASS %s\n", name);			\
		} else {						\
			failures++;					\
			printf("FAIL %s: ", name);			\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

#endif /* UMARM_TESTS_CHECK_H */
