package game_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

func elementNamed(t *testing.T, w *world.State, name string) *world.NarrativeElement {
	t.Helper()
	e := w.ElementNamed(name)
	if e == nil {
		t.Fatalf("no element %q among %v", name, world.SortedKeys(w.Elements))
	}
	return e
}

// Offline, elements come from the rules' effects and the named entities of
// the narration; later turns reference them, the rules resolve them, the
// DM is offered the quiet ones, and restore keeps exactly what was true.
func TestCallbacksTrackedOffline(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := game.New(ctx, openDB(t, dir), loadTiny(t), 7, game.Options{SnapshotEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"look", "go north", "talk to tomas", "ask tomas about rats", "go south", "look", "go east", "attack rat"} {
		act(t, s, in)
	}
	w := s.World()
	quest := elementNamed(t, w, "Rats in the Yard")
	if quest.ElementType != world.ElementPromise || quest.Ref != "rats" || quest.TurnIntroduced != 3 || quest.Resolved {
		t.Errorf("quest element = %+v", quest)
	}
	tomas := elementNamed(t, w, "Tomas")
	if tomas.ElementType != world.ElementCharacter || tomas.TurnIntroduced != 2 || !slices.Equal(tomas.TurnsReferenced, []int{3, 4}) {
		t.Errorf("tomas = %+v, want introduced on 2, referenced on 3 and 4", tomas)
	}
	rat := elementNamed(t, w, "Giant Rat")
	if rat.ElementType != world.ElementThreat || rat.TurnIntroduced != 7 || !slices.Equal(rat.TurnsReferenced, []int{8}) || !rat.Resolved {
		t.Errorf("rat = %+v, want a threat from turn 7 referenced and resolved (defeated) on 8", rat)
	}
	// The promise has gone quiet since turn 3; the defeated rat is no hook.
	sug := game.CallbackSuggestions(w, 9, true)
	if len(sug) != 1 || sug[0].Name != "Rats in the Yard" {
		t.Errorf("suggestions on turn 9 = %+v, want the quest alone", sug)
	}
	if got := game.CallbackSuggestions(w, 5, true); len(got) != 0 {
		t.Errorf("suggestions on turn 5 = %+v, want none (mentioned on 3)", got)
	}

	recs, err := s.Turns(ctx, 1, s.Turn())
	if err != nil {
		t.Fatal(err)
	}
	if ref, all := game.CallbackRate(recs); all != 7 || ref < 5 || ref > all {
		t.Errorf("callback rate %d/%d, want at least 5 of the 7 turns after the first element", ref, all)
	}

	// Reopened and restored, the elements are those of the turn.
	want := stateJSON(t, s)
	s2, err := game.Open(ctx, openDB(t, dir), s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stateJSON(t, s2); got != want {
		t.Error("reopened state differs")
	}
	if err := s2.Restore(ctx, 6); err != nil {
		t.Fatal(err)
	}
	w2 := s2.World()
	if w2.ElementNamed("Giant Rat") != nil {
		t.Error("restored to turn 6, the rat of turn 7 is still an element")
	}
	if q := elementNamed(t, w2, "Rats in the Yard"); q.Resolved || q.TurnIntroduced != 3 {
		t.Errorf("restored quest element = %+v", q)
	}
}

// extractor is a model stand-in with a fixed structured answer.
type extractor struct {
	out  []world.NarrativeElement
	err  error
	seen []game.ExtractInput
}

func (x *extractor) ExtractElements(_ context.Context, in game.ExtractInput) ([]world.NarrativeElement, error) {
	x.seen = append(x.seen, in)
	return x.out, x.err
}

// A model's elements are validated: invalid ones are dropped, valid ones
// stored; when it fails, the offline extraction stands in.
func TestCallbacksFromTheModel(t *testing.T) {
	ctx := context.Background()
	x := &extractor{out: []world.NarrativeElement{
		{ElementType: world.ElementPromise, Name: "Wren's oath to the steward", Description: "Wren swore to return."},
		{ElementType: "mood", Name: "Gloom"},
		{ElementType: world.ElementItem, Name: strings.Repeat("x", 200)},
	}}
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 7, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.UseElementExtractor(x)
	act(t, s, "look")
	w := s.World()
	if e := elementNamed(t, w, "Wren's oath to the steward"); e.ElementType != world.ElementPromise || e.TurnIntroduced != 1 {
		t.Errorf("model element = %+v", e)
	}
	if w.ElementNamed("Gloom") != nil || len(w.Elements) != 1 {
		t.Errorf("elements %v: invalid proposals or offline ones kept beside the model's", world.SortedKeys(w.Elements))
	}
	if len(x.seen) != 1 || !strings.Contains(x.seen[0].Narrative, "Keep Gate") {
		t.Errorf("extractor saw %+v", x.seen)
	}

	x.out, x.err = nil, errors.New("model down")
	act(t, s, "go north")
	if w := s.World(); w.ElementNamed("Tomas") == nil {
		t.Error("with the model failing, the offline extraction did not stand in")
	}
}

func TestValidElements(t *testing.T) {
	w := world.New(world.SystemD20)
	if err := w.Apply(world.ElementExtracted{Element: world.NarrativeElement{ID: "a", ElementType: world.ElementItem, Name: "Rope", TurnIntroduced: 1}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      world.NarrativeElement
		keep    bool
		wantErr bool
	}{
		{"valid", world.NarrativeElement{ElementType: world.ElementThreat, Name: " The  Duke ", Description: "He hunts you."}, true, false},
		{"unknown type", world.NarrativeElement{ElementType: "feeling", Name: "Dread"}, false, true},
		{"empty name", world.NarrativeElement{ElementType: world.ElementEvent, Name: "  "}, false, true},
		{"long name", world.NarrativeElement{ElementType: world.ElementEvent, Name: strings.Repeat("a", 81)}, false, true},
		{"known already", world.NarrativeElement{ElementType: world.ElementItem, Name: "rope"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := game.ValidElements(w, []world.NarrativeElement{tt.in})
			if (err != nil) != tt.wantErr || (len(got) == 1) != tt.keep {
				t.Fatalf("got %+v, err %v", got, err)
			}
			if tt.keep && got[0].Name != "The Duke" {
				t.Errorf("name not normalised: %q", got[0].Name)
			}
		})
	}
}

// Only the game master's context is offered callbacks.
func TestCallbackSectionsForTheGMOnly(t *testing.T) {
	ctx := context.Background()
	var seen = map[access.Level]int{}
	p := pipelineFunc(func(ctx context.Context, tn *game.Turn) error {
		for _, l := range []access.Level{access.Player, access.GM} {
			for _, sec := range tn.CallbackSections(ctx, l) {
				if sec.Name == "callbacks" && strings.Contains(sec.Text, "Rats in the Yard") {
					seen[l]++
				}
			}
		}
		return tn.Fallback(ctx)
	})
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 7, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.UsePipeline(p)
	for _, in := range []string{"go north", "talk to tomas", "look", "look", "look", "look"} {
		act(t, s, in)
	}
	if seen[access.Player] != 0 || seen[access.GM] == 0 {
		t.Errorf("callback sections seen %v, want the GM's only", seen)
	}
}

type pipelineFunc func(context.Context, *game.Turn) error

func (pipelineFunc) Name() string                                   { return "func" }
func (f pipelineFunc) Play(ctx context.Context, t *game.Turn) error { return f(ctx, t) }
