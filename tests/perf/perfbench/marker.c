// SPDX-License-Identifier: GPL-2.0
/*
 * marker.c - the marker mode: windows an outside tracer can count in
 *
 * For the host-syscall census (tests/perf/run --census) a tracer attaches
 * to the UML processes only while the guest runs one case, and once more
 * for an idle window of the same length whose counts (timer ticks, the
 * polling below) are subtracted.  Per case:
 *
 *   PERFBENCH-BEGIN case ops=N        the tracer attaches, then creates
 *                                     ACKDIR/case.go
 *   (pause) measured rounds (pause)
 *   PERFBENCH-END case window_ns=W    the tracer detaches
 *   PERFBENCH-IDLE-BEGIN case         the tracer attaches, creates
 *                                     ACKDIR/case.idle
 *   (sleep W)
 *   PERFBENCH-IDLE-END case           the tracer detaches, then creates
 *                                     ACKDIR/case.done
 *
 * The pauses let the guest settle after the handshake, and both windows
 * contain the same handshake and pauses.  The guest waits for case.done
 * before the next case's warm-up: a tracer that reads the console late
 * would count that warm-up into the idle window.  ACKDIR "-" waits for
 * nothing (time-based attaching).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "perfbench.h"

/* how often the guest looks for the tracer's file, and for how long */
#define ACK_POLL_NS	(20 * 1000 * 1000ull)
#define ACK_TIMEOUT_NS	(900 * 1000000000ull)

/**
 * wait_for_ack() - wait until the tracer created ACKDIR/CASE.SUFFIX
 * @ackdir:	directory the tracer writes to ("-": do not wait)
 * @name:	case
 * @suffix:	"go", "idle" or "done"
 *
 * Return: 0, or -ETIMEDOUT after ACK_TIMEOUT_NS
 */
static int wait_for_ack(const char *ackdir, const char *name,
			const char *suffix)
{
	uint64_t deadline = now_ns() + ACK_TIMEOUT_NS;
	char path[PATH_MAX];

	if (ackdir[0] == '-' && !ackdir[1])
		return 0;
	snprintf(path, sizeof(path), "%s/%s.%s", ackdir, name, suffix);
	while (access(path, F_OK)) {
		if (now_ns() > deadline) {
			printf("PERFBENCH-ERROR no %s from the tracer\n", path);
			fflush(stdout);
			return -ETIMEDOUT;
		}
		sleep_ns(ACK_POLL_NS);
	}
	return 0;
}

/**
 * marker_begin() - open a case's counted window
 * @name:	case
 * @ops:	operations the window will run (all its rounds)
 * @ackdir:	see wait_for_ack()
 * @pause_ns:	settling time after the handshake
 * @start:	set to when the window began (for the idle window's length)
 *
 * Return: 0, or -ETIMEDOUT when no tracer answered
 */
int marker_begin(const char *name, long ops, const char *ackdir,
		 uint64_t pause_ns, uint64_t *start)
{
	int err;

	printf("PERFBENCH-BEGIN %s ops=%ld\n", name, ops);
	fflush(stdout);
	err = wait_for_ack(ackdir, name, "go");
	*start = now_ns();
	sleep_ns(pause_ns);
	return err;
}

/**
 * marker_end() - close a case's window, then run its idle window of the
 * same length
 * @name:	case
 * @ackdir:	see wait_for_ack()
 * @pause_ns:	settling time before the end marker
 * @start:	what marker_begin() returned
 *
 * Return: 0, or -ETIMEDOUT when no tracer answered
 */
int marker_end(const char *name, const char *ackdir, uint64_t pause_ns,
	       uint64_t start)
{
	uint64_t window;
	int err;

	sleep_ns(pause_ns);
	window = now_ns() - start;
	printf("PERFBENCH-END %s window_ns=%llu\n", name,
	       (unsigned long long)window);
	printf("PERFBENCH-IDLE-BEGIN %s\n", name);
	fflush(stdout);
	err = wait_for_ack(ackdir, name, "idle");
	sleep_ns(window);
	printf("PERFBENCH-IDLE-END %s\n", name);
	fflush(stdout);
	return err ? err : wait_for_ack(ackdir, name, "done");
}
