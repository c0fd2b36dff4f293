// SPDX-License-Identifier: GPL-2.0

package main

import "sync/atomic"

// spinner loops without a function call (so without a cooperative
// preemption point) until stop is set: with as many spinners as Ps, the
// TLS goroutines only run when the runtime preempts a spinner with a signal
// (SIGURG, Go's asynchronous preemption), which the guest kernel must
// deliver and return from with every register intact.
func spinner(stop *atomic.Bool, iterations *atomic.Uint64) {
	x := uint64(1)
	var n uint64
	for !stop.Load() {
		x = x*6364136223846793005 + 1442695040888963407
		n++
		if n&0xfffff == 0 {
			iterations.Add(0x100000)
		}
	}
	iterations.Add(n & 0xfffff)
	if x == 0 {
		println("unreachable")
	}
}
