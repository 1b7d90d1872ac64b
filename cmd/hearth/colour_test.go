package main

import (
	"bytes"
	"os"
	"testing"
)

func TestPalette(t *testing.T) {
	on := palette{on: true}
	tests := []struct {
		in, want string
	}{
		{"== Saltmere Quay ==\n", sgrHeading + "== Saltmere Quay ==" + sgrReset + "\n"},
		{"Wet stones run down to black water.\n", "Wet stones run down to black water.\n"},
		{"You search. [Investigation 14 vs 11 — success]", "You search. " + sgrDice + "[Investigation 14 vs 11 — success]" + sgrReset},
		{"⚔ A fight breaks out!", sgrFight + "⚔ A fight breaks out!" + sgrReset},
		{"✓ Objective complete: Recover the lens.", sgrGood + "✓ Objective complete: Recover the lens." + sgrReset},
	}
	for _, tt := range tests {
		if got := on.narration(tt.in); got != tt.want {
			t.Errorf("narration(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := (palette{}).narration(tt.in); got != tt.in {
			t.Errorf("off: narration(%q) = %q", tt.in, got)
		}
	}
	if got := on.status("turn 2"); got != sgrStatus+"turn 2"+sgrReset {
		t.Errorf("status: %q", got)
	}
}

// Colour is off for a pipe or a buffer, and for NO_COLOR or TERM=dumb;
// an empty NO_COLOR does not count (no-color.org).
func TestNewPalette(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tt := range []struct {
		name    string
		out     any
		environ []string
	}{
		{"buffer", &bytes.Buffer{}, nil},
		{"pipe", w, []string{"TERM=xterm"}},
		{"pipe with NO_COLOR", w, []string{"NO_COLOR=1"}},
	} {
		if p := newPalette(tt.out.(interface{ Write([]byte) (int, error) }), tt.environ); p.on {
			t.Errorf("%s: colour is on", tt.name)
		}
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Log("no controlling terminal; TestTerminalColours covers a real one")
		return
	}
	defer tty.Close()
	for _, tt := range []struct {
		environ []string
		want    bool
	}{
		{[]string{"TERM=xterm"}, true},
		{[]string{"NO_COLOR="}, true},
		{[]string{"NO_COLOR=yes"}, false},
		{[]string{"TERM=dumb"}, false},
	} {
		if got := newPalette(tty, tt.environ).on; got != tt.want {
			t.Errorf("terminal with %v: colour %t, want %t", tt.environ, got, tt.want)
		}
	}
}
