// SPDX-License-Identifier: GPL-2.0

package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

const chunkSize = 32 << 10

// serve handles one connection: an 8-byte length, that many bytes hashed as
// they arrive, then the SHA-256 of what arrived written back.  plant flips
// one received byte before hashing, as a kernel corrupting a buffer would.
func serve(raw net.Conn, cfg *tls.Config, plant bool) error {
	c := tls.Server(raw, cfg)
	defer c.Close()
	var hdr [8]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return fmt.Errorf("server: reading the length: %w", err)
	}
	left := binary.LittleEndian.Uint64(hdr[:])
	h := sha256.New()
	buf := make([]byte, chunkSize)
	for left > 0 {
		n := uint64(len(buf))
		if left < n {
			n = left
		}
		got, err := io.ReadFull(c, buf[:n])
		if err != nil {
			return fmt.Errorf("server: reading data with %d bytes left: %w", left, err)
		}
		if plant {
			buf[0] ^= 1
			plant = false
		}
		h.Write(buf[:got])
		left -= uint64(got)
	}
	_, err := c.Write(h.Sum(nil))
	return err
}

// send is one client connection: it sends size bytes of its own stream and
// checks that the server's SHA-256 of what it received is the SHA-256 of
// what was sent.
func send(addr string, cfg *tls.Config, conn int, size uint64) error {
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return fmt.Errorf("conn=%d dial: %w", conn, err)
	}
	defer c.Close()
	var hdr [8]byte
	binary.LittleEndian.PutUint64(hdr[:], size)
	if _, err := c.Write(hdr[:]); err != nil {
		return fmt.Errorf("conn=%d writing the length: %w", conn, err)
	}
	s := newStream(conn)
	h := sha256.New()
	buf := make([]byte, chunkSize)
	for left := size; left > 0; {
		n := uint64(len(buf))
		if left < n {
			n = left
		}
		s.fill(buf)
		h.Write(buf[:n])
		if _, err := c.Write(buf[:n]); err != nil {
			return fmt.Errorf("conn=%d writing with %d bytes left: %w", conn, left, err)
		}
		left -= n
	}
	var got [sha256.Size]byte
	if _, err := io.ReadFull(c, got[:]); err != nil {
		return fmt.Errorf("conn=%d reading the server's digest: %w", conn, err)
	}
	if want := h.Sum(nil); !bytes.Equal(want, got[:]) {
		return fmt.Errorf("conn=%d sha256 sent=%x received=%x", conn, want, got)
	}
	return nil
}
