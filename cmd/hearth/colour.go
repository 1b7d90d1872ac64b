package main

import (
	"io"
	"os"
	"regexp"
	"strings"

	"golang.org/x/term"
)

// palette colours what `hearth play` prints on a terminal: headings, dice
// and outcomes stand out, narration stays plain. It is off when stdout is
// not a terminal (a pipe or a file gets the plain text) and whenever
// NO_COLOR is set to anything (https://no-color.org), or TERM is dumb.
type palette struct{ on bool }

// ANSI select-graphic-rendition sequences.
const (
	sgrReset   = "\x1b[0m"
	sgrHeading = "\x1b[1;36m" // bold cyan: "== Place =="
	sgrDice    = "\x1b[33m"   // yellow: [Attack 14 vs 12 — success]
	sgrFight   = "\x1b[1;31m" // bold red: ⚔ a fight, ✗ a failed quest
	sgrGood    = "\x1b[1;32m" // bold green: ★ quests, ✓ objectives
	sgrStatus  = "\x1b[2m"    // dim: the status line after a turn
)

// newPalette decides whether out gets colour, reading the environment as
// os.Environ gives it.
func newPalette(out io.Writer, environ []string) palette {
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "NO_COLOR" && v != "") || (k == "TERM" && v == "dumb") {
			return palette{}
		}
	}
	f, ok := out.(*os.File)
	return palette{on: ok && term.IsTerminal(int(f.Fd()))}
}

var mechanics = regexp.MustCompile(`\[[^\[\]]*\]`)

// narration colours a piece of narration line by line: a heading or a
// marked outcome as a whole, dice in brackets wherever they are; the
// prose around them is left as it is.
func (p palette) narration(s string) string {
	if !p.on || s == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "== ") && strings.HasSuffix(t, " =="):
			lines[i] = sgrHeading + l + sgrReset
		case strings.HasPrefix(t, "⚔") || strings.HasPrefix(t, "✗"):
			lines[i] = sgrFight + l + sgrReset
		case strings.HasPrefix(t, "★") || strings.HasPrefix(t, "✓"):
			lines[i] = sgrGood + l + sgrReset
		default:
			lines[i] = mechanics.ReplaceAllStringFunc(l, func(m string) string { return sgrDice + m + sgrReset })
		}
	}
	return strings.Join(lines, "\n")
}

// status colours the status line shown after a turn.
func (p palette) status(s string) string {
	if !p.on || s == "" {
		return s
	}
	return sgrStatus + s + sgrReset
}
