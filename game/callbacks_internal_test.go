package game

import (
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// The rules resolve what they end: a quest done or failed, a hostile
// fallen, a consequence come to pass; nothing else.
func TestResolvedByTheRules(t *testing.T) {
	w := world.New(world.SystemD20)
	w.Characters["orc"] = &world.Character{ID: "orc", Name: "Orc", Hostile: true}
	w.Characters["ally"] = &world.Character{ID: "ally", Name: "Ally"}
	for _, e := range []world.NarrativeElement{
		{ID: "q", ElementType: world.ElementPromise, Name: "Quest", Ref: "quest"},
		{ID: "o", ElementType: world.ElementThreat, Name: "Orc", Ref: "orc"},
		{ID: "a", ElementType: world.ElementCharacter, Name: "Ally", Ref: "ally"},
		{ID: "c", ElementType: world.ElementThreat, Name: "Ambush", Ref: "ambush", Private: true},
		{ID: "n", ElementType: world.ElementEvent, Name: "Storm"},
	} {
		if err := w.Apply(world.ElementExtracted{Element: e}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		effect world.Effect
		want   string
	}{
		{"quest completed", world.QuestStatusChanged{Quest: "quest", From: world.QuestActive, To: world.QuestCompleted}, "q"},
		{"quest failed", world.QuestStatusChanged{Quest: "quest", From: world.QuestActive, To: world.QuestFailed}, "q"},
		{"quest taken", world.QuestStatusChanged{Quest: "quest", From: world.QuestAvailable, To: world.QuestActive}, ""},
		{"hostile down", world.HPChanged{Target: "orc", From: 3, To: 0}, "o"},
		{"hostile hurt", world.HPChanged{Target: "orc", From: 3, To: 1}, ""},
		{"ally down", world.HPChanged{Target: "ally", From: 3, To: 0}, ""},
		{"consequence", world.ConsequenceTriggered{ID: "ambush"}, "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolvedBy(w, world.Effects{tt.effect})
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("resolved %v, want nothing", got)
			case tt.want != "" && (len(got) != 1 || got[0].(world.ElementResolved).ID != tt.want):
				t.Errorf("resolved %v, want %s", got, tt.want)
			}
		})
	}
}
