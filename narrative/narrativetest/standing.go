package narrativetest

import (
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

func testReputation(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	steps := []struct {
		delta float64
		at    world.GameTime
		after float64
	}{
		{40, 0, 40},
		{80, 0, 100},        // clamped
		{0, world.Week, 95}, // strong: 5% a week
		{-300, world.Week, -100},
	}
	for i, st := range steps {
		c, err := s.ChangeReputation(ctx, "p", narrative.Change{Subject: "guild", Delta: st.delta, At: st.at, Turn: i, Reason: "step"})
		if err != nil {
			t.Fatal(err)
		}
		if c.After != st.after || c.Subject != "guild" || c.Delta != st.delta {
			t.Errorf("step %d: %+v, want after %v", i, c, st.after)
		}
	}
	h, err := s.ReputationHistory(ctx, "p", "guild")
	if err != nil || len(h) != len(steps) || h[2].Before != 95 || h[2].After != 95 || h[3].Turn != 3 || h[3].After != -100 || h[0].Reason != "step" {
		t.Errorf("history = %+v, %v", h, err)
	}
	if r, err := s.Reputation(ctx, "p", "unknown", 0); err != nil || r.Value != 0 {
		t.Errorf("unknown faction = %+v, %v; want neutral", r, err)
	}
	if h, err := s.ReputationHistory(ctx, "p", "unknown"); err != nil || len(h) != 0 {
		t.Errorf("history of an unknown faction = %+v, %v", h, err)
	}
	if _, err := s.ChangeReputation(ctx, "p", narrative.Change{Subject: "church", Delta: 20}); err != nil {
		t.Fatal(err)
	}
	all, err := s.Reputations(ctx, "p", 2*world.Week)
	if err != nil || len(all) != 2 || all[0].Subject != "church" || !near(all[0].Value, 20*0.81, 1e-9) ||
		all[1].Subject != "guild" || !near(all[1].Value, -95, 1e-9) || all[0].At != 2*world.Week {
		t.Errorf("reputations = %+v, %v; want church 16.2 and guild -95, by faction", all, err)
	}
	if r, _ := s.Reputation(ctx, "p", "church", 2*world.Week); !near(r.Value, 20*0.81, 1e-9) {
		t.Errorf("church after two weeks = %+v, want 16.2", r)
	}
}

func testPerception(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	if _, err := s.ChangeReputation(ctx, "p", narrative.Change{Subject: "guild", Delta: 80}); err != nil {
		t.Fatal(err)
	}
	// 0.5 × 80 from the faction, 0.3 × 20 from traits, 0.2 × -50 chance.
	p, first, err := s.Meet(ctx, "p", "boss", narrative.Impression{Faction: "guild", Traits: 20, Variance: -0.5}, 0, 1)
	if err != nil || !first || p.Value != 40+6-10 {
		t.Fatalf("first meeting = %+v, %v, %v; want 36", p, first, err)
	}
	p, first, _ = s.Meet(ctx, "p", "boss", narrative.Impression{Faction: "guild", Traits: -100}, 0, 2)
	if first || p.Value != 36 {
		t.Errorf("second meeting changed perception: %+v, first %v", p, first)
	}
	if h, _ := s.PerceptionHistory(ctx, "p", "boss"); len(h) != 1 || h[0].After != 36 || h[0].Turn != 1 {
		t.Errorf("history after two meetings = %+v, want the first impression only", h)
	}

	// Strong opinions fade slower: a friend at 90 keeps more of their
	// opinion over four weeks than an acquaintance at 20.
	for npc, d := range map[string]float64{"friend": 90, "acquaintance": 20, "enemy": -90} {
		if _, err := s.ChangePerception(ctx, "p", narrative.Change{Subject: npc, Delta: d}); err != nil {
			t.Fatal(err)
		}
	}
	later := 4 * world.Week
	f, _, _ := s.Perception(ctx, "p", "friend", later)
	a, _, _ := s.Perception(ctx, "p", "acquaintance", later)
	e, _, _ := s.Perception(ctx, "p", "enemy", later)
	if !(f.Value/90 > a.Value/20) || !(e.Value/-90 > a.Value/20) || a.Value <= 0 || a.Value >= 20 {
		t.Errorf("after four weeks: friend %v/90, enemy %v/-90, acquaintance %v/20; strong should keep more", f.Value, e.Value, a.Value)
	}
	if _, met, _ := s.Perception(ctx, "p", "stranger", 0); met {
		t.Error("a stranger counts as met")
	}
	for _, tc := range []struct {
		npc   string
		limit int
		want  int
	}{
		{"friend", 0, 2}, {"friend", 1, 1}, {"enemy", 0, -2}, {"acquaintance", 0, 0}, {"stranger", 0, 0},
	} {
		m, err := s.Modifier(ctx, "p", tc.npc, later, tc.limit)
		if err != nil || m.Value != tc.want || m.Reason == "" || m.Source != narrative.FromPerception {
			t.Errorf("Modifier(%s, limit %d) = %+v, %v; want %d", tc.npc, tc.limit, m, err, tc.want)
		}
	}
}

// view is a game state with flags only.
type view struct{ flags map[string]bool }

func (view) Stat(string) (float64, bool) { return 0, false }
func (v view) Flag(n string) bool        { return v.flags[n] }
func (view) Location() string            { return "" }
func (view) HasItem(string) bool         { return false }
func (view) Reputation(string) float64   { return 0 }
func (view) Perception(string) float64   { return 0 }

func testTransition(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	flag, err := narrative.ParseCondition("flag storm")
	if err != nil {
		t.Fatal(err)
	}
	beats := []narrative.Beat{
		{ID: "storm", Priority: narrative.Critical, Conditions: []narrative.Condition{flag}},
		{ID: "wreck", Prerequisites: []string{"storm"}, MaxScene: 4},
		{ID: "calm", Conditions: []narrative.Condition{flag}},
	}
	v := view{flags: map[string]bool{}}
	triggered := map[string][]int{}
	for scene := 1; scene <= 5; scene++ {
		v.flags["storm"] = scene >= 2
		if scene == 3 { // the process restarts between scenes
			s = open(t, Options{Reopen: s})
		}
		ds, err := s.Transition(ctx, "p", scene, beats, v, narrative.BeatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Action == narrative.Trigger {
				triggered[d.Beat] = append(triggered[d.Beat], scene)
			}
		}
	}
	want := map[string]int{"storm": 2, "calm": 3, "wreck": 4}
	for id, scene := range want {
		if len(triggered[id]) != 1 || triggered[id][0] != scene {
			t.Errorf("%s triggered in scenes %v, want once in %d (%v)", id, triggered[id], scene, triggered)
		}
	}
	l, err := s.BeatLog(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if l["calm"].EligibleSince != 2 || l["calm"].Scene != 3 || l["calm"].Status != narrative.Triggered {
		t.Errorf("calm = %+v: eligible at 2, triggered at 3", l["calm"])
	}
}

func testRecordBeats(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	if l, err := s.BeatLog(ctx, "p"); err != nil || len(l) != 0 {
		t.Fatalf("empty beat log = %v, %v", l, err)
	}
	ds := []narrative.Decision{
		{Beat: "a", Action: narrative.Trigger, Scene: 2, EligibleSince: 1, Reason: "ready"},
		{Beat: "b", Action: narrative.Wait, Scene: 2, EligibleSince: 2, Reason: "not yet"},
	}
	if err := s.RecordBeats(ctx, "p", ds); err != nil {
		t.Fatal(err)
	}
	want := narrative.BeatLog{}.Apply(ds)
	got, err := s.BeatLog(ctx, "p")
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("beat log = %+v, %v; want %+v", got, err, want)
	}
	// A later decision replaces the beat's state.
	more := []narrative.Decision{{Beat: "b", Action: narrative.Trigger, Scene: 3, EligibleSince: 2, Reason: "now"}}
	if err := s.RecordBeats(ctx, "p", more); err != nil {
		t.Fatal(err)
	}
	want = want.Apply(more)
	if got, _ := s.BeatLog(ctx, "p"); !maps.Equal(got, want) || got["b"].Status != narrative.Triggered {
		t.Errorf("after a second decision: %+v, want %+v", got, want)
	}
}

func testStats(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	defs := []narrative.StatDef{
		{ID: "health", Max: 100, Default: 100},
		{ID: "suspicion", Max: 100, Hidden: true},
		{ID: "luck", Min: 1, Max: 6}, // default 0 starts at 1
		narrative.FromWorld(world.StatDef{ID: "npc.owen.chemistry", Max: 10}),
	}
	got, err := s.InitStats(ctx, "p", defs)
	if want := map[string]int{"health": 100, "suspicion": 0, "luck": 1, "npc.owen.chemistry": 0}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("InitStats = %v, %v; want %v", got, err, want)
	}
	set, err := s.SetStats(ctx, "p", defs, map[string]int{"health": -5, "npc.owen.chemistry": 4, "luck": 9})
	if want := map[string]int{"health": 0, "npc.owen.chemistry": 4, "luck": 6}; err != nil || !maps.Equal(set, want) {
		t.Errorf("SetStats = %v, %v; want %v (clamped)", set, err, want)
	}
	if _, err := s.SetStats(ctx, "p", defs, map[string]int{"health": 50, "mana": 3}); err == nil {
		t.Error("unknown stat accepted")
	}
	again, err := s.InitStats(ctx, "p", defs) // keeps what is there
	if want := map[string]int{"health": 0, "suspicion": 0, "luck": 6, "npc.owen.chemistry": 4}; err != nil || !maps.Equal(again, want) {
		t.Errorf("InitStats again = %v, %v; want %v (the failed change left nothing)", again, err, want)
	}
	if st, _ := s.Stats(ctx, "p"); !maps.Equal(st, again) {
		t.Errorf("Stats = %v, want %v", st, again)
	}
	prompt := narrative.BehaviouralPrompts(defs, again, access.Player)
	if strings.Contains(prompt, "suspicion") || !strings.Contains(prompt, "currently 4") {
		t.Errorf("player prompt:\n%s", prompt)
	}
}

// testPlaythroughs checks that nothing of one playthrough shows in
// another.
func testPlaythroughs(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	remember(t, s, narrative.Event{Playthrough: "a", Summary: "the bell rang"})
	if _, err := s.ChangeReputation(ctx, "a", narrative.Change{Subject: "guild", Delta: 50}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Meet(ctx, "a", "mara", narrative.Impression{Traits: 50}, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordBeats(ctx, "a", []narrative.Decision{{Beat: "x", Action: narrative.Trigger, Scene: 1}}); err != nil {
		t.Fatal(err)
	}
	defs := []narrative.StatDef{{ID: "health", Max: 10, Default: 10}}
	if _, err := s.InitStats(ctx, "a", defs); err != nil {
		t.Fatal(err)
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "b", Text: "bell rang"}); len(ms) != 0 {
		t.Errorf("b recalls a's memories: %v", names(ms))
	}
	if r, _ := s.Reputation(ctx, "b", "guild", 0); r.Value != 0 {
		t.Errorf("b's reputation = %v", r.Value)
	}
	if rs, _ := s.Reputations(ctx, "b", 0); len(rs) != 0 {
		t.Errorf("b's reputations = %+v", rs)
	}
	if _, met, _ := s.Perception(ctx, "b", "mara", 0); met {
		t.Error("mara met the player in b")
	}
	if h, _ := s.PerceptionHistory(ctx, "b", "mara"); len(h) != 0 {
		t.Errorf("b's perception history = %+v", h)
	}
	if l, _ := s.BeatLog(ctx, "b"); len(l) != 0 {
		t.Errorf("b's beats = %v", l)
	}
	if st, _ := s.Stats(ctx, "b"); len(st) != 0 {
		t.Errorf("b's stats = %v", st)
	}
	// And a's are all there, so the checks above could fail.
	if r, _ := s.Reputation(ctx, "a", "guild", 0); r.Value != 50 {
		t.Errorf("a's reputation = %v", r.Value)
	}
	if st, _ := s.Stats(ctx, "a"); st["health"] != 10 {
		t.Errorf("a's stats = %v", st)
	}
}

// testConcurrentChanges changes one standing and one stat from many
// goroutines at once: every change counts, none is lost to another's
// read-modify-write, and a first meeting happens once.
func testConcurrentChanges(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	const n = 12
	var wg sync.WaitGroup
	firsts := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			if _, err := s.ChangeReputation(ctx, "p", narrative.Change{Subject: "guild", Delta: 1, Turn: i}); err != nil {
				t.Error(err)
			}
			_, first, err := s.Meet(ctx, "p", "owen", narrative.Impression{}, 0, i)
			if err != nil {
				t.Error(err)
			}
			firsts[i] = first
		})
	}
	wg.Wait()
	if r, err := s.Reputation(ctx, "p", "guild", 0); err != nil || r.Value != n {
		t.Errorf("reputation after %d concurrent +1 = %+v, %v; want %d", n, r, err, n)
	}
	if h, err := s.ReputationHistory(ctx, "p", "guild"); err != nil || len(h) != n {
		t.Errorf("%d history rows, %v; want %d", len(h), err, n)
	}
	met := 0
	for _, f := range firsts {
		if f {
			met++
		}
	}
	if h, err := s.PerceptionHistory(ctx, "p", "owen"); met != 1 || err != nil || len(h) != 1 {
		t.Errorf("%d first meetings, %d history rows (%v); want 1 and 1", met, len(h), err)
	}
}
