package narrative

import (
	"strings"
	"testing"
)

func TestModifiers(t *testing.T) {
	triumph := Match{Event: Event{ID: 1, Summary: "Defeated the troll at the bridge", Kind: KindTriumph, Significance: 9}, Score: 0.82, Method: ByVector}
	failure := Match{Event: Event{ID: 2, Summary: "Fell from the bridge", Kind: KindFailure}, Score: 0.5, Method: ByLexical}
	ordinary := Match{Event: Event{ID: 3, Summary: "Crossed the bridge", Kind: KindEvent}, Score: 0.95, Method: ByVector}
	weak := Match{Event: Event{ID: 4, Summary: "Won a game of dice", Kind: KindTriumph}, Score: 0.4, Method: ByVector}
	listed := Match{Event: Event{ID: 5, Summary: "Beat the guard", Kind: KindTriumph}, Score: 1, Method: ByFilter}

	cases := []struct {
		name string
		s    Situation
		want map[string]int // source → value
	}{
		{"nothing", Situation{}, map[string]int{}},
		{"relevant triumph", Situation{Memories: []Match{ordinary, triumph}}, map[string]int{FromMemory: 1}},
		{"relevant failure (lexical)", Situation{Memories: []Match{failure}}, map[string]int{FromMemory: 1}},
		{"ordinary memory is no callback", Situation{Memories: []Match{ordinary}}, map[string]int{}},
		{"episodic but not relevant", Situation{Memories: []Match{weak}}, map[string]int{}},
		{"episodic with a lowered threshold", Situation{Memories: []Match{weak}, MinScore: 0.3}, map[string]int{FromMemory: 1}},
		{"unscored listing is no callback", Situation{Memories: []Match{listed}}, map[string]int{}},
		{"two callbacks still +1", Situation{Memories: []Match{triumph, failure}}, map[string]int{FromMemory: 1}},
		{"friendly NPC", Situation{NPC: "gareth", Perception: 45}, map[string]int{FromPerception: 1}},
		{"devoted NPC", Situation{NPC: "gareth", Perception: 95}, map[string]int{FromPerception: 3}},
		{"devoted NPC, 2d6 cap", Situation{NPC: "gareth", Perception: 95, Limit: 1}, map[string]int{FromPerception: 1}},
		{"hostile NPC with a triumph", Situation{NPC: "mira", Perception: -70, Memories: []Match{triumph}}, map[string]int{FromPerception: -2, FromMemory: 1}},
		{"neutral NPC", Situation{NPC: "gareth", Perception: 30}, map[string]int{}},
		{"perception without an NPC", Situation{Perception: 95}, map[string]int{}},
	}
	for _, tc := range cases {
		got := Modifiers(tc.s)
		have := map[string]int{}
		for _, m := range got {
			have[m.Source] = m.Value
			if m.Reason == "" {
				t.Errorf("%s: %+v has no reason", tc.name, m)
			}
		}
		if len(have) != len(tc.want) {
			t.Errorf("%s: %+v, want %v", tc.name, got, tc.want)
			continue
		}
		for src, v := range tc.want {
			if have[src] != v {
				t.Errorf("%s: %s = %d, want %d (%+v)", tc.name, src, have[src], v, got)
			}
		}
	}
	ms := Modifiers(Situation{NPC: "mira", Perception: -70, Memories: []Match{failure, triumph}})
	if Total(ms) != -1 {
		t.Errorf("Total = %d, want -1", Total(ms))
	}
	if r := ms[1].Reason; !strings.Contains(r, "troll") {
		t.Errorf("callback reason %q should name the most relevant memory (the troll)", r)
	}
}

// TestEpisodicCallbackFromRecall runs the path the rules engine takes:
// recall episodic memories for the action, then ask for modifiers.
func TestEpisodicCallbackFromRecall(t *testing.T) {
	x := indexOf(t, memories(), IndexOptions{})
	for _, tc := range []struct {
		action string
		want   int
	}{
		{"fight the thieves guild again", 1}, // the ambush failure
		{"repair the anvil", 1},              // the anvil triumph
		{"haggle over a sword", 0},           // only an ordinary memory
		{"sing to the moon", 0},
	} {
		ms, err := x.Recall(Query{Playthrough: "p1", Text: tc.action, Filter: Filter{Episodic: true}})
		if err != nil {
			t.Fatal(err)
		}
		if got := Total(Modifiers(Situation{Memories: ms})); got != tc.want {
			t.Errorf("%q: modifier %d, want %d (recalled %v)", tc.action, got, tc.want, ids(ms))
		}
	}
}
