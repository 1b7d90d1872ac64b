package traveller

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth"
)

// Limits for ReadWorlds.
const (
	MaxLineBytes = 64 << 10 // one line of a world list
	MaxWorlds    = 100_000  // all of charted space is well under this
)

// World is a main world at a hex of a sector. UWP is checked by ReadWorlds;
// Profile decodes it.
type World struct {
	Sector  string   `json:"sector"`
	Hex     string   `json:"hex"`
	Name    string   `json:"name"`
	UWP     string   `json:"uwp"`
	Remarks []string `json:"remarks,omitempty"`
}

// String is "Regina (Spinward Marches 1910, A788899-C)".
func (w World) String() string {
	loc := strings.TrimSpace(w.Sector + " " + w.Hex)
	if w.UWP == "" {
		return fmt.Sprintf("%s (%s)", w.Name, loc)
	}
	return fmt.Sprintf("%s (%s, %s)", w.Name, loc, w.UWP)
}

// Profile decodes the world's UWP.
func (w World) Profile() (UWP, error) { return Parse(w.UWP) }

// ReadWorlds reads a tab-separated world list in Traveller Map's tab
// format: a header line naming the columns, then one world per line.
// Hex, Name and UWP columns are required; Sector and Remarks are read when
// present and other columns (SS, Bases, Zone, PBG, …) are ignored, in any
// order. Lines starting with # and blank lines are skipped. Known sector
// abbreviations (Spin, Dene, Troj, Solo) become full names. Every hex and
// UWP is checked, and one sector hex may hold only one world; errors name
// the line.
func ReadWorlds(r io.Reader) ([]World, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	col := map[string]int{} // lower-case column name → index
	ncol := 0               // fields in the header; 0 until it is read
	var worlds []World
	seen := map[string]int{} // sector hex → line
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("worlds line %d: not valid UTF-8", line)
		}
		fields := strings.Split(text, "\t")
		if ncol == 0 {
			ncol = len(fields)
			for i, f := range fields {
				name := strings.ToLower(strings.TrimSpace(f))
				if _, dup := col[name]; dup && name != "" {
					return nil, fmt.Errorf("worlds line %d: header names column %q twice", line, f)
				}
				col[name] = i
			}
			for _, need := range []string{"hex", "name", "uwp"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("worlds line %d: header %q has no %q column; want tab-separated columns such as Sector, Hex, Name, UWP, Remarks", line, clip(text), need)
				}
			}
			continue
		}
		if len(fields) > ncol {
			return nil, fmt.Errorf("worlds line %d: %d tab-separated fields but the header has %d columns", line, len(fields), ncol)
		}
		get := func(name string) string {
			i, ok := col[name]
			if !ok || i >= len(fields) {
				return ""
			}
			return strings.TrimSpace(fields[i])
		}
		w := World{Sector: canonicalSector(get("sector")), Hex: get("hex"), Name: get("name"), UWP: get("uwp")}
		if rem := get("remarks"); rem != "" {
			w.Remarks = strings.Fields(rem)
		}
		if w.Name == "" {
			return nil, fmt.Errorf("worlds line %d: the world at hex %q has no name", line, w.Hex)
		}
		if _, _, err := parseHex(w.Hex); err != nil {
			return nil, fmt.Errorf("worlds line %d (%s): %w", line, w.Name, err)
		}
		u, err := Parse(w.UWP)
		if err != nil {
			return nil, fmt.Errorf("worlds line %d (%s): %w", line, w.Name, err)
		}
		w.UWP = u.Code
		key := strings.ToLower(w.Sector) + " " + w.Hex
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("worlds line %d (%s): %s already holds the world on line %d", line, w.Name, strings.TrimSpace(w.Sector+" "+w.Hex), prev)
		}
		seen[key] = line
		if len(worlds) == MaxWorlds {
			return nil, fmt.Errorf("worlds line %d: more than %d worlds", line, MaxWorlds)
		}
		worlds = append(worlds, w)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("worlds line %d: longer than %d bytes", line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("reading worlds after line %d: %w", line, err)
	}
	if ncol == 0 {
		return nil, errors.New("worlds: empty input; want a header line (Sector, Hex, Name, UWP, Remarks, tab-separated) and one world per line")
	}
	return worlds, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// parseHex reads XXYY: column 01–32, row 01–40.
func parseHex(h string) (col, row int, err error) {
	if len(h) != 4 {
		return 0, 0, fmt.Errorf("hex %q: want four digits XXYY, column 01–32 and row 01–40", h)
	}
	c, err1 := strconv.Atoi(h[:2])
	r, err2 := strconv.Atoi(h[2:])
	if err1 != nil || err2 != nil || h[0] == '+' || h[0] == '-' || h[2] == '+' || h[2] == '-' {
		return 0, 0, fmt.Errorf("hex %q: want four digits XXYY, column 01–32 and row 01–40", h)
	}
	if c < 1 || c > 32 || r < 1 || r > 40 {
		return 0, 0, fmt.Errorf("hex %q: column must be 01–32 and row 01–40", h)
	}
	return c, r, nil
}

// ErrNotFound is wrapped by Find when no world matches.
var ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "world not found"}

// AmbiguousError is a Find query that matches more than one world.
type AmbiguousError struct {
	Query      string
	Candidates []World
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d worlds: ", e.Query, len(e.Candidates))
	for i, w := range e.Candidates {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(w.String())
	}
	ex := e.Candidates[0]
	fmt.Fprintf(&b, `. Name one by sector and hex, e.g. "%s %s"`, ex.Sector, ex.Hex)
	return b.String()
}

// Find looks a world up by name (case-insensitive) or by location: "Sector
// hex" ("Spinward Marches 1910", "Spin 1910") or a bare hex ("1910"). A
// query that matches several worlds is an *AmbiguousError listing them; one
// that matches none wraps ErrNotFound and suggests near names.
func Find(worlds []World, query string) (World, error) {
	q := strings.Join(strings.Fields(query), " ")
	if q == "" {
		return World{}, fmt.Errorf("empty world query: give a name or a sector and hex such as \"Spinward Marches 1910\": %w", ErrNotFound)
	}
	var found []World
	sector, hex := "", q
	if i := strings.LastIndexByte(q, ' '); i >= 0 {
		sector, hex = q[:i], q[i+1:]
	}
	_, _, err := parseHex(hex)
	isHex := err == nil
	if isHex {
		for _, w := range worlds {
			if w.Hex == hex && (sector == "" || sameSector(w.Sector, sector)) {
				found = append(found, w)
			}
		}
	}
	if len(found) == 0 {
		for _, w := range worlds {
			if strings.EqualFold(w.Name, q) || strings.EqualFold(strings.Join(strings.Fields(w.Name), " "), q) {
				found = append(found, w)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if isHex && sector != "" {
			var there []string
			for _, w := range worlds {
				if w.Hex == hex {
					there = append(there, w.String())
				}
			}
			if len(there) > 0 {
				return World{}, fmt.Errorf("no world at %q (is the sector %q spelled right?); worlds at hex %s: %s: %w", q, sector, hex, strings.Join(there, ", "), ErrNotFound)
			}
		}
		if s := suggest(worlds, q); len(s) > 0 {
			return World{}, fmt.Errorf("no world %q; did you mean %s? %w", q, strings.Join(s, ", "), ErrNotFound)
		}
		return World{}, fmt.Errorf("no world %q among the %d known: %w", q, len(worlds), ErrNotFound)
	}
	return World{}, &AmbiguousError{Query: q, Candidates: found}
}

// suggest lists up to five worlds whose names contain the query or are a
// couple of edits away from it, closest first.
func suggest(worlds []World, q string) []string {
	lq := strings.ToLower(q)
	type cand struct {
		w    World
		dist int
	}
	var cs []cand
	for _, w := range worlds {
		ln := strings.ToLower(w.Name)
		switch d := editDistance(ln, lq); {
		case d <= 2 && len(lq) >= 4:
			cs = append(cs, cand{w, d})
		case len(lq) >= 3 && strings.Contains(ln, lq):
			cs = append(cs, cand{w, 3})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for i, c := range cs {
		if i == 5 {
			break
		}
		out = append(out, c.w.String())
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, by rune,
// giving up (returning 3) once it exceeds 2 to stay cheap on long names.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > 2 || d < -2 {
		return 3
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		lo := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			lo = min(lo, cur[j])
		}
		if lo > 2 {
			return 3
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], 3)
}
