package game_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
)

// saltmereScript is the CLI's scripted session up to relighting the lamp.
func saltmereScript(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../cmd/hearth/testdata/saltmere-30.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
			if l == "put the lens in the lantern" {
				break
			}
		}
	}
	return out
}

func TestRecapFromEffects(t *testing.T) {
	cases := []struct {
		name    string
		play    bool
		want    []string
		notWant []string
	}{
		{name: "fresh game", want: []string{"Nothing has happened yet"}, notWant: []string{"cold", "So far"}},
		{name: "lamp relit", play: true,
			want: []string{"So far: ", "The lens goes back into the lantern.", "You completed Relight the Lantern.",
				"You gained Lighthouse Lens.", "You used up Healing Potion."},
			notWant: []string{"waits, cold", "stove has gone cold"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := campaign.Load(ctx, "../campaigns/saltmere")
			if err != nil {
				t.Fatal(err)
			}
			s, err := game.New(ctx, openDB(t, t.TempDir()), c, 1, game.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.play {
				for _, in := range saltmereScript(t) {
					act(t, s, in)
				}
				if q := s.World().Quests["relight_lantern"]; q.Status != "completed" {
					t.Fatalf("the script did not relight the lamp: quest %s", q.Status)
				}
				// The lantern room is told as it is now: lit, not cold.
				for _, in := range []string{"look", "listen"} {
					if n := act(t, s, in).Narrative; strings.Contains(n, "cold") || strings.Contains(n, "should be is empty") {
						t.Errorf("%q after the lamp was lit tells it unlit:\n%s", in, n)
					}
				}
			}
			turn := s.Turn()
			r := act(t, s, "what has happened")
			if r.Committed || s.Turn() != turn {
				t.Errorf("a recap took a turn: %+v", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Narrative, w) {
					t.Errorf("recap lacks %q:\n%s", w, r.Narrative)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.Narrative, w) {
					t.Errorf("recap has %q:\n%s", w, r.Narrative)
				}
			}
			// Events are told in the order they happened.
			if tc.play {
				lens, lit := strings.Index(r.Narrative, "You gained Lighthouse Lens."), strings.Index(r.Narrative, "The lens goes back")
				if lens < 0 || lit < lens {
					t.Errorf("the lamp was lit before the lens was found:\n%s", r.Narrative)
				}
			}
		})
	}
}
