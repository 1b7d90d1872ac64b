package auth

import "time"

// SetLimiterClock replaces l's clock, so tests need no sleeps.
func SetLimiterClock(l *Limiter, now func() time.Time) { l.now = now }

// Buckets returns how many keys l holds a bucket for.
func Buckets(l *Limiter) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// Verifications returns how many times kr ran argon2id to check a key.
func Verifications(kr *Keyring) int64 { return kr.verifications.Load() }
