package narrativetest

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// Options says how open must open a store.
type Options struct {
	// Embedder, when set, embeds events stored without an embedding and
	// query text that comes without a vector.
	Embedder narrative.Embedder
	// Reopen, when set, is a store open returned earlier in the same
	// test: open must release it and return a new store over the same
	// data, as after a restart, with the Embedder given now.
	Reopen narrative.Store
}

// Run runs the suite. open must return a new, empty store each call
// (unless o.Reopen is set), with the default reputation and perception
// settings, and release it when t ends.
func Run(t *testing.T, open func(t *testing.T, o Options) narrative.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, func(*testing.T, Options) narrative.Store)
	}{
		{"RoundTripSurvivesReopen", testRoundTrip},
		{"RecallScopeAndUpdates", testRecallScope},
		{"RecallFilters", testRecallFilters},
		{"RecallAgreesWithReference", testRecallReference},
		{"Embedder", testEmbedder},
		{"BatchIsAllOrNone", testBatchAtomic},
		{"Errors", testErrors},
		{"Reputation", testReputation},
		{"Perception", testPerception},
		{"BeatsTriggerOnceAcrossRestarts", testTransition},
		{"RecordBeats", testRecordBeats},
		{"Stats", testStats},
		{"PlaythroughsAreSeparate", testPlaythroughs},
		{"ConcurrentRecall", testConcurrentRecall},
		{"ConcurrentChangesAllCount", testConcurrentChanges},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

var ctx = context.Background()

// words is a deterministic bag-of-words embedder: each word lights one of
// 64 dimensions, so texts sharing words are similar.
type words struct {
	mu    sync.Mutex
	fail  bool
	calls int
}

func (w *words) Embed(_ context.Context, texts []string) ([][]float32, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.fail {
		return nil, errors.New("model offline")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, f := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(f, ".,!?'\"")))
			v[h.Sum32()%64]++
		}
		v[63] += 0.01 // never all zeros
		out[i] = v
	}
	return out, nil
}

func (w *words) set(fail bool) (calls int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fail = fail
	return w.calls
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func ids(ms []narrative.Match) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.Event.ID
	}
	return out
}

// axis is a unit-ish 8-dimension vector along i, leaning by mix to i+1.
func axis(i int, mix float32) []float32 {
	v := make([]float32, 8)
	v[i%8] = 1
	v[(i+1)%8] = mix
	return v
}

func remember(t *testing.T, s narrative.Memories, evs ...narrative.Event) []int64 {
	t.Helper()
	got, err := s.Remember(ctx, evs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(evs) {
		t.Fatalf("Remember returned %d IDs for %d events", len(got), len(evs))
	}
	return got
}

func recall(t *testing.T, s narrative.Memories, q narrative.Query) []narrative.Match {
	t.Helper()
	ms, err := s.Recall(ctx, q)
	if err != nil {
		t.Fatalf("Recall(%+v): %v", q, err)
	}
	return ms
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, what string, err error, code hearth.Code) {
	t.Helper()
	if got := hearth.ErrorCode(err); got != code {
		t.Errorf("%s: error %v has code %q, want %q", what, err, got, code)
	}
}

// testRoundTrip writes one of everything, reopens the store and reads it
// all back.
func testRoundTrip(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	wall := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	evs := []narrative.Event{
		{Playthrough: "p", Session: "s1", Turn: 4, Scene: 2, At: 90, Wall: wall, Summary: "Helped Aldric repair the anvil",
			Characters: []string{"player", "aldric"}, Location: "smithy", Action: "help", Significance: 8,
			Tags: []string{"craft"}, Kind: narrative.KindTriumph, Embedding: axis(0, 0.1)},
		{Playthrough: "p", Turn: 5, At: 120, Summary: "Walked to the inn"},
	}
	got := remember(t, s, evs...)
	if got[0] == got[1] || got[0] == 0 || got[1] == 0 {
		t.Fatalf("IDs %v: want two distinct non-zero IDs", got)
	}
	if _, err := s.ChangeReputation(ctx, "p", narrative.Change{Subject: "smiths", Delta: 30, At: 100, Turn: 4, Reason: "fixed the anvil"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Meet(ctx, "p", "aldric", narrative.Impression{Faction: "smiths"}, 100, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChangePerception(ctx, "p", narrative.Change{Subject: "aldric", Delta: 20, At: 110, Reason: "thanked"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transition(ctx, "p", 1, []narrative.Beat{{ID: "opening"}, {ID: "later", MinScene: 3}}, view{}, narrative.BeatOptions{}); err != nil {
		t.Fatal(err)
	}
	defs := []narrative.StatDef{{ID: "health", Max: 100, Default: 100}, {ID: "trust", NPC: "aldric", Max: 10, Default: 3}}
	if _, err := s.InitStats(ctx, "p", defs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetStats(ctx, "p", defs, map[string]int{"health": 72}); err != nil {
		t.Fatal(err)
	}

	s = open(t, Options{Reopen: s})
	e, err := s.Event(ctx, "p", got[0])
	if err != nil {
		t.Fatal(err)
	}
	w := evs[0]
	if e.ID != got[0] || e.Playthrough != "p" || e.Summary != w.Summary || e.Session != w.Session || e.Turn != 4 || e.Scene != 2 ||
		e.At != 90 || e.Location != "smithy" || e.Action != "help" || e.Significance != 8 || e.Kind != narrative.KindTriumph ||
		!slices.Equal(e.Characters, w.Characters) || !slices.Equal(e.Tags, w.Tags) || !slices.Equal(e.Embedding, w.Embedding) {
		t.Errorf("event read back as %+v, want %+v", e, w)
	}
	if !e.Wall.Truncate(time.Millisecond).Equal(wall.Truncate(time.Millisecond)) {
		t.Errorf("wall time read back as %v, want %v", e.Wall, wall)
	}
	e2, err := s.Event(ctx, "p", got[1])
	if err != nil {
		t.Fatal(err)
	}
	if e2.Kind != narrative.KindEvent || e2.Significance != narrative.SignificanceMedium || e2.Embedding != nil || e2.Wall.IsZero() ||
		e2.Characters != nil || e2.Tags != nil {
		t.Errorf("defaults read back as %+v: want kind event, medium significance, a wall time, no embedding and nil lists", e2)
	}
	ms := recall(t, s, narrative.Query{Playthrough: "p", Vector: axis(0, 0.1)})
	if len(ms) != 1 || ms[0].Event.ID != got[0] || ms[0].Method != narrative.ByVector || !near(ms[0].Score, 1, 1e-4) {
		t.Errorf("recall after reopen = %+v", ms)
	}
	if r, _ := s.Reputation(ctx, "p", "smiths", 100); r.Value != 30 || r.Subject != "smiths" || r.At != 100 {
		t.Errorf("reputation after reopen = %+v", r)
	}
	if p, met, _ := s.Perception(ctx, "p", "aldric", 110); !met || !near(p.Value, 15+20, 0.01) {
		t.Errorf("perception after reopen = %+v, met %v; want 15 (half of 30) + 20", p, met)
	}
	if h, _ := s.PerceptionHistory(ctx, "p", "aldric"); len(h) != 2 || !strings.Contains(h[0].Reason, "first impression") ||
		h[0].Turn != 4 || h[1].Reason != "thanked" || h[1].At != 110 {
		t.Errorf("perception history = %+v", h)
	}
	if h, _ := s.ReputationHistory(ctx, "p", "smiths"); len(h) != 1 || h[0].Reason != "fixed the anvil" || h[0].Turn != 4 || h[0].Wall.IsZero() {
		t.Errorf("reputation history = %+v", h)
	}
	l, _ := s.BeatLog(ctx, "p")
	if l["opening"].Status != narrative.Triggered || l["opening"].Scene != 1 || l["later"].Status != narrative.Pending {
		t.Errorf("beat log after reopen = %+v", l)
	}
	if st, _ := s.Stats(ctx, "p"); len(st) != 2 || st["health"] != 72 || st["npc.aldric.trust"] != 3 {
		t.Errorf("stats after reopen = %v", st)
	}
}

func testRecallScope(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	mine := remember(t, s,
		narrative.Event{Playthrough: "p1", Summary: "Bought bread from the baker", Characters: []string{"baker"}, Location: "market", Embedding: axis(0, 0.1)},
		narrative.Event{Playthrough: "p1", Summary: "Chased a thief through the market", Location: "market", Significance: 9, Kind: narrative.KindFailure, Embedding: axis(0, 0.6)},
	)
	other := remember(t, s, narrative.Event{Playthrough: "p2", Summary: "Bought bread elsewhere", Embedding: axis(0, 0.1)})

	// Relevance: the nearer vector first, both above the 0.7 default.
	if got := ids(recall(t, s, narrative.Query{Playthrough: "p1", Vector: axis(0, 0.1)})); !slices.Equal(got, mine) {
		t.Fatalf("recall = %v; want %v", got, mine)
	}
	if got := ids(recall(t, s, narrative.Query{Playthrough: "p1", Vector: axis(0, 0.6)})); !slices.Equal(got, []int64{mine[1], mine[0]}) {
		t.Errorf("recall near the thief = %v; want %v", got, []int64{mine[1], mine[0]})
	}
	// Scope (SC-032): another playthrough's memories never appear.
	if got := ids(recall(t, s, narrative.Query{Playthrough: "p2", Vector: axis(0, 0.1), MinScore: -1, Limit: 10})); !slices.Equal(got, other) {
		t.Errorf("p2 recall = %v, want %v", got, other)
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "nobody", Text: "bread"}); len(ms) != 0 {
		t.Errorf("unknown playthrough recalled %v", ids(ms))
	}
	// Recall follows later writes and forgetting.
	more := remember(t, s, narrative.Event{Playthrough: "p1", Summary: "Paid the baker back", Embedding: axis(0, 0.05)})
	if ms := recall(t, s, narrative.Query{Playthrough: "p1", Vector: axis(0, 0.05), Limit: 1}); len(ms) != 1 || ms[0].Event.ID != more[0] {
		t.Errorf("new event not recalled: %v", ids(ms))
	}
	if err := s.Forget(ctx, "p1", more[0]); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(recall(t, s, narrative.Query{Playthrough: "p1", Vector: axis(0, 0.05), Limit: 5})), more[0]) {
		t.Error("forgotten event still recalled")
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "p1", Limit: 50}); len(ms) != 2 {
		t.Errorf("after forgetting: %v, want the two first events", ids(ms))
	}
	// The lexical fallback and a filter together.
	ms := recall(t, s, narrative.Query{Playthrough: "p1", Text: "thief in the market", Filter: narrative.Filter{Episodic: true}})
	if len(ms) != 1 || ms[0].Event.ID != mine[1] || ms[0].Method != narrative.ByLexical {
		t.Errorf("lexical episodic recall = %+v", ms)
	}
}

// scene is a small playthrough with the fields filters look at spread
// out; each event is named by its summary's first word.
func scene() []narrative.Event {
	ev := func(summary string, turn int, at int, chars []string, loc string, sig int, kind narrative.Kind, tags []string, v []float32) narrative.Event {
		return narrative.Event{Playthrough: "p", Session: "main", Turn: turn, Scene: turn / 3, At: at2(at), Summary: summary, Characters: chars,
			Location: loc, Significance: sig, Kind: kind, Tags: tags, Embedding: v}
	}
	return []narrative.Event{
		ev("arrival: the party reaches Saltmere harbour at dusk", 1, 10, []string{"player", "mara"}, "harbour", 3, "", []string{"travel"}, axis(0, 0.2)),
		ev("bargain: Mara sells the party a lantern of whale oil", 2, 20, []string{"player", "mara"}, "market", 4, "", []string{"trade"}, axis(1, 0.2)),
		ev("brawl: a fight with smugglers breaks out in the tavern", 3, 30, []string{"player", "vex"}, "tavern", 7, narrative.KindFailure, []string{"combat", "smugglers"}, axis(2, 0.2)),
		ev("rescue: the party saves Mara from the drowned bell", 5, 50, []string{"player", "mara"}, "harbour", 9, narrative.KindTriumph, []string{"combat", "bell"}, axis(3, 0.2)),
		ev("rumour: Vex whispers of a second bell beneath the lighthouse", 6, 60, []string{"vex"}, "tavern", 5, "", []string{"bell"}, axis(4, 0.2)),
		ev("storm: a storm floods the harbour road", 8, 80, nil, "harbour", 2, "", []string{"weather"}, axis(5, 0.2)),
		ev("deal: the party trades brandy with the smugglers of Saltmere", 9, 90, []string{"player", "vex"}, "market", 6, "", []string{"trade", "smugglers"}, axis(6, 0.2)),
		ev("vigil: Mara keeps the lighthouse lantern burning all night", 10, 100, []string{"mara"}, "lighthouse", 5, "", []string{"bell", "weather"}, nil),
	}
}

func at2(m int) world.GameTime { return world.GameTime(m) }

// names lists matches by their summaries' first word.
func names(ms []narrative.Match) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _, _ = strings.Cut(m.Event.Summary, ":")
	}
	return strings.Join(out, " ")
}

func testRecallFilters(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	remember(t, s, scene()...)
	remember(t, s, narrative.Event{Playthrough: "other", Session: "main", Turn: 1, At: 10, Summary: "ghost: not this playthrough",
		Characters: []string{"mara"}, Location: "harbour", Significance: 10})
	tests := []struct {
		name string
		f    narrative.Filter
		want string // newest first
	}{
		{"none", narrative.Filter{}, "vigil deal storm rumour rescue brawl bargain arrival"},
		{"character", narrative.Filter{Characters: []string{"mara"}}, "vigil rescue bargain arrival"},
		{"characters, any", narrative.Filter{Characters: []string{"vex", "nobody"}}, "deal rumour brawl"},
		{"location", narrative.Filter{Location: "harbour"}, "storm rescue arrival"},
		{"significance", narrative.Filter{MinSignificance: 6}, "deal rescue brawl"},
		{"turns", narrative.Filter{FromTurn: 3, ToTurn: 6}, "rumour rescue brawl"},
		{"game time", narrative.Filter{Since: 50, Until: 80}, "storm rumour rescue"},
		{"tags any", narrative.Filter{TagsAny: []string{"weather", "trade"}}, "vigil deal storm bargain"},
		{"tags all", narrative.Filter{TagsAll: []string{"combat", "bell"}}, "rescue"},
		{"kinds", narrative.Filter{Kinds: []narrative.Kind{narrative.KindFailure}}, "brawl"},
		{"episodic", narrative.Filter{Episodic: true}, "rescue brawl"},
		{"session", narrative.Filter{Session: "main"}, "vigil deal storm rumour rescue brawl bargain arrival"},
		{"other session", narrative.Filter{Session: "fork"}, ""},
		{"combined", narrative.Filter{Characters: []string{"mara"}, Location: "harbour", MinSignificance: 5}, "rescue"},
	}
	for _, tt := range tests {
		ms := recall(t, s, narrative.Query{Playthrough: "p", Filter: tt.f, Limit: 50})
		if got := names(ms); got != tt.want {
			t.Errorf("%s: recalled %q, want %q", tt.name, got, tt.want)
		}
		for _, m := range ms {
			if m.Method != narrative.ByFilter {
				t.Errorf("%s: method %q, want %q", tt.name, m.Method, narrative.ByFilter)
			}
		}
	}
	// Relevance within a filter: by vector and by words.
	// arrival and bargain tie at similarity 0: the more significant first.
	if got := names(recall(t, s, narrative.Query{Playthrough: "p", Vector: axis(3, 0.2), Filter: narrative.Filter{Characters: []string{"mara"}}, MinScore: -1, Limit: 2})); got != "rescue bargain" {
		t.Errorf("vector recall among Mara's = %q, want rescue bargain", got)
	}
	if got := names(recall(t, s, narrative.Query{Playthrough: "p", Text: "smugglers brandy", Filter: narrative.Filter{Location: "market"}})); got != "deal" {
		t.Errorf("lexical recall at the market = %q, want deal", got)
	}
	// Limit keeps the best.
	if got := names(recall(t, s, narrative.Query{Playthrough: "p", Limit: 3})); got != "vigil deal storm" {
		t.Errorf("limit 3 = %q", got)
	}
}

// testRecallReference checks recall against narrative.Recall, the
// reference, over many queries.
func testRecallReference(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	evs := scene()
	for i := range 40 { // more, with ties in significance and time
		evs = append(evs, narrative.Event{Playthrough: "p", Turn: 11 + i/2, At: at2(110 + 10*(i/3)), Summary: fmt.Sprintf("filler %d: the party walks the %s", i, []string{"harbour", "market", "tavern road"}[i%3]),
			Characters: []string{[]string{"mara", "vex", "player"}[i%3]}, Location: []string{"harbour", "market", "tavern"}[i%3], Significance: 1 + i%10,
			Tags: []string{[]string{"travel", "trade", "bell"}[i%3]}, Embedding: axis(i%8, float32(i%5)/5)})
	}
	got := remember(t, s, evs...)
	for i := range evs {
		evs[i].ID = got[i]
	}
	filters := []narrative.Filter{{}, {Characters: []string{"mara"}}, {Location: "tavern"}, {MinSignificance: 5}, {TagsAny: []string{"bell", "trade"}},
		{Episodic: true}, {FromTurn: 5, ToTurn: 15}, {Since: 40, Until: 150}}
	var queries []narrative.Query
	for _, f := range filters {
		for i := range 8 {
			queries = append(queries,
				narrative.Query{Playthrough: "p", Vector: axis(i, 0.3), Filter: f, Limit: 10},
				narrative.Query{Playthrough: "p", Vector: axis(i, 0.7), Filter: f, Limit: 5, MinScore: -1})
		}
		for _, text := range []string{"the party walks the harbour", "smugglers", "a bell beneath the lighthouse", "Mara lantern"} {
			queries = append(queries, narrative.Query{Playthrough: "p", Text: text, Filter: f, Limit: 7})
		}
		queries = append(queries, narrative.Query{Playthrough: "p", Filter: f, Limit: 12})
	}
	found := 0
	for _, q := range queries {
		want, err := narrative.Recall(evs, q)
		if err != nil {
			t.Fatal(err)
		}
		ms := recall(t, s, q)
		found += len(ms)
		if !slices.Equal(ids(ms), ids(want)) {
			t.Errorf("Recall(text %q, vector %v, filter %+v, limit %d) = %v, want %v", q.Text, q.Vector != nil, q.Filter, q.Limit, ids(ms), ids(want))
			continue
		}
		for i := range ms {
			if ms[i].Method != want[i].Method || !near(ms[i].Score, want[i].Score, 1e-4) {
				t.Errorf("query %q: match %d scored %v by %s, want %v by %s", q.Text, i, ms[i].Score, ms[i].Method, want[i].Score, want[i].Method)
			}
		}
	}
	if found < len(queries) {
		t.Fatalf("only %d matches over %d queries: the comparison proves little", found, len(queries))
	}
}

func testEmbedder(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	w := &words{}
	s := open(t, Options{Embedder: w})
	got := remember(t, s,
		narrative.Event{Playthrough: "p", Summary: "the dragon burned the mill"},
		narrative.Event{Playthrough: "p", Summary: "a quiet supper with the miller"},
	)
	if calls := w.set(false); calls != 1 {
		t.Errorf("embedder called %d times for one batch, want 1", calls)
	}
	if e, err := s.Event(ctx, "p", got[0]); err != nil || len(e.Embedding) != 64 {
		t.Errorf("stored embedding has %d dimensions (%v), want 64", len(e.Embedding), err)
	}
	ms := recall(t, s, narrative.Query{Playthrough: "p", Text: "dragon burned", MinScore: 0.5})
	if len(ms) != 1 || ms[0].Event.ID != got[0] || ms[0].Method != narrative.ByVector {
		t.Errorf("recall by embedded text = %+v", ms)
	}
	// Prepare embeds without storing.
	prep, err := s.Prepare(ctx, narrative.Event{Playthrough: "p", Summary: "prepared, not stored"})
	if err != nil || len(prep) != 1 || len(prep[0].Embedding) != 64 || prep[0].Wall.IsZero() || prep[0].Significance != narrative.SignificanceMedium {
		t.Errorf("Prepare = %+v, %v", prep, err)
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "p", Limit: 50}); len(ms) != 2 {
		t.Errorf("Prepare stored something: %v", ids(ms))
	}

	// The model goes away: memories are still stored and recalled by words.
	w.set(true)
	more := remember(t, s, narrative.Event{Playthrough: "p", Summary: "the dragon returned at dawn"})
	ms, err = s.Recall(ctx, narrative.Query{Playthrough: "p", Text: "dragon returned"})
	if err != nil || len(ms) == 0 || ms[0].Event.ID != more[0] || ms[0].Method != narrative.ByLexical {
		t.Errorf("fallback recall = %+v, %v", ms, err)
	}
}

func testBatchAtomic(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	remember(t, s, narrative.Event{Playthrough: "p", Summary: "first", Embedding: axis(0, 0)})
	for name, batch := range map[string][]narrative.Event{
		"wrong dimension": {{Playthrough: "p", Summary: "fine", Embedding: axis(1, 0)}, {Playthrough: "p", Summary: "wrong", Embedding: []float32{1, 2, 3}}},
		"empty summary":   {{Playthrough: "p", Summary: "fine too"}, {Playthrough: "p"}},
	} {
		_, err := s.Remember(ctx, batch...)
		wantCode(t, name, err, hearth.Invalid)
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "p", Limit: 50}); len(ms) != 1 {
		t.Errorf("part of a failed batch was stored: %v", names(ms))
	}
}

func testErrors(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	id := remember(t, s, narrative.Event{Playthrough: "p", Summary: "kept", Embedding: axis(0, 0)})[0]
	_, err := s.Event(ctx, "p", id+1000)
	wantCode(t, "Event of an unknown ID", err, hearth.NotFound)
	_, err = s.Event(ctx, "other", id)
	wantCode(t, "Event in another playthrough", err, hearth.NotFound)
	wantCode(t, "Forget an unknown ID", s.Forget(ctx, "p", id+1000), hearth.NotFound)
	wantCode(t, "Forget in another playthrough", s.Forget(ctx, "other", id), hearth.NotFound)
	if err := s.Forget(ctx, "p", id); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "Forget twice", s.Forget(ctx, "p", id), hearth.NotFound)
	_, err = s.Event(ctx, "p", id)
	wantCode(t, "Event forgotten", err, hearth.NotFound)

	remember(t, s, narrative.Event{Playthrough: "p", Summary: "eight dimensions", Embedding: axis(1, 0)})
	for name, f := range map[string]func() error{
		"significance 11": func() error {
			_, err := s.Remember(ctx, narrative.Event{Playthrough: "p", Summary: "x", Significance: 11})
			return err
		},
		"unknown kind": func() error {
			_, err := s.Remember(ctx, narrative.Event{Playthrough: "p", Summary: "x", Kind: "dream"})
			return err
		},
		"prepare empty summary": func() error { _, err := s.Prepare(ctx, narrative.Event{Playthrough: "p"}); return err },
		"recall wrong dimension": func() error {
			_, err := s.Recall(ctx, narrative.Query{Playthrough: "p", Vector: []float32{1, 0, 0}})
			return err
		},
		"recall limit": func() error { _, err := s.Recall(ctx, narrative.Query{Playthrough: "p", Limit: -1}); return err },
		"reputation without a faction": func() error {
			_, err := s.ChangeReputation(ctx, "p", narrative.Change{Delta: 1})
			return err
		},
		"perception without an NPC": func() error {
			_, err := s.ChangePerception(ctx, "p", narrative.Change{Delta: 1})
			return err
		},
		"meet without an NPC": func() error { _, _, err := s.Meet(ctx, "p", "", narrative.Impression{}, 0, 1); return err },
		"unknown stat": func() error {
			_, err := s.SetStats(ctx, "p", []narrative.StatDef{{ID: "health", Max: 10}}, map[string]int{"mana": 3})
			return err
		},
		"stat defined twice": func() error {
			_, err := s.InitStats(ctx, "p", []narrative.StatDef{{ID: "health", Max: 10}, {ID: "health", Max: 5}})
			return err
		},
	} {
		wantCode(t, name, f(), hearth.Invalid)
	}
	if st, err := s.Stats(ctx, "p"); err != nil || len(st) != 0 {
		t.Errorf("stats after failed changes = %v, %v; want none", st, err)
	}
	if h, err := s.ReputationHistory(ctx, "p", ""); err != nil || len(h) != 0 {
		t.Errorf("history after failed changes = %v, %v", h, err)
	}
}

func testConcurrentRecall(t *testing.T, open func(*testing.T, Options) narrative.Store) {
	s := open(t, Options{})
	for i := range 50 {
		remember(t, s, narrative.Event{Playthrough: "p", Summary: "market day " + string(rune('a'+i%26)), Embedding: axis(i%8, 0.3)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				if _, err := s.Recall(ctx, narrative.Query{Playthrough: "p", Vector: axis((g+i)%8, 0.3), MinScore: -1}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 20 {
			if _, err := s.Remember(ctx, narrative.Event{Playthrough: "p", Summary: "more market", Embedding: axis(i%8, 0.2)}); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ms := recall(t, s, narrative.Query{Playthrough: "p", Limit: 1000}); len(ms) != 70 {
		t.Errorf("%d events after concurrent writes, want 70", len(ms))
	}
}
