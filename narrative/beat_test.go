package narrative

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// state is a View over plain maps.
type state struct {
	stats      map[string]float64
	flags      map[string]bool
	location   string
	items      map[string]bool
	reputation map[string]float64
	perception map[string]float64
}

func (s *state) Stat(k string) (float64, bool) { v, ok := s.stats[k]; return v, ok }
func (s *state) Flag(n string) bool            { return s.flags[n] }
func (s *state) Location() string              { return s.location }
func (s *state) HasItem(id string) bool        { return s.items[id] }
func (s *state) Reputation(f string) float64   { return s.reputation[f] }
func (s *state) Perception(npc string) float64 { return s.perception[npc] }

func newState() *state {
	return &state{stats: map[string]float64{}, flags: map[string]bool{}, items: map[string]bool{},
		reputation: map[string]float64{}, perception: map[string]float64{}}
}

func cond(t *testing.T, s string) Condition {
	t.Helper()
	c, err := ParseCondition(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// play runs transitions into scenes from..to, applying each decision set
// and the state changes change makes before each transition; it returns
// the scene each beat triggered in and the final log.
func play(t *testing.T, beats []Beat, v View, from, to int, opt BeatOptions, change func(scene int)) (map[string]int, BeatLog) {
	t.Helper()
	log := BeatLog{}
	got := map[string]int{}
	for scene := from; scene <= to; scene++ {
		if change != nil {
			change(scene)
		}
		ds, err := EvaluateBeats(beats, v, log, scene, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Reason == "" {
				t.Errorf("scene %d: decision %+v has no reason", scene, d)
			}
			if d.Action == Trigger {
				got[d.Beat] = scene
			}
		}
		log = log.Apply(ds)
	}
	return got, log
}

func TestBeatWindow(t *testing.T) {
	beats := []Beat{{ID: "vision", MinScene: 2, MaxScene: 5}}
	got, _ := play(t, beats, newState(), 1, 6, BeatOptions{}, nil)
	if got["vision"] != 2 {
		t.Errorf("vision triggered at %v, want scene 2", got)
	}
	// A beat whose condition only holds after its window is skipped.
	s := newState()
	beats = []Beat{{ID: "late", MaxScene: 3, Conditions: []Condition{cond(t, "flag ready")}}}
	got, log := play(t, beats, s, 1, 5, BeatOptions{}, func(scene int) { s.flags["ready"] = scene >= 4 })
	if _, ok := got["late"]; ok || log["late"].Status != Unreachable || log["late"].Scene != 4 {
		t.Errorf("late: triggered %v, state %+v; want unreachable at scene 4", got, log["late"])
	}
	if !strings.Contains(log["late"].Reason, "window closed") {
		t.Errorf("reason %q does not say the window closed", log["late"].Reason)
	}
}

func TestBeatPrerequisites(t *testing.T) {
	beats := []Beat{
		{ID: "betrayal", Prerequisites: []string{"first_trial"}},
		{ID: "first_trial", MinScene: 2},
		{ID: "finale", Prerequisites: []string{"betrayal", "first_trial"}, Priority: Critical},
	}
	got, _ := play(t, beats, newState(), 1, 6, BeatOptions{PerScene: 3}, nil)
	want := map[string]int{"first_trial": 2, "betrayal": 3, "finale": 4}
	for id, scene := range want {
		if got[id] != scene {
			t.Errorf("%s triggered in scene %d, want %d (all: %v)", id, got[id], scene, got)
		}
	}
}

func TestBeatConditions(t *testing.T) {
	s := newState()
	s.location = "camelot"
	s.stats["player.stats.health"] = 30
	s.reputation["knights"] = 40
	s.perception["merlin"] = 10
	s.items["excalibur"] = true
	beat := Beat{ID: "audience", Conditions: []Condition{
		cond(t, "location camelot"),
		cond(t, "stat player.stats.health >= 40"),
		cond(t, "reputation knights > 30"),
		cond(t, "perception merlin > 30"),
		cond(t, "item excalibur"),
		cond(t, "not flag exiled"),
	}}
	steps := []struct {
		change func()
		want   Action
		reason string
	}{
		{func() {}, Wait, "stat player.stats.health is 30, want >= 40"},
		{func() { s.stats["player.stats.health"] = 40 }, Wait, "perception merlin is 10, want > 30"},
		{func() { s.perception["merlin"] = 31; s.flags["exiled"] = true }, Wait, "not: flag exiled is set"},
		{func() { s.flags["exiled"] = false; s.location = "road" }, Wait, `player is at "road", want "camelot"`},
		{func() { s.location = "camelot" }, Trigger, ""},
	}
	log := BeatLog{}
	for i, st := range steps {
		st.change()
		ds, err := EvaluateBeats([]Beat{beat}, s, log, i+1, BeatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].Action != st.want || !strings.Contains(ds[0].Reason, st.reason) {
			t.Fatalf("step %d: %+v, want %s with reason containing %q", i, ds, st.want, st.reason)
		}
		log = log.Apply(ds)
	}
	if ds, _ := EvaluateBeats([]Beat{beat}, s, log, 6, BeatOptions{}); len(ds) != 0 {
		t.Errorf("a triggered beat was decided again: %+v", ds)
	}
	missing := Beat{ID: "m", Conditions: []Condition{cond(t, "stat luck > 1")}}
	if ds, _ := EvaluateBeats([]Beat{missing}, s, BeatLog{}, 1, BeatOptions{}); ds[0].Action != Wait || !strings.Contains(ds[0].Reason, "not defined") {
		t.Errorf("undefined stat: %+v", ds)
	}
}

func TestBeatPriority(t *testing.T) {
	beats := []Beat{
		{ID: "optional", Priority: Optional},
		{ID: "medium"},
		{ID: "critical", Priority: Critical},
		{ID: "high", Priority: High},
	}
	ds, err := EvaluateBeats(beats, newState(), BeatLog{}, 1, BeatOptions{PerScene: 2})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, d := range ds {
		order = append(order, string(d.Action)+":"+d.Beat)
	}
	want := []string{"trigger:critical", "trigger:high", "defer:optional", "defer:medium"}
	if !slices.Equal(order, want) {
		t.Errorf("decisions %v, want %v", order, want)
	}
	// Equal priority: the window closing first goes first.
	beats = []Beat{{ID: "open"}, {ID: "closing", MaxScene: 3}}
	ds, _ = EvaluateBeats(beats, newState(), BeatLog{}, 1, BeatOptions{})
	if ds[0].Beat != "closing" || ds[0].Action != Trigger {
		t.Errorf("got %+v, want the closing window first", ds)
	}
}

// TestBeatTriggersWithinTwoScenes is SC-035/SC-044: two beats become
// eligible at the same transition; one triggers then, the other at the
// next, even though a higher-priority beat becomes eligible there too.
func TestBeatTriggersWithinTwoScenes(t *testing.T) {
	s := newState()
	beats := []Beat{
		{ID: "duel", Priority: High, Conditions: []Condition{cond(t, "flag insulted")}},
		{ID: "letter", Priority: Medium, Conditions: []Condition{cond(t, "flag insulted")}},
		{ID: "storm", Priority: Critical, Conditions: []Condition{cond(t, "flag sailing")}},
		{ID: "omen", Priority: Low, Conditions: []Condition{cond(t, "flag sailing")}},
	}
	got, log := play(t, beats, s, 1, 8, BeatOptions{}, func(scene int) {
		s.flags["insulted"] = scene >= 3
		s.flags["sailing"] = scene >= 4
	})
	want := map[string]int{"duel": 3, "letter": 4, "storm": 5, "omen": 6}
	for id, scene := range want {
		if got[id] != scene {
			t.Errorf("%s triggered in scene %d, want %d (all: %v)", id, got[id], scene, got)
		}
	}
	for _, id := range []string{"duel", "letter"} {
		st := log[id]
		if st.Scene-st.EligibleSince > 1 {
			t.Errorf("%s: eligible at %d, triggered at %d: more than two scenes", id, st.EligibleSince, st.Scene)
		}
	}
	if log["letter"].EligibleSince != 3 {
		t.Errorf("letter eligible since %d, want 3", log["letter"].EligibleSince)
	}
}

func TestBeatDeferredLosesPlaceWhenConditionsLapse(t *testing.T) {
	s := newState()
	beats := []Beat{
		{ID: "a", Priority: High, Conditions: []Condition{cond(t, "flag f")}},
		{ID: "b", Conditions: []Condition{cond(t, "flag f")}},
	}
	got, log := play(t, beats, s, 1, 3, BeatOptions{}, func(scene int) { s.flags["f"] = scene == 1 })
	if got["a"] != 1 || got["b"] != 0 || log["b"].EligibleSince != 0 || log["b"].Status != Pending {
		t.Errorf("got %v, b %+v: want b waiting again, not eligible", got, log["b"])
	}
}

func TestBeatUnreachable(t *testing.T) {
	beats := []Beat{
		{ID: "needs_ghost", Prerequisites: []string{"ghost"}},
		{ID: "loop_a", Prerequisites: []string{"loop_b"}},
		{ID: "loop_b", Prerequisites: []string{"loop_a"}},
		{ID: "early", MaxScene: 2, Conditions: []Condition{{Kind: CondFlag, Key: "never"}}},
		{ID: "after_early", Prerequisites: []string{"early"}},
		{ID: "tight", MaxScene: 2, Prerequisites: []string{"first"}},
		{ID: "first", MinScene: 2},
		{ID: "fine"},
	}
	cases := map[string]string{
		"needs_ghost": "ghost is not a plot beat",
		"loop_a":      "prerequisite cycle",
		"loop_b":      "prerequisite cycle",
		"tight":       "the window closes after scene 2",
	}
	ds, err := EvaluateBeats(beats, newState(), BeatLog{}, 1, BeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Decision{}
	for _, d := range ds {
		by[d.Beat] = d
	}
	for id, reason := range cases {
		if d := by[id]; d.Action != Skip || !strings.Contains(d.Reason, reason) {
			t.Errorf("%s: %+v, want skip because %q", id, d, reason)
		}
	}
	if by["fine"].Action != Trigger || by["early"].Action != Wait || by["after_early"].Action != Wait {
		t.Errorf("reachable beats: %+v", ds)
	}
	// Once early's window closes, the beat that needs it is skipped too.
	got, log := play(t, beats, newState(), 1, 4, BeatOptions{PerScene: 5}, nil)
	if log["early"].Status != Unreachable || log["after_early"].Status != Unreachable {
		t.Errorf("early %+v, after_early %+v: want both unreachable", log["early"], log["after_early"])
	}
	if got["fine"] != 1 || got["first"] != 2 {
		t.Errorf("reachable beats triggered at %v", got)
	}
}

func TestBeatSetErrors(t *testing.T) {
	for name, beats := range map[string][]Beat{
		"duplicate":       {{ID: "a"}, {ID: "a"}},
		"empty id":        {{}},
		"window":          {{ID: "a", MinScene: 5, MaxScene: 2}},
		"negative window": {{ID: "a", MinScene: -1}},
		"priority":        {{ID: "a", Priority: 9}},
		"condition":       {{ID: "a", Conditions: []Condition{{Kind: "mood", Key: "x"}}}},
	} {
		if _, err := EvaluateBeats(beats, newState(), BeatLog{}, 1, BeatOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := EvaluateBeats(nil, newState(), BeatLog{}, 0, BeatOptions{}); err == nil {
		t.Error("scene 0 accepted")
	}
}

func TestParseCondition(t *testing.T) {
	cases := []struct {
		in   string
		want Condition
		err  string
	}{
		{in: "stat health >= 40", want: Condition{Kind: CondStat, Key: "health", Op: OpGE, Value: 40}},
		{in: "reputation thieves_guild < -30", want: Condition{Kind: CondReputation, Key: "thieves_guild", Op: OpLT, Value: -30}},
		{in: "  Perception   owen != 0.5 ", want: Condition{Kind: CondPerception, Key: "owen", Op: OpNE, Value: 0.5}},
		{in: "flag met_owen", want: Condition{Kind: CondFlag, Key: "met_owen"}},
		{in: "not flag betrayed", want: Condition{Kind: CondFlag, Key: "betrayed", Not: true}},
		{in: "!item key", want: Condition{Kind: CondItem, Key: "key", Not: true}},
		{in: "location camelot", want: Condition{Kind: CondLocation, Key: "camelot"}},
		{in: "", err: "empty"},
		{in: "not", err: "empty"},
		{in: "mood dark", err: "unknown kind"},
		{in: "stat health", err: "stat KEY OP NUMBER"},
		{in: "stat health => 3", err: "operator"},
		{in: "stat health >= lots", err: "not a number"},
		{in: "stat health >= NaN", err: "finite"},
		{in: "flag a b", err: "flag NAME"},
		{in: strings.Repeat("x", MaxConditionBytes+1), err: "limit"},
	}
	for _, tc := range cases {
		got, err := ParseCondition(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseCondition(%q) error %v, want one mentioning %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseCondition(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if back, err := ParseCondition(got.String()); err != nil || back != got {
			t.Errorf("round trip of %q through %q = %+v, %v", tc.in, got.String(), back, err)
		}
	}
}

func TestBeatJSON(t *testing.T) {
	src := `{"id":"vision","priority":"critical","min_scene":2,"max_scene":5,
		"prerequisites":["opening_encounter"],
		"conditions":["flag established_in_camelot",{"kind":"stat","key":"wisdom","op":">","value":12}],
		"consequences":[{"state_patch":{"player.gained_knowledge":true}}]}`
	var b Beat
	if err := json.Unmarshal([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	if b.Priority != Critical || len(b.Conditions) != 2 || b.Conditions[1].Op != OpGT || len(b.Consequences) != 1 {
		t.Errorf("decoded %+v", b)
	}
	var n Beat
	if err := json.Unmarshal([]byte(`{"id":"x","priority":5}`), &n); err != nil || n.Priority != Critical {
		t.Errorf("numeric priority: %+v, %v", n, err)
	}
	for _, bad := range []string{`{"id":"x","priority":"urgent"}`, `{"id":"x","conditions":["stat x"]}`, `{"id":"x","conditions":[{"kind":"flag","key":"f","op":">"}]}`} {
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestParsePriority(t *testing.T) {
	for in, want := range map[string]Priority{"critical": Critical, " High ": High, "": Medium, "1": Optional, "5": Critical, "low": Low, "optional": Optional} {
		if got, err := ParsePriority(in); err != nil || got != want {
			t.Errorf("ParsePriority(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "6", "urgent", "11"} {
		if _, err := ParsePriority(bad); err == nil {
			t.Errorf("ParsePriority(%q) accepted", bad)
		}
	}
}
