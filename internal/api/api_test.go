package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	for code, status := range map[string]int{Invalid: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, Conflict: 409,
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
