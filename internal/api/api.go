package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/i18n"
)

// Error codes: the domain's, and two that only HTTP has.
const (
	Invalid      = hearth.Invalid
	Unauthorized = hearth.Unauthorized
	Forbidden    = hearth.Forbidden
	NotFound     = hearth.NotFound
	Conflict     = hearth.Conflict
	Unavailable  = hearth.Unavailable
	Internal     = hearth.Internal

	TooLarge    hearth.Code = "too_large"
	RateLimited hearth.Code = "rate_limited"
)

// Status maps an error code onto its HTTP status: the one place that does.
func Status(code hearth.Code) int {
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

// ErrorBody is the JSON body of every error response. RequestID is set on
// internal errors, so that a user can quote it and an operator find the
// details in the log.
type ErrorBody struct {
	Error struct {
		Code      hearth.Code `json:"code"`
		Message   string      `json:"message"`
		RequestID string      `json:"request_id,omitempty"`
	} `json:"error"`
}

type requestIDKey struct{}

// WithRequestID tags ctx with the id of the request it belongs to.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
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
func Error(w http.ResponseWriter, r *http.Request, code hearth.Code, msgID string, data map[string]any) {
	ErrorText(w, code, i18n.From(r.Context()).T(msgID, data))
}

// ErrorText writes an error response with an already localized message.
func ErrorText(w http.ResponseWriter, code hearth.Code, message string) {
	var b ErrorBody
	b.Error.Code, b.Error.Message = code, message
	JSON(w, Status(code), b)
}

// InternalError answers that the request failed inside the server: the
// message says no more than that and the request id. The caller logs the
// details.
func InternalError(w http.ResponseWriter, r *http.Request) {
	id := RequestID(r.Context())
	var b ErrorBody
	b.Error.Code, b.Error.RequestID = Internal, id
	if id == "" {
		id = "-"
	}
	b.Error.Message = i18n.From(r.Context()).T("error.internal", map[string]any{"RequestID": id})
	JSON(w, Status(Internal), b)
}

// Say words some errors in the catalog, for a handler that knows better
// words than the domain's: message ID with Data, which also gets the
// domain's message as .Reason. It applies to the errors of Code, or to
// those matching Is (errors.Is), or both when both are set. It never
// changes an error's code or status.
type Say struct {
	Code hearth.Code
	Is   error
	ID   string
	Data map[string]any
}

func (s Say) applies(err error, code hearth.Code) bool {
	return (s.Code != "" || s.Is != nil) && (s.Code == "" || s.Code == code) && (s.Is == nil || errors.Is(err, s.Is))
}

// Localized is an error that names its own catalog message.
type Localized interface {
	error
	Localize() (id string, data map[string]any)
}

// Fail answers a request that failed with err, by err's code (see
// hearth.ErrorCode): the status Status gives, and the first of these
// messages that applies: the error's own catalog message (Localized),
// the handler's first Say that applies, the domain's safe message. Internal
// errors are logged with their details and answered with InternalError.
// A request its client abandoned gets no answer.
func Fail(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error, says ...Say) {
	ctx := r.Context()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		log.DebugContext(ctx, "request abandoned", "method", r.Method, "path", r.URL.Path)
		return
	}
	code := hearth.ErrorCode(err)
	if code == Internal {
		log.ErrorContext(ctx, "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		InternalError(w, r)
		return
	}
	log.DebugContext(ctx, "request refused", "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	var l Localized
	if errors.As(err, &l) {
		id, data := l.Localize()
		Error(w, r, code, id, data)
		return
	}
	for _, s := range says {
		if !s.applies(err, code) {
			continue
		}
		data := map[string]any{"Reason": hearth.ErrorMessage(err)}
		for k, v := range s.Data {
			data[k] = v
		}
		Error(w, r, code, s.ID, data)
		return
	}
	ErrorText(w, code, hearth.ErrorMessage(err))
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
