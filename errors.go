package hearth

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies an error by what its caller can do about it. Every door
// maps codes in one place: HTTP statuses in internal/api, MCP tool errors
// in mcp, exit statuses in cmd/hearth.
type Code string

// The error codes.
const (
	NotFound     Code = "not_found"    // the thing asked for does not exist (or is not visible to the caller)
	Invalid      Code = "invalid"      // the request is malformed or breaks a rule; the caller must change it
	Unauthorized Code = "unauthorized" // the caller is not known
	Forbidden    Code = "forbidden"    // the caller is known but may not do this
	Conflict     Code = "conflict"     // the request clashes with the current state (exists, busy, not paused)
	Unavailable  Code = "unavailable"  // a dependency or the server is not able to serve now; retry later
	Internal     Code = "internal"     // a bug or failure the caller cannot fix; details go to the log only
)

// Error is a domain error: a code, a message safe to show to whoever made
// the request, and the cause for the log.
//
// A sentinel is a package-level *Error compared by identity with
// errors.Is; a sentinel with a Code and nothing else matches every error
// of that code.
type Error struct {
	Code    Code
	Message string
	Err     error

	// formatted is what Errorf's %w verbs wrapped: reachable through
	// Unwrap, and already part of Message.
	formatted error
}

// Error is the message, followed by the cause when there is one.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = string(e.Code)
	}
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return e.formatted
}

// Is makes a code-only sentinel (&Error{Code: c}) match every error of
// code c; other sentinels match by identity.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Err == nil && t.formatted == nil && t.Code == e.Code
}

// Errorf is an error of code whose message is format filled in. A %w verb
// wraps its operand as fmt.Errorf does, so errors.Is and As see it; its
// text becomes part of the message, which must therefore be safe to show.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Code: code, Message: err.Error()}
	switch err.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		e.formatted = err
	}
	return e
}

// ErrorCode is the code of the outermost *Error in err's chain: "" for
// nil, Internal when there is none.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	return Internal
}

// ErrorMessage is what may be shown about err to whoever made the
// request: the message of the outermost *Error in its chain, without the
// context wrapped around it or the cause below it. Internal errors and
// errors without a code say only "internal error".
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) || e.Code == "" || e.Code == Internal {
		return "internal error"
	}
	if e.Message == "" {
		return strings.ReplaceAll(string(e.Code), "_", " ")
	}
	return e.Message
}
