package world

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
)

func TestNarrativeElementEffects(t *testing.T) {
	el := func(id, typ, name string, turn int) NarrativeElement {
		return NarrativeElement{ID: id, ElementType: typ, Name: name, TurnIntroduced: turn}
	}
	tests := []struct {
		name    string
		effects []Effect
		wantErr bool
	}{
		{"extract, reference, resolve", []Effect{ElementExtracted{Element: el("a", ElementThreat, "Wolves", 2)}, ElementReferenced{ID: "a", Turn: 4}, ElementResolved{ID: "a"}}, false},
		{"unknown type", []Effect{ElementExtracted{Element: el("a", "mood", "Gloom", 2)}}, true},
		{"no name", []Effect{ElementExtracted{Element: el("a", ElementItem, " ", 2)}}, true},
		{"no id", []Effect{ElementExtracted{Element: el("", ElementItem, "Key", 2)}}, true},
		{"duplicate id", []Effect{ElementExtracted{Element: el("a", ElementItem, "Key", 2)}, ElementExtracted{Element: el("a", ElementItem, "Lock", 3)}}, true},
		{"reference before introduction", []Effect{ElementExtracted{Element: el("a", ElementItem, "Key", 2)}, ElementReferenced{ID: "a", Turn: 2}}, true},
		{"reference unknown", []Effect{ElementReferenced{ID: "zz", Turn: 9}}, true},
		{"resolve unknown", []Effect{ElementResolved{ID: "zz"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(SystemD20)
			var err error
			for _, e := range tt.effects {
				if err = s.Apply(e); err != nil {
					break
				}
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// Elements survive a JSON round trip of the state (snapshots, forks),
// references and resolution included.
func TestNarrativeElementsPersistInState(t *testing.T) {
	s := New(SystemD20)
	for _, e := range []Effect{
		ElementExtracted{Element: NarrativeElement{ID: "a", ElementType: ElementPromise, Name: "The toll", TurnIntroduced: 1, Ref: "q"}},
		ElementReferenced{ID: "a", Turn: 3}, ElementReferenced{ID: "a", Turn: 3}, ElementReferenced{ID: "a", Turn: 5},
		ElementResolved{ID: "a"},
	} {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Elements["a"]
	if got == nil || !slices.Equal(got.TurnsReferenced, []int{3, 5}) || !got.Resolved || got.LastMention() != 5 {
		t.Fatalf("element after round trip = %+v", got)
	}
	if back.ElementNamed("the TOLL") != got {
		t.Error("ElementNamed does not find the element case-insensitively")
	}
}

// A player's view keeps the elements of what the table saw and drops
// those the GM alone knows, with their effects.
func TestViewHidesPrivateElements(t *testing.T) {
	s := New(SystemD20)
	pub := ElementExtracted{Element: NarrativeElement{ID: "pub", ElementType: ElementCharacter, Name: "Mira", TurnIntroduced: 1}}
	priv := ElementExtracted{Element: NarrativeElement{ID: "priv", ElementType: ElementThreat, Name: "The ambush", TurnIntroduced: 1, Private: true}}
	for _, e := range []Effect{pub, priv} {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, lvl := range []access.Level{access.Player, access.Trusted, access.Assistant} {
		v := s.View(lvl, "")
		if v.Elements["pub"] == nil || v.Elements["priv"] != nil {
			t.Errorf("level %v: elements %v, want pub only", lvl, SortedKeys(v.Elements))
		}
		vis := v.VisibleEffects(Effects{pub, priv, ElementReferenced{ID: "priv", Turn: 2}, ElementResolved{ID: "priv"}}, lvl, "")
		if len(vis) != 1 || vis[0].(ElementExtracted).Element.ID != "pub" {
			t.Errorf("level %v: visible effects %v", lvl, vis)
		}
	}
	if v := s.View(access.GM, ""); v.Elements["priv"] == nil {
		t.Error("the GM's view lost the private element")
	}
}
