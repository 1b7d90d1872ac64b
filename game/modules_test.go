package game_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

func TestValidModules(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name    string
		in      []world.Module
		want    []int // numbers kept, in order
		names   []string
		wantErr bool
	}{
		{"numbered", []world.Module{{Number: 3, Name: "A"}, {Number: 1, Name: "B"}}, []int{3, 1}, []string{"A", "B"}, false},
		{"missing and repeated numbers filled", []world.Module{{Name: "A"}, {Number: 1, Name: "B"}, {Number: 1, Name: "C"}},
			[]int{2, 1, 3}, []string{"A", "B", "C"}, false},
		{"a nameless module dropped", []world.Module{{Number: 1, Name: "  "}, {Number: 2, Name: " The \n Keep "}}, []int{2}, []string{"The Keep"}, true},
		{"too many", func() []world.Module {
			var ms []world.Module
			for range game.ModulesMax + 3 {
				ms = append(ms, world.Module{Name: "M"})
			}
			return ms
		}(), nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := game.ValidModules(tt.in, game.ModulesFromModel)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if tt.want == nil {
				if len(got) != game.ModulesMax {
					t.Fatalf("%d modules kept, want %d", len(got), game.ModulesMax)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want numbers %v", got, tt.want)
			}
			for i, m := range got {
				if m.Number != tt.want[i] || m.Name != tt.names[i] || m.Source != game.ModulesFromModel {
					t.Errorf("module %d: %+v, want number %d name %q", i, m, tt.want[i], tt.names[i])
				}
			}
		})
	}
	got, _ := game.ValidModules([]world.Module{{Name: long, Description: long, Hooks: long, Setting: long}}, "")
	if len(got[0].Name) > 200 || len(got[0].Description) > 1300 || len(got[0].Hooks) > 1300 || len(got[0].Setting) > 200 {
		t.Errorf("fields not cut to their limits: name %d, description %d, hooks %d, setting %d bytes",
			len(got[0].Name), len(got[0].Description), len(got[0].Hooks), len(got[0].Setting))
	}
}

func TestFindModule(t *testing.T) {
	list := []world.Module{{Number: 1, Name: "Keep on the Borderlands"}, {Number: 7, Name: "The Sunless Citadel"}}
	tests := []struct {
		name   string
		number int
		named  string
		want   string
		code   hearth.Code
	}{
		{"by number", 7, "", "The Sunless Citadel", ""},
		{"by name, any case", 0, "keep ON the borderlands", "Keep on the Borderlands", ""},
		{"number wins over name", 1, "The Sunless Citadel", "Keep on the Borderlands", ""},
		{"unknown number", 3, "", "", hearth.NotFound},
		{"unknown name", 0, "Tomb of Horrors", "", hearth.NotFound},
		{"neither", 0, " ", "", hearth.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := game.FindModule(list, tt.number, tt.named)
			if hearth.ErrorCode(err) != tt.code || m.Name != tt.want {
				t.Errorf("got %q, %v; want %q, code %q", m.Name, err, tt.want, tt.code)
			}
		})
	}
}

// sectionsPipeline plays offline and keeps, for each turn, the module
// sections a GM's and a player's context would get.
type sectionsPipeline struct{ gm, player [][]contextpack.Section }

func (p *sectionsPipeline) Name() string { return "sections" }
func (p *sectionsPipeline) Play(ctx context.Context, t *game.Turn) error {
	p.gm = append(p.gm, t.ModuleSections(ctx, access.GM))
	p.player = append(p.player, t.ModuleSections(ctx, access.Assistant))
	return t.Fallback(ctx)
}

// Choosing a module is a DM turn: the GM's context gets the module, no
// player's view, agent's view, turn narrative or transcript does; reopen
// and replay keep it, restore before it drops it.
func TestSelectModule(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	pl := &sectionsPipeline{}
	s, err := game.New(ctx, db, loadParty(t), 5, game.Options{Pipeline: pl})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "look around")
	before := s.Turn()
	m := world.Module{Number: 4, Name: "The Drowned Abbey", Description: "Monks who never left.", Setting: "A flooded fen",
		LevelRange: "3-5", Hooks: "ABBEYHOOK", NPCs: "ABBOTNPC", Guidelines: "Water rises each hour.", Source: game.ModulesFromModel}
	r, err := s.SelectModule(ctx, m, "gail")
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent != game.DM || r.Narrative != "" || !world.Has[world.ModuleSelected](r.Effects) {
		t.Fatalf("module turn: agent %q, narrative %q, effects %v", r.Agent, r.Narrative, r.Effects)
	}
	if _, err := s.SelectModule(ctx, m, "gail"); hearth.ErrorCode(err) != hearth.Conflict {
		t.Errorf("choosing the same module again: %v, want a conflict", err)
	}
	act(t, s, "look around")

	gm := pl.gm[len(pl.gm)-1]
	if len(gm) != 1 || !gm[0].Stable || !strings.Contains(gm[0].Text, "## Current Module: The Drowned Abbey") ||
		!strings.Contains(gm[0].Text, "ABBEYHOOK") || !strings.Contains(gm[0].Text, "ABBOTNPC") || !strings.Contains(gm[0].Text, "(levels 3-5)") {
		t.Errorf("the GM's context after the choice: %+v", gm)
	}
	if len(pl.gm[0]) != 0 {
		t.Errorf("the GM's context before the choice holds a module: %+v", pl.gm[0])
	}
	for i, secs := range pl.player {
		if len(secs) != 0 {
			t.Errorf("turn %d: a context below the GM's holds the module: %+v", i+1, secs)
		}
	}

	leaks := func(what, text string) {
		t.Helper()
		for _, mark := range []string{"Drowned Abbey", "ABBEYHOOK", "ABBOTNPC"} {
			if strings.Contains(text, mark) {
				t.Errorf("%s holds %s", what, mark)
			}
		}
	}
	w := s.World()
	for _, mb := range w.Party {
		leaks("the agent view of "+mb.Character, marshalJSON(t, game.AgentView(w, mb.Character)))
		leaks("the player view of "+mb.Character, marshalJSON(t, w.View(access.Player, mb.Character)))
		leaks("the visible effects for "+mb.Character, marshalJSON(t, w.View(access.Trusted, mb.Character).VisibleEffects(r.Effects, access.Trusted, mb.Character)))
	}
	if w.Module == nil || w.Module.Name != m.Name {
		t.Fatalf("the state's module: %+v", w.Module)
	}
	recs, err := s.Turns(ctx, 1, 99)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range recs {
		leaks("a turn record's narrative", tr.Narrative+tr.Input)
	}
	var md bytes.Buffer
	if err := s.Export(ctx, &md, "md"); err != nil {
		t.Fatal(err)
	}
	leaks("the transcript", md.String())

	if err := s.Verify(ctx); err != nil {
		t.Errorf("replay: %v", err)
	}
	re, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := re.World().Module; got == nil || *got != *w.Module {
		t.Errorf("reopened: module %+v, want %+v", got, w.Module)
	}
	if err := re.Restore(ctx, before); err != nil {
		t.Fatal(err)
	}
	if got := re.World().Module; got != nil {
		t.Errorf("restored to turn %d, before the choice: module %+v", before, got)
	}
	if err := re.Restore(ctx, before+1); err != nil {
		t.Fatal(err)
	}
	if got := re.World().Module; got == nil || got.Name != m.Name {
		t.Errorf("restored to the choice's turn: module %+v", got)
	}
}

func marshalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
