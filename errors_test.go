package hearth_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/hearth-rpg/hearth"
)

var (
	errGone    = &hearth.Error{Code: hearth.NotFound, Message: "conversation not found"}
	errOther   = &hearth.Error{Code: hearth.NotFound, Message: "conversation not found"}
	errInvalid = &hearth.Error{Code: hearth.Invalid} // code-only sentinel
)

func TestErrorCodeAndMessage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		code     hearth.Code
		message  string
		text     string // Error(), for the log
		is, isnt []error
	}{
		{name: "nil", err: nil, code: "", message: ""},
		{name: "plain error", err: errors.New("open /srv/hearth/hearth.db: disk I/O error"), code: hearth.Internal, message: "internal error"},
		{name: "sentinel", err: errGone, code: hearth.NotFound, message: "conversation not found", text: "conversation not found",
			is: []error{errGone}, isnt: []error{errOther, errInvalid}},
		{name: "wrapped sentinel", err: fmt.Errorf("get c1 of /srv/a.db: %w", errGone), code: hearth.NotFound, message: "conversation not found",
			text: "get c1 of /srv/a.db: conversation not found", is: []error{errGone}},
		{name: "wrapped twice", err: fmt.Errorf("a: %w", fmt.Errorf("b: %w", errGone)), code: hearth.NotFound, message: "conversation not found", is: []error{errGone}},
		{name: "Errorf", err: hearth.Errorf(hearth.Conflict, "fork %q exists", "alt"), code: hearth.Conflict, message: `fork "alt" exists`,
			text: `fork "alt" exists`, is: []error{&hearth.Error{Code: hearth.Conflict}}, isnt: []error{errInvalid}},
		{name: "Errorf wrapping a sentinel", err: hearth.Errorf(hearth.Invalid, "turn 9: %w", errGone), code: hearth.Invalid, message: "turn 9: conversation not found",
			text: "turn 9: conversation not found", is: []error{errGone, errInvalid}},
		{name: "Errorf wrapping two", err: hearth.Errorf(hearth.Invalid, "%w and %w", errGone, fs.ErrNotExist), code: hearth.Invalid,
			message: "conversation not found and file does not exist", is: []error{errGone, fs.ErrNotExist, errInvalid}},
		{name: "code-only sentinel wrapped", err: fmt.Errorf("%w: export format pdf", errInvalid), code: hearth.Invalid, message: "invalid",
			is: []error{errInvalid}, isnt: []error{errGone}},
		{name: "cause kept for the log", err: &hearth.Error{Code: hearth.Unavailable, Message: "the model is not answering", Err: errors.New("dial tcp 10.0.0.5:11434: refused")},
			code: hearth.Unavailable, message: "the model is not answering", text: "the model is not answering: dial tcp 10.0.0.5:11434: refused"},
		{name: "internal with message", err: &hearth.Error{Code: hearth.Internal, Message: "migrate /srv/a.db", Err: errors.New("boom")},
			code: hearth.Internal, message: "internal error", text: "migrate /srv/a.db: boom"},
		{name: "empty code", err: &hearth.Error{Message: "x"}, code: hearth.Internal, message: "internal error"},
		{name: "message from code", err: &hearth.Error{Code: hearth.NotFound}, code: hearth.NotFound, message: "not found", text: "not_found"},
		{name: "outermost code wins", err: &hearth.Error{Code: hearth.Unavailable, Message: "store down", Err: errGone}, code: hearth.Unavailable,
			message: "store down", is: []error{errGone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hearth.ErrorCode(tc.err); got != tc.code {
				t.Errorf("ErrorCode = %q, want %q", got, tc.code)
			}
			if got := hearth.ErrorMessage(tc.err); got != tc.message {
				t.Errorf("ErrorMessage = %q, want %q", got, tc.message)
			}
			if tc.text != "" && tc.err.Error() != tc.text {
				t.Errorf("Error() = %q, want %q", tc.err.Error(), tc.text)
			}
			for _, target := range tc.is {
				if !errors.Is(tc.err, target) {
					t.Errorf("errors.Is(%v, %v) = false", tc.err, target)
				}
			}
			for _, target := range tc.isnt {
				if errors.Is(tc.err, target) {
					t.Errorf("errors.Is(%v, %v) = true", tc.err, target)
				}
			}
		})
	}
}

func TestErrorAs(t *testing.T) {
	err := fmt.Errorf("ctx: %w", hearth.Errorf(hearth.Forbidden, "players may not fork"))
	var e *hearth.Error
	if !errors.As(err, &e) || e.Code != hearth.Forbidden || e.Message != "players may not fork" {
		t.Fatalf("errors.As = %#v", e)
	}
}
