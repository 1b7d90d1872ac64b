package chargen

import (
	"strconv"

	"github.com/hearth-rpg/hearth"
)

// Refusal is a build the rules refuse: a hearth.Invalid error whose
// message is the English one, and the catalog message (ID, in the chargen
// area of package i18n) with the Data that words it in another language.
// Data holds the names as they are (SRD ids and names, numbers, lists
// joined by ", "), so that a translation can place them itself.
type Refusal struct {
	ID   string
	Data map[string]any
	err  *hearth.Error
}

func (r *Refusal) Error() string { return r.err.Error() }

// Unwrap gives the refusal its code and English message.
func (r *Refusal) Unwrap() error { return r.err }

// refuse is a Refusal: catalog message id with data, and the English
// message format fills in.
func refuse(id string, data map[string]any, format string, args ...any) error {
	return &Refusal{ID: id, Data: data, err: hearth.Errorf(hearth.Invalid, format, args...)}
}

// quoted is s as %q shows it, without the quotes: the catalog adds its
// language's own, and control characters stay visible.
func quoted(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
