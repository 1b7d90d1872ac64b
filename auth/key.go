package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/hearth-rpg/hearth/auth/internal/keycheck"
)

// An API key reads hth_<id>_<secret>. The id is not secret: it is how a key
// is found, listed and revoked; only the secret is hashed. Both parts use
// lowercase base32 so the key survives copy and paste, shells and URLs, and
// never contains the separator.
const (
	keyPrefix = "hth_"
	idBytes   = 10 // 80 bits: 16 characters
	idLen     = 16
	secBytes  = 30 // 240 bits: 48 characters
	secLen    = 48
	keyLen    = len(keyPrefix) + idLen + 1 + secLen
)

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newKey returns a fresh key and its parts.
func newKey() (key, id, secret string) {
	var b [idBytes + secBytes]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	id = keyEncoding.EncodeToString(b[:idBytes])
	secret = keyEncoding.EncodeToString(b[idBytes:])
	return keyPrefix + id + "_" + secret, id, secret
}

// parseKey splits a key into its id and secret, refusing anything that is
// not exactly the shape newKey makes.
func parseKey(key string) (id, secret string, err error) {
	rest, ok := strings.CutPrefix(key, keyPrefix)
	if !ok {
		return "", "", fmt.Errorf("%w: it does not start with %q", ErrMalformed, keyPrefix)
	}
	if len(key) != keyLen || rest[idLen] != '_' {
		return "", "", fmt.Errorf("%w: it must be %s followed by %d and %d characters separated by _", ErrMalformed, keyPrefix, idLen, secLen)
	}
	id, secret = rest[:idLen], rest[idLen+1:]
	if !isKeyText(id) || !isKeyText(secret) {
		return "", "", fmt.Errorf("%w: it may hold only a-z and 2-7 after the prefix", ErrMalformed)
	}
	return id, secret, nil
}

// validKeyID reports whether s could be a key id.
func validKeyID(s string) bool { return len(s) == idLen && isKeyText(s) }

func isKeyText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// Params are argon2id's cost parameters. They are stored with every hash,
// so raising them later affects new keys only and old keys keep working.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32 // bytes
	KeyLen  uint32 // bytes of hash
}

// DefaultParams are RFC 9106's second recommended option (64 MiB, 3 passes,
// 4 lanes): about 100–150 ms per hash on a small server, which is why
// Keyring caches successful verifications.
func DefaultParams() Params {
	return Params{Memory: 64 * 1024, Time: 3, Threads: 4, SaltLen: 16, KeyLen: 32}
}

// Bounds on parameters read back from the database, so a damaged or
// tampered row cannot make a verification allocate gigabytes.
const (
	maxMemory  = 1 << 21 // KiB: 2 GiB
	maxTime    = 64
	minSalt    = 8
	maxSalt    = 64
	minHashLen = 16
	maxHashLen = 128
)

func (p Params) validate() error {
	switch {
	case p.Threads < 1:
		return errors.New("argon2id needs at least 1 thread")
	case p.Memory < 8*uint32(p.Threads) || p.Memory > maxMemory:
		return fmt.Errorf("argon2id memory %d KiB is outside 8×threads to %d", p.Memory, maxMemory)
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("argon2id time %d is outside 1 to %d", p.Time, maxTime)
	case p.SaltLen < minSalt || p.SaltLen > maxSalt:
		return fmt.Errorf("argon2id salt length %d is outside %d to %d", p.SaltLen, minSalt, maxSalt)
	case p.KeyLen < minHashLen || p.KeyLen > maxHashLen:
		return fmt.Errorf("argon2id hash length %d is outside %d to %d", p.KeyLen, minHashLen, maxHashLen)
	}
	return nil
}

var b64 = base64.RawStdEncoding.Strict()

// hashSecret hashes secret with a fresh salt into the PHC string format
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash), which carries its parameters.
func hashSecret(secret string, p Params) string {
	salt := make([]byte, p.SaltLen)
	_, _ = rand.Read(salt)
	sum := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return encodeHash(p, salt, sum)
}

func encodeHash(p Params, salt, sum []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(sum))
}

// parseHash reads a PHC string written by encodeHash. It accepts only the
// canonical form, so encodeHash(parseHash(s)) == s.
func parseHash(s string) (p Params, salt, sum []byte, err error) {
	bad := func(why string) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("stored key hash is damaged: %s", why)
	}
	f := strings.Split(s, "$")
	if len(f) != 6 || f[0] != "" || f[1] != "argon2id" {
		return bad("not an argon2id PHC string")
	}
	if f[2] != "v="+strconv.Itoa(argon2.Version) {
		return bad("unsupported argon2 version " + strconv.Quote(f[2]))
	}
	ps := strings.Split(f[3], ",")
	if len(ps) != 3 {
		return bad("want parameters m, t and p")
	}
	var v [3]uint64
	for i, name := range []string{"m=", "t=", "p="} {
		num, ok := strings.CutPrefix(ps[i], name)
		n, err := strconv.ParseUint(num, 10, 32)
		if !ok || err != nil || strconv.FormatUint(n, 10) != num {
			return bad("parameter " + strconv.Quote(ps[i]))
		}
		v[i] = n
	}
	if v[2] > 255 {
		return bad("too many threads")
	}
	if salt, err = b64.DecodeString(f[4]); err != nil {
		return bad("salt is not base64")
	}
	if sum, err = b64.DecodeString(f[5]); err != nil {
		return bad("hash is not base64")
	}
	p = Params{Memory: uint32(v[0]), Time: uint32(v[1]), Threads: uint8(v[2]), SaltLen: uint32(len(salt)), KeyLen: uint32(len(sum))}
	if err := p.validate(); err != nil {
		return bad(err.Error())
	}
	return p, salt, sum, nil
}

// verifySecret reports whether secret matches the stored hash, comparing in
// constant time. idKey is argon2.IDKey but in tests.
func verifySecret(idKey func(secret, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte, secret, stored string) (bool, error) {
	p, salt, sum, err := parseHash(stored)
	if err != nil {
		return false, err
	}
	got := idKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, sum) == 1, nil
}

// quickCheck is the key's check bits (see keycheck.Bits).
func quickCheck(id, secret string) int64 { return keycheck.Bits(id, secret) }

// KeyID returns the id part of an API key, the part that is not secret:
// what a per-key request budget is kept under. Its error wraps ErrMalformed
// when key is not a Hearth API key.
func KeyID(key string) (string, error) {
	id, _, err := parseKey(key)
	return id, err
}
