package auth

// Buckets returns how many keys l holds a bucket for.
func Buckets(l *Limiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// Verifications returns how many times kr ran argon2id to check a key,
// against a dummy hash too.
func Verifications(kr *Keyring) int64 { return kr.hashes.Load() }

// SetIDKey replaces argon2.IDKey, before kr is used.
func SetIDKey(kr *Keyring, f func(secret, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte) {
	kr.idKey = f
}

// QuickCheck is quickCheck.
func QuickCheck(id, secret string) int64 { return quickCheck(id, secret) }
