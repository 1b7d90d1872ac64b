package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hearth-rpg/hearth/i18n"
)

// Application error codes.
const (
	Invalid      = "invalid"
	Unauthorized = "unauthorized"
	Forbidden    = "forbidden"
	NotFound     = "not_found"
	Conflict     = "conflict"
	TooLarge     = "too_large"
	RateLimited  = "rate_limited"
	Unavailable  = "unavailable"
	Internal     = "internal"
)

// Status maps an application code onto its HTTP status.
func Status(code string) int {
	switch code {
	case Invalid:
		return http.StatusBadRequest
	case Unauthorized:
		return http.StatusUnauthorized
	case Forbidden:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case Conflict:
		return http.StatusConflict
	case TooLarge:
		return http.StatusRequestEntityTooLarge
	case RateLimited:
		return http.StatusTooManyRequests
	case Unavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// JSON writes v with status.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		slog.Debug("write response", "err", err)
	}
}

// Error writes an error response whose message is catalog message msgID in
// the request's language (see i18n.From).
func Error(w http.ResponseWriter, r *http.Request, code, msgID string, data map[string]any) {
	ErrorText(w, code, i18n.From(r.Context()).T(msgID, data))
}

// ErrorText writes an error response with an already localized message.
func ErrorText(w http.ResponseWriter, code, message string) {
	var b ErrorBody
	b.Error.Code, b.Error.Message = code, message
	JSON(w, Status(code), b)
}

// Internal logs err with the request and answers with a generic message:
// internal details are for the log, never for the client.
func InternalError(w http.ResponseWriter, r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	Error(w, r, Internal, "error.internal", nil)
}

// DecodeError is a request body that could not be read as the JSON expected.
type DecodeError struct {
	TooLarge bool
	Err      error
}

func (e *DecodeError) Error() string { return e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// Decode reads r's JSON body into v, refusing bodies over limit bytes,
// unknown fields and trailing data.
func Decode(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var syntax *json.SyntaxError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			return &DecodeError{TooLarge: true, Err: fmt.Errorf("the request body is larger than %d bytes", limit)}
		case errors.Is(err, io.EOF):
			return &DecodeError{Err: errors.New("the request body is empty; send a JSON object")}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return &DecodeError{Err: errors.New("the request body is not valid JSON: it ends before its JSON object does")}
		case errors.As(err, &syntax):
			return &DecodeError{Err: fmt.Errorf("the request body is not valid JSON at byte %d: %v", syntax.Offset, err)}
		case errors.As(err, &typeErr):
			return &DecodeError{Err: fmt.Errorf("field %q must be %s, not %s", typeErr.Field, typeErr.Type, typeErr.Value)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return &DecodeError{Err: fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))}
		default:
			return &DecodeError{Err: fmt.Errorf("read the request body: %w", err)}
		}
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &DecodeError{TooLarge: true, Err: fmt.Errorf("the request body is larger than %d bytes", limit)}
		}
		return &DecodeError{Err: errors.New("the request body has data after its JSON object")}
	}
	return nil
}

// DecodeOrError is Decode that answers the client itself on failure and
// reports whether the handler should go on.
func DecodeOrError(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	err := Decode(w, r, v, limit)
	if err == nil {
		return true
	}
	var de *DecodeError
	if errors.As(err, &de) && de.TooLarge {
		Error(w, r, TooLarge, "error.body_too_large", map[string]any{"Limit": limit})
		return false
	}
	Error(w, r, Invalid, "error.bad_body", map[string]any{"Reason": err.Error()})
	return false
}
