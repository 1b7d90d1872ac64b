package game_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/world"
)

// quay is a world with the player on a quay and Maren of the guild there.
func quay(cha, dex, perception, reputation int) *world.State {
	w := world.New(world.SystemD20)
	w.Locations["quay"] = &world.Location{ID: "quay", Name: "the Quay"}
	w.Characters["pc"] = &world.Character{ID: "pc", Kind: world.PC, Name: "Ash", Location: "quay"}
	w.Characters["pc"].Abilities = map[string]int{"charisma": cha, "dexterity": dex, "wisdom": 10, "intelligence": 10}
	w.Characters["maren"] = &world.Character{ID: "maren", Kind: world.NPC, Name: "Maren", Location: "quay", Faction: "guild", Perception: perception}
	w.Factions["guild"] = &world.Faction{ID: "guild", Name: "the Guild", Reputation: reputation}
	w.Player = "pc"
	return w
}

var debt = narrative.Match{Score: 1, Event: narrative.Event{ID: 7, Turn: 3, Summary: "You paid off Maren's debt to the harbourmaster.",
	Characters: []string{"pc", "maren"}, Significance: 6, Kind: narrative.KindTriumph}}

func TestContextChoices(t *testing.T) {
	tests := []struct {
		name     string
		w        *world.State
		memories []narrative.Match
		want     []string // the choices' texts, in order
		drawsOn  []string
	}{
		{"nothing stands out", quay(10, 10, 0, 0), nil, nil, nil},
		{"a memory with someone present", quay(10, 10, 0, 0), []narrative.Match{debt},
			[]string{"Remind Maren of earlier: “You paid off Maren's debt to the harbourmaster”"}, []string{"memory"}},
		{"a liked player is offered cooperation", quay(10, 10, 45, 0), nil, []string{"Ask Maren for help"}, []string{"perception"}},
		{"a disliked player is offered nothing friendly", quay(16, 10, -45, 50), []narrative.Match{debt}, nil, nil},
		{"good standing with the faction", quay(10, 10, 0, 40), nil, []string{"Persuade Maren, as a friend of the Guild"}, []string{"reputation"}},
		{"high charisma", quay(16, 10, 0, 0), nil, []string{"Charm Maren into telling you more"}, []string{"stat:charisma"}},
		{"high dexterity", quay(10, 17, 0, 0), nil, []string{"Slip about the Quay unseen, searching as you go"}, []string{"stat:dexterity"}},
		{"a dexterity of 15 is not high", quay(10, 15, 0, 0), nil, nil, nil},
		{"all together, memories first", quay(10, 16, 45, 40), []narrative.Match{debt},
			[]string{"Remind Maren of earlier: “You paid off Maren's debt to the harbourmaster”", "Ask Maren for help",
				"Persuade Maren, as a friend of the Guild", "Slip about the Quay unseen, searching as you go"},
			[]string{"memory", "perception", "reputation", "stat:dexterity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := game.ContextChoices(tt.w, tt.memories)
			var texts, draws []string
			for _, c := range got {
				texts, draws = append(texts, c.Text), append(draws, c.DrawsOn)
			}
			if strings.Join(texts, "|") != strings.Join(tt.want, "|") || strings.Join(draws, "|") != strings.Join(tt.drawsOn, "|") {
				t.Errorf("choices:\n got %q %q\nwant %q %q", texts, draws, tt.want, tt.drawsOn)
			}
		})
	}
	t.Run("a memory that does not speak of them is no reminder", func(t *testing.T) {
		room := debt
		room.Event.Summary = "A low room that smells of fish stew."
		if got := game.ContextChoices(quay(10, 10, 0, 0), []narrative.Match{room}); len(got) != 0 {
			t.Errorf("choices: %+v", got)
		}
	})
	t.Run("a hostile NPC offers none", func(t *testing.T) {
		w := quay(16, 10, 45, 40)
		w.Characters["maren"].Hostile = true
		for _, c := range game.ContextChoices(w, []narrative.Match{debt}) {
			if c.NPC == "maren" {
				t.Errorf("choice about a hostile NPC: %+v", c)
			}
		}
	})
}

func TestEvaluateChoice(t *testing.T) {
	tests := []struct {
		name         string
		w            *world.State
		choice       game.ContextChoice
		mod, back    int
		unlikely     bool
		reasonPrefix string
	}{
		{"neutral", quay(10, 10, 0, 0), game.ContextChoice{NPC: "maren"}, 0, 0, false, ""},
		{"liked", quay(10, 10, 60, 0), game.ContextChoice{NPC: "maren"}, 1, 0, false, "Maren is"},
		{"disliked", quay(10, 10, -60, 0), game.ContextChoice{NPC: "maren"}, -1, 0, true, "Maren is"},
		{"a memory called back", quay(10, 10, 0, 0), game.ContextChoice{NPC: "maren", Memory: 7}, 1, 1, false, "remembers a triumph"},
		{"low charisma persuasion", quay(6, 10, 0, 40), game.ContextChoice{NPC: "maren", Stat: "charisma"}, 0, 0, true, "low charisma"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := game.EvaluateChoice(tt.w, tt.choice, []narrative.Match{debt})
			if ev.Modifier != tt.mod || ev.Callback != tt.back || ev.Unlikely != tt.unlikely {
				t.Errorf("evaluation %+v, want modifier %d, callback %d, unlikely %v", ev, tt.mod, tt.back, tt.unlikely)
			}
			if tt.reasonPrefix != "" && (len(ev.Reasons) == 0 || !strings.HasPrefix(ev.Reasons[0], tt.reasonPrefix)) {
				t.Errorf("reasons %q, want one starting %q", ev.Reasons, tt.reasonPrefix)
			}
		})
	}
}

func TestPlayerStats(t *testing.T) {
	w := quay(16, 8, 0, 0)
	pc := w.PC()
	pc.HP, pc.MaxHP = 7, 12
	pc.Stats = map[string]int{"courage": 7, "doom": 3}
	w.StatDefs["courage"] = &world.StatDef{ID: "courage", Label: "Courage", Min: 0, Max: 10}
	w.StatDefs["doom"] = &world.StatDef{ID: "doom", Min: 0, Max: 10, Hidden: true}
	got := game.PlayerStats(w)
	for _, want := range []string{"charisma: 16 (+3)", "dexterity: 8 (-1)", "Courage: 7 (0 to 10)", "hit points: 7 of 12"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "doom") {
		t.Errorf("a hidden stat is shown:\n%s", got)
	}
}

// TestChoicesDrawOnMemories plays the tiny campaign in choice mode with a
// memory store: after talking with Tomas, a choice recalls it, and
// picking it plays its input, not its words.
func TestChoicesDrawOnMemories(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	mem, err := sqlitenarrative.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	s, err := game.New(ctx, db, loadTiny(t), 5, game.Options{Memories: mem})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	act(t, s, "ask tomas about rats")
	act(t, s, "look") // that talk is now a turn ago
	s.UseChoices(&fixedChoices{opts: []string{"go south", "search", "wait"}})
	r := act(t, s, "look")
	if len(r.Awaiting.Options) < 3 || len(r.Awaiting.Options) > 4 {
		t.Fatalf("options: %q", r.Awaiting.Options)
	}
	s.UseChoices(&fixedChoices{opts: []string{"go south"}})
	if r := act(t, s, "look"); len(r.Awaiting.Options) < 3 {
		t.Errorf("fewer than three choices: %q", r.Awaiting.Options)
	}
	s.UseChoices(&fixedChoices{opts: []string{"go south", "search", "wait"}})
	r = act(t, s, "look")
	first := r.Awaiting.Options[0]
	if !strings.HasPrefix(first, "Remind Tomas of earlier: ") {
		t.Fatalf("the first choice does not draw on a memory: %q", r.Awaiting.Options)
	}
	r = act(t, s, "1")
	if strings.Contains(r.Narrative, "Remind") || !strings.Contains(r.Narrative, "Tomas") {
		t.Errorf("picking the memory choice did not talk to Tomas:\n%s", r.Narrative)
	}
}
