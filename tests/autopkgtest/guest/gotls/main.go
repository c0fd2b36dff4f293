// SPDX-License-Identifier: GPL-2.0

// gotls moves data through crypto/tls over loopback TCP inside one static
// program while CPU-bound goroutines force Go's signal-based preemption, for
// UML guests: a kernel that loses registers, FP/SIMD state or TLS across
// signals and thread switches corrupts the cipher streams or the digests.
//
// Usage: gotls [-bytes N] [-conns C] [-spinners S]
//
// An in-memory self-signed ECDSA P-256 certificate serves 127.0.0.1; C
// client connections send N bytes in all (each its own xorshift stream) and
// compare the SHA-256 of what they sent with the server's SHA-256 of what it
// received.  S goroutines (default GOMAXPROCS) spin without a function call
// meanwhile.  Prints GOTLS-OK bytes=N conns=C ... or GOTLS-FAIL ....
// GOTLS_PLANT=1 flips one received byte on the server: the run must fail.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	total := flag.Uint64("bytes", 64<<20, "bytes to move in all (at least 1 per connection)")
	conns := flag.Int("conns", 4, "concurrent TLS connections")
	spinners := flag.Int("spinners", -1, "CPU-bound goroutines (-1: GOMAXPROCS)")
	flag.Parse()
	if *conns < 1 || *total < uint64(*conns) {
		fmt.Fprintln(os.Stderr, "gotls: -conns must be >= 1 and -bytes >= -conns")
		os.Exit(2)
	}
	if *spinners < 0 {
		*spinners = runtime.GOMAXPROCS(0)
	}
	plant := os.Getenv("GOTLS_PLANT") == "1"
	fmt.Printf("gotls: %d bytes over %d connections, %d spinners, GOMAXPROCS=%d, %s%s\n",
		*total, *conns, *spinners, runtime.GOMAXPROCS(0), runtime.Version(),
		map[bool]string{true: ", planted fault on", false: ""}[plant])
	start := time.Now()
	spun, err := run(*total, *conns, *spinners, plant)
	secs := time.Since(start).Seconds()
	if err != nil {
		fmt.Printf("GOTLS-FAIL %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("GOTLS-OK bytes=%d conns=%d spinners=%d spin_iterations=%d seconds=%.1f MBps=%.1f\n",
		*total, *conns, *spinners, spun, secs, float64(*total)/secs/1e6)
}

// run starts the server, the spinners and the clients, and waits for all:
// the first error of any side, or the spinners' iteration count.
func run(total uint64, conns, spinners int, plant bool) (uint64, error) {
	cert, pool, err := selfSigned()
	if err != nil {
		return 0, fmt.Errorf("certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	srvCfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	cliCfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}

	var stop atomic.Bool
	var spun atomic.Uint64
	var spinWG sync.WaitGroup
	for i := 0; i < spinners; i++ {
		spinWG.Add(1)
		go func() { defer spinWG.Done(); spinner(&stop, &spun) }()
	}

	errs := make(chan error, 2*conns)
	var wg sync.WaitGroup
	wg.Add(2 * conns)
	go func() {
		for i := 0; i < conns; i++ {
			raw, err := ln.Accept()
			if err != nil {
				errs <- fmt.Errorf("accept: %w", err)
				for ; i < conns; i++ {
					wg.Done()
				}
				return
			}
			go func(p bool) { defer wg.Done(); errs <- serve(raw, srvCfg, p) }(plant && i == 0)
		}
	}()
	for i := 0; i < conns; i++ {
		size := total / uint64(conns)
		if i == 0 {
			size += total % uint64(conns)
		}
		go func(i int, size uint64) { defer wg.Done(); errs <- send(ln.Addr().String(), cliCfg, i, size) }(i, size)
	}
	wg.Wait()
	stop.Store(true)
	spinWG.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return spun.Load(), nil
}
