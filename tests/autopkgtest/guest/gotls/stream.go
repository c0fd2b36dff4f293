// SPDX-License-Identifier: GPL-2.0

package main

import "encoding/binary"

// stream is a xorshift64* byte generator: each connection sends its own
// sequence, cheap enough that the TLS work, not the data, costs the time.
type stream struct{ state uint64 }

// newStream gives connection conn a sequence of its own (never state 0).
func newStream(conn int) *stream {
	return &stream{state: 0x9e3779b97f4a7c15 ^ uint64(conn+1)*0xbf58476d1ce4e5b9}
}

// fill writes the next len(buf) bytes of the sequence (len a multiple of 8).
func (s *stream) fill(buf []byte) {
	x := s.state
	for i := 0; i+8 <= len(buf); i += 8 {
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		binary.LittleEndian.PutUint64(buf[i:], x*0x2545f4914f6cdd1d)
	}
	s.state = x
}
