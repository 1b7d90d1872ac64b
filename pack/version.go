package pack

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version: major.minor.patch with an optional
// pre-release ("-beta.2"); build metadata ("+…") is kept in text only.
// "1" and "1.2" are read as 1.0.0 and 1.2.0, as authors write them.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

// ParseVersion reads a version, with or without a leading v.
func ParseVersion(s string) (Version, error) {
	var v Version
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	t, _, _ = strings.Cut(t, "+")
	t, v.Pre, _ = strings.Cut(t, "-")
	parts := strings.Split(t, ".")
	if t == "" || len(parts) > 3 {
		return v, fmt.Errorf("version %q: write major.minor.patch, e.g. 1.0.0", s)
	}
	nums := []*int{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') {
			return v, fmt.Errorf("version %q: write major.minor.patch, e.g. 1.0.0", s)
		}
		*nums[i] = n
	}
	return v, nil
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare returns -1, 0 or 1. A pre-release sorts before its release.
func (v Version) Compare(w Version) int {
	for _, d := range [][2]int{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	return comparePre(v.Pre, w.Pre)
}

// comparePre orders pre-release tags field by field, numbers numerically.
func comparePre(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		switch {
		case errx == nil && erry == nil && x != y:
			if x < y {
				return -1
			}
			return 1
		case (errx == nil) != (erry == nil):
			if errx == nil { // numbers sort before words
				return -1
			}
			return 1
		case as[i] != bs[i]:
			return strings.Compare(as[i], bs[i])
		}
	}
	return len(as) - len(bs)
}

// Constraint is a version range: comparisons joined by commas or spaces,
// all of which must hold (">=1.2, <2"); "^1.2" (same major), "~1.2"
// (same minor), "1.x" and "*" are accepted too. Empty allows any version.
type Constraint struct {
	text  string
	terms []term
}

type term struct {
	op string // =, !=, >, >=, <, <=
	v  Version
}

// ParseConstraint reads a version constraint.
func ParseConstraint(s string) (Constraint, error) {
	c := Constraint{text: strings.TrimSpace(s)}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	// Join a lone operator with the version after it: ">= 1.2".
	var toks []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Trim(f, "<>=!^~") == "" && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		toks = append(toks, f)
	}
	for _, f := range toks {
		ts, err := parseTerm(f)
		if err != nil {
			return c, fmt.Errorf("version constraint %q: %w; write e.g. \">=1.2.0, <2\" or \"^1.2\"", s, err)
		}
		c.terms = append(c.terms, ts...)
	}
	return c, nil
}

func parseTerm(f string) ([]term, error) {
	if f == "*" || f == "x" {
		return nil, nil
	}
	op := strings.TrimRight(f[:len(f)-len(strings.TrimLeft(f, "<>=!^~"))], " ")
	rest := f[len(op):]
	// Wildcards: 1.x, 1.2.*
	if i := strings.IndexAny(rest, "xX*"); i >= 0 && op == "" {
		parts := strings.Split(strings.TrimRight(rest[:i], "."), ".")
		switch len(parts) {
		case 1:
			op = "^"
		case 2:
			op = "~"
		}
		rest = strings.Join(parts, ".")
	}
	v, err := ParseVersion(rest)
	if err != nil {
		return nil, err
	}
	dots := strings.Count(strings.TrimPrefix(rest, "v"), ".")
	switch op {
	case "", "=", "==":
		return []term{{"=", v}}, nil
	case "!=", ">", ">=", "<", "<=":
		return []term{{op, v}}, nil
	case "^":
		up := Version{Major: v.Major + 1}
		if v.Major == 0 && dots > 0 {
			up = Version{Minor: v.Minor + 1}
		}
		return []term{{">=", v}, {"<", up}}, nil
	case "~":
		up := Version{Major: v.Major, Minor: v.Minor + 1}
		if dots == 0 {
			up = Version{Major: v.Major + 1}
		}
		return []term{{">=", v}, {"<", up}}, nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}

// Allows reports whether v satisfies every comparison.
func (c Constraint) Allows(v Version) bool {
	for _, t := range c.terms {
		d := v.Compare(t.v)
		ok := false
		switch t.op {
		case "=":
			ok = d == 0
		case "!=":
			ok = d != 0
		case ">":
			ok = d > 0
		case ">=":
			ok = d >= 0
		case "<":
			ok = d < 0
		case "<=":
			ok = d <= 0
		}
		if !ok {
			return false
		}
	}
	return true
}

func (c Constraint) String() string { return c.text }

// Requirement names a pack another depends on: "srd51", "srd51 >=5.1",
// "srd51@^5.1", or {id: srd51, version: ">=5.1"}.
type Requirement struct {
	ID      string     `json:"id"`
	Version Constraint `json:"-"`
}

// ParseRequirement reads the string form.
func ParseRequirement(s string) (Requirement, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " @<>=!^~")
	id, rest := s, ""
	if i >= 0 {
		id, rest = s[:i], strings.TrimPrefix(strings.TrimSpace(s[i:]), "@")
	}
	r := Requirement{ID: id}
	if err := checkSlug(id); err != nil {
		return r, fmt.Errorf("requirement %q: %w", s, err)
	}
	c, err := ParseConstraint(rest)
	if err != nil {
		return r, err
	}
	r.Version = c
	return r, nil
}

func (r Requirement) String() string {
	if r.Version.text == "" {
		return r.ID
	}
	return r.ID + " " + r.Version.text
}

// UnmarshalJSON accepts the string and the mapping form (YAML reaches it
// through JSON, see viaJSON).
func (r *Requirement) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := ParseRequirement(s)
		*r = v
		return err
	}
	var m struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("a requirement is a pack id (\"srd51 >=5.1\") or {id, version}")
	}
	v, err := ParseRequirement(strings.TrimSpace(m.ID + " " + m.Version))
	*r = v
	return err
}

// MarshalJSON writes the string form.
func (r Requirement) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// checkSlug accepts pack and entity ids: lower-case letters, digits, _
// and -, starting with a letter or digit, at most 64 long.
func checkSlug(s string) error {
	if s == "" {
		return fmt.Errorf("an id is required")
	}
	if len(s) > 64 {
		return fmt.Errorf("id %q is longer than 64 characters", s)
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '_' || r == '-') && i > 0:
		default:
			return fmt.Errorf("id %q: use lower-case letters, digits, _ and -, starting with a letter or digit (e.g. %q)", s, slugOf(s))
		}
	}
	return nil
}

// slugOf suggests a valid id for s.
func slugOf(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "my_pack"
	}
	return out
}
