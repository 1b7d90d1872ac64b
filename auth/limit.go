package auth

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Default request rate per key: the seed's 60 a minute, with room for a
// client that fires a few requests at once.
const (
	DefaultPerMinute = 60
	DefaultBurst     = 10
)

// minIdle is the least time a key's bucket is kept after its last request.
const minIdle = 10 * time.Minute

// Limiter is a token bucket per API key. A nil *Limiter allows everything.
// Buckets of keys idle long enough to have refilled are dropped, so memory
// follows the keys in use, not every key ever seen.
type Limiter struct {
	limit rate.Limit
	burst int
	idle  time.Duration
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewLimiter allows each key perMinute requests a minute on average and
// burst at once. perMinute ≤ 0 means no limit (a nil Limiter).
func NewLimiter(perMinute float64, burst int) *Limiter {
	if perMinute <= 0 {
		return nil
	}
	burst = max(burst, 1)
	limit := rate.Limit(perMinute / 60)
	// A bucket idle this long is full again, so dropping it changes nothing.
	refill := time.Duration(float64(burst) / float64(limit) * float64(time.Second))
	return &Limiter{limit: limit, burst: burst, idle: max(minIdle, refill), now: time.Now, buckets: map[string]*bucket{}}
}

// SetClock replaces time.Now for l (nil: nothing to set), so a Keyring's
// clock, or a test's, drives its buckets. Set it before l is used.
func (l *Limiter) SetClock(now func() time.Time) {
	if l != nil {
		l.now = now
	}
}

// Allow takes one request from key's bucket. When the bucket is empty it
// reports how long until a request would be allowed, at least a second.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.swept) >= l.idle {
		l.sweep(now)
	}
	b, found := l.buckets[key]
	if !found {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	l.mu.Unlock()
	if b.lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.lim.TokensAt(now)
	secs := math.Ceil(missing / float64(l.limit))
	return false, time.Duration(max(secs, 1)) * time.Second
}

// sweep drops buckets idle for l.idle. Called with l.mu held, at most once
// per l.idle, so its cost is spread over many requests.
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= l.idle {
			delete(l.buckets, k)
		}
	}
	l.swept = now
}

// Blocked reports, without taking anything, whether key's bucket is empty
// and how long until it holds a request again.
func (l *Limiter) Blocked(key string) (bool, time.Duration) {
	if l == nil {
		return false, 0
	}
	now := l.now()
	l.mu.Lock()
	b, found := l.buckets[key]
	l.mu.Unlock()
	if !found {
		return false, 0
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return false, 0
	}
	secs := math.Ceil((1 - tokens) / float64(l.limit))
	return true, time.Duration(max(secs, 1)) * time.Second
}
