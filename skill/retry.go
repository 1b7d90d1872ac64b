package skill

import (
	"fmt"
	"time"
)

// RetryPolicy is how often and how patiently a failed tool is retried
// (seed 001 §2.2.1).
type RetryPolicy struct {
	MaxRetries int `json:"maxRetries" yaml:"maxRetries" jsonschema:"retries after the first failure"`
	BackoffMs  int `json:"backoffMs" yaml:"backoffMs" jsonschema:"base delay in milliseconds; retry n waits backoffMs × 2^(n−1)"`
}

// DefaultRetryPolicy is the seed's default: 3 retries from 100 ms.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, BackoffMs: 100}

// Limits of a retry policy, so a plan cannot stall a turn.
const (
	MaxRetries   = 10
	MaxBackoffMs = 60_000
)

// Validate checks the policy is within limits.
func (p RetryPolicy) Validate() error {
	if p.MaxRetries < 0 || p.MaxRetries > MaxRetries {
		return fmt.Errorf("maxRetries %d is outside 0–%d", p.MaxRetries, MaxRetries)
	}
	if p.BackoffMs < 0 || p.BackoffMs > MaxBackoffMs {
		return fmt.Errorf("backoffMs %d is outside 0–%d", p.BackoffMs, MaxBackoffMs)
	}
	return nil
}

// Delay is the wait before retry number attempt (1-based):
// backoffMs × 2^(attempt−1).
func (p RetryPolicy) Delay(attempt int) time.Duration {
	if attempt < 1 || p.BackoffMs <= 0 {
		return 0
	}
	shift := min(attempt-1, 20) // 60 s × 2^20 still fits a Duration
	return time.Duration(p.BackoffMs) * time.Millisecond << shift
}
