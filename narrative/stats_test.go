package narrative

import (
	"maps"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/world"
)

func campaignStats() []StatDef {
	return []StatDef{
		{ID: "health", Label: "Health", Min: 0, Max: 100, Default: 100, Category: "vital",
			BehavioralPrompt: "Describe declining health: heavy breathing at 70, visible wounds at 40."},
		{ID: "suspicion", Min: 0, Max: 100, Category: "social", Hidden: true,
			BehavioralPrompt: "Reveal suspicion indirectly: guards watching at 30, followed at 60.",
			Bands:            []Band{{Min: 60, Max: 89, Prompt: "the player is being followed"}}},
		FromWorld(world.StatDef{ID: "npc.owen.chemistry", Min: 0, Max: 10, Category: "relationship",
			Prompt: "Owen is guarded after a past betrayal."}),
		{ID: "trust", NPC: "owen", Min: 0, Max: 10, Default: 3, Category: "relationship"},
		{ID: "luck", Min: 1, Max: 5}, // default left at 0
	}
}

func TestInitStats(t *testing.T) {
	got, err := InitStats(campaignStats())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"health": 100, "suspicion": 0, "npc.owen.chemistry": 0, "npc.owen.trust": 3, "luck": 1}
	if !maps.Equal(got, want) {
		t.Errorf("InitStats = %v, want %v", got, want)
	}
	for name, defs := range map[string][]StatDef{
		"duplicate key": {{ID: "npc.owen.trust", Max: 1}, {ID: "trust", NPC: "owen", Max: 1}},
		"bad range":     {{ID: "x", Min: 5, Max: 1}},
		"empty id":      {{Max: 1}},
		"long prompt":   {{ID: "x", Max: 1, BehavioralPrompt: strings.Repeat("p", MaxPromptBytes+1)}},
		"bad band":      {{ID: "x", Max: 1, Bands: []Band{{Min: 3, Max: 1}}}},
	} {
		if _, err := InitStats(defs); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestStatScope(t *testing.T) {
	defs := campaignStats()
	cases := []struct {
		d                    StatDef
		key, name, path, npc string
	}{
		{defs[0], "health", "health", "player.stats.health", ""},
		{defs[2], "npc.owen.chemistry", "chemistry", "npcs.owen.stats.chemistry", "owen"},
		{defs[3], "npc.owen.trust", "trust", "npcs.owen.stats.trust", "owen"},
	}
	for _, tc := range cases {
		if tc.d.Key() != tc.key || tc.d.Name() != tc.name || tc.d.StatePath() != tc.path || tc.d.NPC != tc.npc {
			t.Errorf("%s: key %q name %q path %q npc %q", tc.d.ID, tc.d.Key(), tc.d.Name(), tc.d.StatePath(), tc.d.NPC)
		}
	}
}

func TestSetStatClamps(t *testing.T) {
	defs := campaignStats()
	values, _ := InitStats(defs)
	for _, tc := range []struct {
		key  string
		v    int
		want int
	}{
		{"health", -5, 0}, {"health", 150, 100}, {"health", 72, 72}, {"npc.owen.trust", 11, 10},
	} {
		got, err := SetStat(defs, values, tc.key, tc.v)
		if err != nil || got != tc.want || values[tc.key] != tc.want {
			t.Errorf("SetStat(%s, %d) = %d, %v; stored %d; want %d", tc.key, tc.v, got, err, values[tc.key], tc.want)
		}
	}
	if _, err := SetStat(defs, values, "mana", 3); err == nil || !strings.Contains(err.Error(), "health") {
		t.Errorf("unknown stat: %v, want an error listing the stats", err)
	}
}

func TestBehaviouralPrompts(t *testing.T) {
	defs := campaignStats()
	values, _ := InitStats(defs)
	values["health"] = 72
	values["suspicion"] = 65
	values["npc.owen.chemistry"] = 4

	gm := BehaviouralPrompts(defs, values, access.GM)
	for _, want := range []string{
		"CAMPAIGN STATS:\n",
		`- health (vital): 0-100, currently 72. "Describe declining health`,
		"- chemistry (relationship, NPC: Owen): 0-10, currently 4. \"Owen is guarded",
		"- suspicion (social, hidden: never reveal it to the player): 0-100, currently 65.",
		"Now (60-89): the player is being followed",
		"- luck (general): 1-5, currently 1.",
	} {
		if !strings.Contains(gm, want) {
			t.Errorf("GM prompt lacks %q:\n%s", want, gm)
		}
	}
	if strings.Index(gm, "- health") > strings.Index(gm, "- chemistry") {
		t.Errorf("player stats should come before NPC stats:\n%s", gm)
	}
	for _, viewer := range []access.Level{access.Player, access.Trusted, access.Assistant} {
		p := BehaviouralPrompts(defs, values, viewer)
		if strings.Contains(p, "suspicion") || strings.Contains(p, "followed") {
			t.Errorf("%v sees the hidden stat:\n%s", viewer, p)
		}
		if !strings.Contains(p, "health") {
			t.Errorf("%v does not see health:\n%s", viewer, p)
		}
	}
	if BehaviouralPrompts(nil, nil, access.GM) != "" {
		t.Error("no stats should give no prompt")
	}
	if again := BehaviouralPrompts(defs, values, access.GM); again != gm {
		t.Error("prompts are not deterministic")
	}
}

func TestInlineStats(t *testing.T) {
	defs, err := InlineStats("owen", map[string]InlineStat{
		"chemistry": {Value: 0, Range: "0-10"},
		"trust":     {Value: 3, Range: "0 to 10"},
	})
	if err != nil {
		t.Fatal(err)
	}
	merged := MergeStats([]StatDef{{ID: "npc.owen.chemistry", NPC: "owen", Max: 10, BehavioralPrompt: "file wins"}}, defs)
	if len(merged) != 2 || merged[0].BehavioralPrompt != "file wins" || merged[1].Key() != "npc.owen.trust" {
		t.Errorf("merged = %+v", merged)
	}
	if _, err := InlineStats("owen", map[string]InlineStat{"x": {Range: "ten"}}); err == nil {
		t.Error("bad range accepted")
	}
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi int
		ok     bool
	}{
		{"0-10", 0, 10, true}, {" -100..100 ", -100, 100, true}, {"1 to 5", 1, 5, true}, {"-10--1", -10, -1, true},
		{"10-0", 0, 0, false}, {"", 0, 0, false}, {"a-b", 0, 0, false}, {"1-99999999999", 0, 0, false},
	} {
		lo, hi, err := ParseRange(tc.in)
		if (err == nil) != tc.ok || lo != tc.lo || hi != tc.hi {
			t.Errorf("ParseRange(%q) = %d, %d, %v", tc.in, lo, hi, err)
		}
	}
}
