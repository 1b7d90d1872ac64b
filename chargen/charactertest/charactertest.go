// Package charactertest is the conformance suite every chargen.Store must
// pass: create, read back whole, list by owner (the GM sees all), update,
// delete, and no reading, changing or deleting another user's character.
// A backend's tests call Run with a function that opens a fresh, empty
// store.
package charactertest

import (
	"context"
	"reflect"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/chargen"
)

// Character builds a valid level-1 character named name.
func Character(t testing.TB, name string) *chargen.Character {
	t.Helper()
	ch, err := chargen.Build(chargen.Choices{Name: name, Race: "human", Class: "fighter", Background: "soldier",
		Method: chargen.StandardArrayMethod, FightingStyle: "defense", Armor: "chain_mail", Weapon: "longsword",
		Scores: map[string]int{"strength": 15, "constitution": 14, "dexterity": 13, "wisdom": 12, "charisma": 10, "intelligence": 8},
		Skills: []string{"perception", "survival"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := chargen.Templates{}.Story(context.Background(), ch, 3)
	if err != nil {
		t.Fatal(err)
	}
	ch.Story = &st
	return ch
}

// Run runs the suite; open returns a new, empty store each call.
func Run(t *testing.T, open func(t *testing.T) chargen.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, chargen.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"ListByOwner", testListByOwner},
		{"OthersAreNotFound", testOthers},
		{"UpdateAndDelete", testUpdateDelete},
		{"Refuses", testRefuses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

var (
	alice = chargen.Viewer{UserID: "alice"}
	bob   = chargen.Viewer{UserID: "bob"}
	gm    = chargen.Viewer{UserID: "gm", All: true}
)

func wantCode(t *testing.T, what string, err error, code hearth.Code) {
	t.Helper()
	if hearth.ErrorCode(err) != code {
		t.Errorf("%s: got %v (%s), want %s", what, err, hearth.ErrorCode(err), code)
	}
}

func testRoundTrip(t *testing.T, s chargen.Store) {
	ctx := context.Background()
	ch := Character(t, "Kestrel")
	saved, err := s.Create(ctx, "alice", ch)
	if err != nil {
		t.Fatal(err)
	}
	if saved.ID == "" || saved.Owner != "alice" || saved.Created.IsZero() {
		t.Fatalf("created %+v", saved)
	}
	got, err := s.Get(ctx, alice, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Character, ch) {
		t.Errorf("read back a different character:\n%+v\nwant\n%+v", got.Character, ch)
	}
	if !got.Created.Equal(saved.Created) {
		t.Errorf("created %v, saved %v", got.Created, saved.Created)
	}
}

func testListByOwner(t *testing.T, s chargen.Store) {
	ctx := context.Background()
	for _, c := range []struct{ owner, name string }{{"alice", "A1"}, {"bob", "B1"}, {"alice", "A2"}} {
		if _, err := s.Create(ctx, c.owner, Character(t, c.name)); err != nil {
			t.Fatal(err)
		}
	}
	names := func(v chargen.Viewer) map[string]bool {
		list, err := s.List(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range list {
			out[c.Character.Name] = true
		}
		return out
	}
	if got := names(alice); !reflect.DeepEqual(got, map[string]bool{"A1": true, "A2": true}) {
		t.Errorf("alice lists %v", got)
	}
	if got := names(bob); !reflect.DeepEqual(got, map[string]bool{"B1": true}) {
		t.Errorf("bob lists %v", got)
	}
	if got := names(gm); len(got) != 3 {
		t.Errorf("the GM lists %v", got)
	}
	list, err := s.List(ctx, chargen.Viewer{UserID: "carol"})
	if err != nil || list == nil || len(list) != 0 {
		t.Errorf("an empty library: %v %v (want an empty, non-nil list)", list, err)
	}
}

func testOthers(t *testing.T, s chargen.Store) {
	ctx := context.Background()
	saved, err := s.Create(ctx, "alice", Character(t, "Mine"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, bob, saved.ID)
	wantCode(t, "bob reads alice's", err, hearth.NotFound)
	_, err = s.Update(ctx, bob, saved.ID, Character(t, "Stolen"))
	wantCode(t, "bob updates alice's", err, hearth.NotFound)
	wantCode(t, "bob deletes alice's", s.Delete(ctx, bob, saved.ID), hearth.NotFound)
	got, err := s.Get(ctx, alice, saved.ID)
	if err != nil || got.Character.Name != "Mine" {
		t.Errorf("alice's character after bob's attempts: %+v %v", got, err)
	}
	if _, err := s.Get(ctx, gm, saved.ID); err != nil {
		t.Errorf("the GM reads alice's: %v", err)
	}
}

func testUpdateDelete(t *testing.T, s chargen.Store) {
	ctx := context.Background()
	saved, err := s.Create(ctx, "alice", Character(t, "Before"))
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Update(ctx, alice, saved.ID, Character(t, "After"))
	if err != nil {
		t.Fatal(err)
	}
	if up.Character.Name != "After" || up.Owner != "alice" || up.Updated.Before(saved.Updated) {
		t.Errorf("updated %+v", up)
	}
	if err := s.Delete(ctx, gm, saved.ID); err != nil {
		t.Fatalf("the GM deletes: %v", err)
	}
	_, err = s.Get(ctx, alice, saved.ID)
	wantCode(t, "read after delete", err, hearth.NotFound)
	wantCode(t, "delete twice", s.Delete(ctx, alice, saved.ID), hearth.NotFound)
	_, err = s.Get(ctx, alice, "no-such-id")
	wantCode(t, "a missing id", err, hearth.NotFound)
}

func testRefuses(t *testing.T, s chargen.Store) {
	ctx := context.Background()
	_, err := s.Create(ctx, "", Character(t, "Nobody's"))
	wantCode(t, "no owner", err, hearth.Invalid)
	_, err = s.Create(ctx, "alice", nil)
	wantCode(t, "no character", err, hearth.Invalid)
}
