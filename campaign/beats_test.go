package campaign

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseBeat(t *testing.T) {
	seed := `entity_type: plot_beat
entity_id: vision
title: Vision of the Future
description: Merlin receives a prophetic vision of Camelot in flames
conditions:
  scene_count_min: 2
  scene_count_max: 5
  requires_beat: [opening_encounter]
  player_state: established_in_camelot
priority: critical
consequences:
  - state_patch: {player.gained_knowledge: true}
  - npc_mood_change: {merlin: more_secretive}
skippable: false
mood: foreboding
music: music/theme_vision.mp3
`
	b, probs := ParseBeat("plot_beat_vision.yml", []byte(seed))
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	want := Beat{ID: "vision", Title: "Vision of the Future", Description: "Merlin receives a prophetic vision of Camelot in flames",
		Priority: PriorityCritical, MinScene: 2, MaxScene: 5, Requires: []string{"opening_encounter"},
		Conditions: []Condition{{Kind: CondFlag, Subject: "established_in_camelot", Line: 5}},
		Outcomes: []Outcome{{"state_patch": map[string]any{"player.gained_knowledge": true}},
			{"npc_mood_change": map[string]any{"merlin": "more_secretive"}}},
		Mood: "foreboding", Music: "music/theme_vision.mp3", File: "plot_beat_vision.yml", Line: 1}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("seed 001's beat:\n got %+v\nwant %+v", b, want)
	}

	tests := []struct {
		name, in string
		conds    []Condition
		problem  string
	}{
		{"stats and reputation", "conditions:\n  stats: {suspicion: \">= 50\", resolve: 3}\n  reputation: {guild: \"< -10\"}\n",
			[]Condition{{Kind: CondReputation, Subject: "guild", Op: "<", Value: "-10", Line: 1}, // keys in order: reputation, stats
				{Kind: CondStat, Subject: "resolve", Op: ">=", Value: "3", Line: 1}, {Kind: CondStat, Subject: "suspicion", Op: ">=", Value: "50", Line: 1}}, ""},
		{"list of expressions", "conditions:\n  - suspicion > 20\n  - reputation.guild >= 5\n  - world.weather == storm\n  - lens_found\n  - {location: \"not cave\"}\n  - {items: [key]}\n",
			[]Condition{{Kind: CondStat, Subject: "suspicion", Op: ">", Value: "20", Line: 1}, {Kind: CondReputation, Subject: "guild", Op: ">=", Value: "5", Line: 1},
				{Kind: CondState, Subject: "world.weather", Op: "==", Value: "storm", Line: 1}, {Kind: CondFlag, Subject: "lens_found", Line: 1},
				{Kind: CondLocation, Subject: "cave", Not: true, Line: 1}, {Kind: CondItem, Subject: "key", Line: 1}}, ""},
		{"unknown condition", "conditions:\n  weather: storm\n", nil, `plot_beat_x.yml:1: plot beat "x": unknown condition "weather"; use after_scenes, flags, items, location,`},
		{"not a number", "conditions:\n  stats: {luck: high}\n", nil, `plot_beat_x.yml:1: plot beat "x": stat luck: "high" is not a number`},
		{"bad priority", "priority: urgent\n", nil, `plot_beat_x.yml:1: plot beat "x": priority urgent: use critical, high, medium, low or optional`},
		{"scenes backwards", "min_scene: 5\nmax_scene: 2\n", nil, `plot beat "x": max_scene 2 is before min_scene 5`},
		{"scenes not numbers", "conditions: {min_scene: soon}\n", nil, `plot_beat_x.yml:1: plot beat "x": min_scene should be a whole number of scenes`},
		{"bad expression", "conditions: [\">= 5\"]\n", nil, `cannot read condition ">= 5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, probs := ParseBeat("plot_beat_x.yml", []byte(tt.in))
			if tt.problem != "" {
				if len(probs) == 0 || !strings.Contains(probs[0].Error(), tt.problem) {
					t.Errorf("problems %v, want %q", probs, tt.problem)
				}
				return
			}
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			if !reflect.DeepEqual(b.Conditions, tt.conds) {
				t.Errorf("conditions\n got %+v\nwant %+v", b.Conditions, tt.conds)
			}
		})
	}
}

func TestBeatsInAPack(t *testing.T) {
	p := loadPack(t, bestiary)
	i := slices.IndexFunc(p.Beats, func(b Beat) bool { return b.ID == "chief" })
	chief := p.Beats[i]
	if chief.Priority != PriorityCritical || chief.Skippable || !slices.Equal(chief.Requires, []string{"ambush"}) ||
		!strings.HasPrefix(chief.Description, "The Hollow King himself") || len(chief.Conditions) != 2 {
		t.Errorf("plot_beat_chief.md: %+v", chief)
	}

	files := packFiles()
	files["plot/beats.yml"] = `beats:
  - id: opening
    description: It begins.
  - id: middle
    requires: [opening]
  - {id: end, requires: [middle, epilogue]}
`
	p, got := problemsOf(t, files)
	if len(p.Beats) != 3 || !slices.Contains(got, `error plot/beats.yml:6: plot beat "end" requires "epilogue", which is not a plot beat; known beats: end, middle, opening`) {
		t.Errorf("%d beats, problems %q", len(p.Beats), got)
	}

	// A cycle is named, beat by beat.
	files = packFiles()
	files["plot_beat_a.yml"] = "requires: [c]\n"
	files["plot_beat_b.yml"] = "requires: [a]\n"
	files["plot_beat_c.yml"] = "requires: [b]\n"
	files["plot_beat_d.yml"] = "requires: [a, d]\n"
	_, got = problemsOf(t, files)
	for _, w := range []string{
		"error plot_beat_a.yml:1: plot beats' prerequisites form a cycle: a → c → b → a; remove one of them",
		"error plot_beat_d.yml:1: plot beats' prerequisites form a cycle: d → d; remove one of them",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("problems %q\nwant %q", got, w)
		}
	}
	if len(got) != 2 {
		t.Errorf("each cycle once: %q", got)
	}

	// A beat's conditions name entities that exist.
	files = packFiles()
	files["plot_beat_storm.md"] = "---\nconditions:\n  location: moor\n  items: [staff]\n---\nThunder.\n"
	_, got = problemsOf(t, files)
	if len(got) != 1 || got[0] != `error plot_beat_storm.md:2: location "moor" does not exist; known locations: heath` {
		t.Errorf("problems %q", got)
	}
}
