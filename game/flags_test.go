package game_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/game"
)

func TestFlagsKeepTheGameAsItWas(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 3, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Flag(ctx, 0, "ann", "nothing played yet"); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("flag before any turn: %v", err)
	}
	for _, in := range []string{"look", "go north", "look"} {
		act(t, s, in)
	}
	before, branch := stateJSON(t, s), s.Branch()
	f, err := s.Flag(ctx, 2, "ann", "  the hall was described as empty, yet Tomas is in it  ")
	if err != nil {
		t.Fatal(err)
	}
	if f.Turn != 2 || f.By != "ann" || f.Reason != "the hall was described as empty, yet Tomas is in it" || f.At.IsZero() {
		t.Errorf("flag: %+v", f)
	}
	if _, err := s.Flag(ctx, 0, "", "the latest turn"); err != nil {
		t.Fatal(err)
	}
	if stateJSON(t, s) != before || s.Turn() != 3 || s.Branch() != branch {
		t.Errorf("flagging changed the game: turn %d, branch %s", s.Turn(), s.Branch())
	}
	if bs, _ := s.Branches(ctx); len(bs) != 1 {
		t.Errorf("flagging started a branch: %+v", bs)
	}
	tests := []struct {
		name   string
		turn   int
		reason string
		want   string
	}{
		{"no reason", 1, "  ", "say what was wrong"},
		{"a turn not played", 9, "why", "flag a turn from 1 to 3"},
		{"turn below one", -1, "why", "flag a turn from 1 to 3"},
		{"too long", 1, strings.Repeat("x", game.MaxFlagReason+1), "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Flag(ctx, tt.turn, "ann", tt.reason)
			var he *hearth.Error
			if !errors.As(err, &he) || he.Code != hearth.Invalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an invalid error saying %q", err, tt.want)
			}
		})
	}
	fs, err := s.Flags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].Turn != 2 || fs[1].Turn != 3 || fs[1].By != "" {
		t.Fatalf("flags: %+v", fs)
	}
	// A fork shares turn 2 and its flag; a flag on the turn it leaves
	// behind is not its story.
	if err := s.Restore(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if fs, _ := s.Flags(ctx); len(fs) != 1 || fs[0].Turn != 2 {
		t.Errorf("flags after restoring turn 2: %+v", fs)
	}
	act(t, s, "go south")
	if fs, _ := s.Flags(ctx); len(fs) != 1 || fs[0].Turn != 2 {
		t.Errorf("flags on the new branch: %+v", fs)
	}
}

func TestConfirmationIsKeptWithTheTurn(t *testing.T) {
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), loadTiny(t), 3, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	if r := act(t, s, "attack tomas"); r.Awaiting.Kind != game.Confirmation {
		t.Fatalf("attacking a friendly NPC should ask first: %+v", r)
	}
	if r := act(t, s, "yes"); !r.Committed {
		t.Fatalf("yes should play the attack: %+v", r)
	}
	recs, err := s.Turns(context.Background(), s.Turn(), s.Turn())
	if err != nil {
		t.Fatal(err)
	}
	notes := game.Notes(recs[0].Effects)
	if len(notes) != 1 {
		t.Fatalf("notes: %q", notes)
	}
	in, how, why, ok := game.ReadRefusal(strings.TrimSuffix(strings.TrimPrefix(notes[0], "(before this turn, without taking one: "), ")"))
	if !ok || in != "attack tomas" || how != game.Asked || why == "" {
		t.Errorf("note %q read as %q %q %q %v", notes[0], in, how, why, ok)
	}
}
