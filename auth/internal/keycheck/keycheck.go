// Package keycheck computes an API key's check bits, shared by package auth
// and its conformance suite so both agree on them without auth exporting
// the formula.
package keycheck

import (
	"crypto/sha256"
	"encoding/binary"
)

// Bits is 16 bits of a SHA-256 of the key: a wrong secret matches a key's
// stored bits once in 65,536 tries, so while the key is throttled almost
// every wrong one is refused without an argon2id hash. Against a 240-bit
// random secret, 16 bits known help no one.
func Bits(id, secret string) int64 {
	sum := sha256.Sum256([]byte("hearth key check\x00" + id + "\x00" + secret))
	return int64(binary.BigEndian.Uint16(sum[:2]))
}
