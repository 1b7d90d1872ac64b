package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrorKind says what went wrong with a model call, which decides whether
// trying again can help.
type ErrorKind string

// Error kinds.
const (
	Unreachable ErrorKind = "unreachable"  // no connection to the server
	RateLimited ErrorKind = "rate_limited" // 429
	Overloaded  ErrorKind = "overloaded"   // 5xx, Anthropic's 529
	Timeout     ErrorKind = "timeout"      // the call took too long
	BadRequest  ErrorKind = "bad_request"  // 400, 404, 422: our request is wrong
	Auth        ErrorKind = "auth"         // 401, 403: key missing or refused
	Malformed   ErrorKind = "malformed"    // the server's answer could not be read
)

// Error is a failed model call. Providers return it (wrapped or not) so
// that wrappers can decide on retries without knowing the provider.
type Error struct {
	Provider   string
	Kind       ErrorKind
	Status     int           // HTTP status; 0 when there was none
	RetryAfter time.Duration // what the server asked for, if anything
	Message    string
	Err        error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s: %s (HTTP %d): %s", e.Provider, e.Kind, e.Status, msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Provider, e.Kind, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Transient reports whether the same call may succeed later.
func (e *Error) Transient() bool {
	switch e.Kind {
	case Unreachable, RateLimited, Overloaded, Timeout:
		return true
	}
	return false
}

// IsTransient reports whether err is a model error worth retrying.
func IsTransient(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Transient()
}

// KindOfStatus maps an HTTP status to an error kind.
func KindOfStatus(status int) ErrorKind {
	switch {
	case status == 429:
		return RateLimited
	case status == 401 || status == 403:
		return Auth
	case status == 408:
		return Timeout
	case status >= 500:
		return Overloaded
	case status >= 400:
		return BadRequest
	}
	return Malformed
}

// StatusError builds the Error for an HTTP failure.
func StatusError(provider string, status int, msg string, err error) *Error {
	return &Error{Provider: provider, Kind: KindOfStatus(status), Status: status, Message: msg, Err: err}
}

// Classify turns an error without an HTTP status (a transport failure, a
// deadline, a decoding failure) into an Error. It returns err unchanged
// when it is already an Error or the caller's context was cancelled.
func Classify(provider string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Provider: provider, Kind: Timeout, Err: err}
	case errors.As(err, &opErr), errors.As(err, &netErr) && netErr.Timeout():
		return &Error{Provider: provider, Kind: Unreachable, Err: err}
	}
	return &Error{Provider: provider, Kind: Malformed, Err: err}
}
