package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/i18n"
)

type body struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		tooLarge bool
	}{
		{`{"query":"x","limit":2}`, "", false},
		{``, "empty", false},
		{`{"query":`, "not valid JSON", false},
		{`{"query":1}`, `field "query" must be string`, false},
		{`{"qeury":"x"}`, `unknown field "qeury"`, false},
		{`{"query":"x"} {}`, "after its JSON object", false},
		{`{"query":"` + strings.Repeat("a", 100) + `"}`, "larger than 64 bytes", true},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.in))
		var b body
		err := Decode(httptest.NewRecorder(), r, &b, 64)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		case err != nil:
			if de, ok := err.(*DecodeError); !ok || de.TooLarge != tc.tooLarge {
				t.Errorf("%q: %#v, too large %v", tc.in, err, tc.tooLarge)
			}
		}
	}
}

func TestErrorBodyAndStatus(t *testing.T) {
	c := i18n.MustLoad()
	for code, status := range map[hearth.Code]int{Invalid: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, Conflict: 409,
		TooLarge: 413, RateLimited: 429, Unavailable: 503, Internal: 500, "anything else": 500} {
		if got := Status(code); got != status {
			t.Errorf("Status(%s) = %d, want %d", code, got, status)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(i18n.With(r.Context(), c.For("de")))
	w := httptest.NewRecorder()
	Error(w, r, TooLarge, "error.body_too_large", map[string]any{"Limit": 10})
	var e ErrorBody
	if err := json.NewDecoder(w.Body).Decode(&e); err != nil || w.Code != http.StatusRequestEntityTooLarge ||
		e.Error.Code != TooLarge || e.Error.Message != "Der Anfragetext ist größer als 10 Bytes." {
		t.Fatalf("%d %+v %v", w.Code, e, err)
	}
}

// FuzzDecode: any body is decoded or refused with a DecodeError, never a
// panic, and what is accepted is a whole, known-field object.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"query":"x","limit":2}`, `{}`, `[]`, `null`, `{"query":"\u00e9"}`, `{"limit":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := httptest.NewRequest("POST", "/", strings.NewReader(in))
		var b body
		err := Decode(httptest.NewRecorder(), r, &b, 1<<10)
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("%q: %T %v", in, err, err)
			}
			return
		}
		if !json.Valid([]byte(in)) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
	})
}

// localized is an error that names its own catalog message, as the game
// API's problems do.
type localized struct{ code hearth.Code }

func (l localized) Error() string { return "too big" }
func (l localized) Unwrap() error { return &hearth.Error{Code: l.code} }
func (l localized) Localize() (string, map[string]any) {
	return "error.body_too_large", map[string]any{"Limit": 7}
}

func TestFail(t *testing.T) {
	notFound := &hearth.Error{Code: hearth.NotFound, Message: "conversation not found"}
	says := []Say{{Code: hearth.NotFound, ID: "error.bad_body"}, {Code: hearth.Conflict, ID: "error.body_too_large", Data: map[string]any{"Limit": 3}}}
	for _, tc := range []struct {
		name    string
		err     error
		says    []Say
		status  int
		code    hearth.Code
		message string
		logged  string // in the log at error level, "" for none
	}{
		{name: "not found", err: fmt.Errorf("get c1: %w", notFound), status: 404, code: hearth.NotFound, message: "conversation not found"},
		{name: "invalid", err: hearth.Errorf(hearth.Invalid, "turn %d is not on this branch", 9), status: 400, code: hearth.Invalid, message: "turn 9 is not on this branch"},
		{name: "unauthorized", err: hearth.Errorf(hearth.Unauthorized, "invalid API key"), status: 401, code: hearth.Unauthorized, message: "invalid API key"},
		{name: "forbidden", err: hearth.Errorf(hearth.Forbidden, "players may not fork"), status: 403, code: hearth.Forbidden, message: "players may not fork"},
		{name: "conflict", err: hearth.Errorf(hearth.Conflict, "busy"), status: 409, code: hearth.Conflict, message: "busy"},
		{name: "unavailable", err: hearth.Errorf(hearth.Unavailable, "shutting down"), status: 503, code: hearth.Unavailable, message: "shutting down"},
		{name: "internal", err: &hearth.Error{Code: hearth.Internal, Message: "migrate", Err: errors.New("open /srv/secret/hearth.db: locked")},
			status: 500, code: hearth.Internal, message: "Internal error (request req-7). The details are in the server's log.", logged: "/srv/secret/hearth.db"},
		{name: "uncoded", err: errors.New("open /srv/secret/hearth.db: locked"),
			status: 500, code: hearth.Internal, message: "Internal error (request req-7). The details are in the server's log.", logged: "/srv/secret/hearth.db"},
		{name: "say for the code", err: notFound, says: says, status: 404, code: hearth.NotFound, message: "The request body could not be read: conversation not found"},
		{name: "say with data", err: hearth.Errorf(hearth.Conflict, "busy"), says: says, status: 409, code: hearth.Conflict, message: "The request body is larger than 3 bytes."},
		{name: "say for a sentinel", err: fmt.Errorf("x: %w", notFound), says: append([]Say{{Is: notFound, ID: "error.body_too_large", Data: map[string]any{"Limit": 9}}}, says...),
			status: 404, code: hearth.NotFound, message: "The request body is larger than 9 bytes."},
		{name: "say for another sentinel", err: hearth.Errorf(hearth.NotFound, "no such key"), says: append([]Say{{Is: notFound, ID: "error.body_too_large"}}, says...),
			status: 404, code: hearth.NotFound, message: "The request body could not be read: no such key"},
		{name: "no say for the code", err: hearth.Errorf(hearth.Forbidden, "no"), says: says, status: 403, code: hearth.Forbidden, message: "no"},
		{name: "localized error", err: fmt.Errorf("ws: %w", localized{hearth.Unavailable}), says: says, status: 503, code: hearth.Unavailable, message: "The request body is larger than 7 bytes."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			r := httptest.NewRequest("GET", "/x", nil)
			r = r.WithContext(WithRequestID(i18n.With(r.Context(), i18n.MustLoad().For("en")), "req-7"))
			w := httptest.NewRecorder()
			Fail(w, r, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelError})), tc.err, tc.says...)
			var e ErrorBody
			if err := json.NewDecoder(w.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if w.Code != tc.status || e.Error.Code != tc.code || e.Error.Message != tc.message {
				t.Errorf("got %d %+v, want %d %s %q", w.Code, e.Error, tc.status, tc.code, tc.message)
			}
			if tc.code == hearth.Internal && e.Error.RequestID != "req-7" {
				t.Errorf("request id %q, want req-7", e.Error.RequestID)
			}
			if tc.logged != "" && !strings.Contains(log.String(), tc.logged) {
				t.Errorf("log %q lacks %q", log.String(), tc.logged)
			}
			if tc.logged == "" && log.Len() > 0 {
				t.Errorf("logged an error for a client's mistake: %s", log.String())
			}
		})
	}
}

func TestFailAbandoned(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest("GET", "/x", nil).WithContext(ctx)
	w := httptest.NewRecorder()
	Fail(w, r, slog.New(slog.DiscardHandler), fmt.Errorf("turn: %w", context.Canceled))
	if w.Body.Len() != 0 || w.Code != 200 { // the recorder's default: nothing written
		t.Errorf("answered an abandoned request: %d %q", w.Code, w.Body.String())
	}
	// The same error while the client is still there is an internal one.
	w = httptest.NewRecorder()
	Fail(w, httptest.NewRequest("GET", "/x", nil), slog.New(slog.DiscardHandler), fmt.Errorf("turn: %w", context.Canceled))
	if w.Code != 500 {
		t.Errorf("status %d, want 500", w.Code)
	}
}
