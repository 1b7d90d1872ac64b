package narrative

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// vec returns a unit vector pointing mostly along axis a of dim 8, with
// a little of axis b, so similarities are easy to reason about.
func vec(a, b int, mix float32) []float32 {
	v := make([]float32, 8)
	v[a] = 1
	v[b] += mix
	return unit(v)
}

func memories() []Event {
	return []Event{
		{ID: 1, Playthrough: "p1", Session: "s1", Turn: 3, Scene: 1, At: 100, Summary: "Player helped the blacksmith repair his anvil",
			Characters: []string{"player", "blacksmith_aldric"}, Location: "blacksmith_shop", Significance: 8, Tags: []string{"help", "craft"}, Kind: KindTriumph, Embedding: vec(0, 1, 0.1)},
		{ID: 2, Playthrough: "p1", Session: "s1", Turn: 7, Scene: 2, At: 300, Summary: "Player haggled over a sword with the blacksmith",
			Characters: []string{"player", "blacksmith_aldric"}, Location: "blacksmith_shop", Significance: 3, Tags: []string{"trade"}, Embedding: vec(0, 2, 0.6)},
		{ID: 3, Playthrough: "p1", Session: "s2", Turn: 20, Scene: 5, At: 2000, Summary: "The thieves guild ambushed the player in the alley",
			Characters: []string{"player", "guild_boss"}, Location: "alley", Significance: 9, Tags: []string{"fight", "guild"}, Kind: KindFailure, Embedding: vec(3, 4, 0.2)},
		{ID: 4, Playthrough: "p1", Session: "s2", Turn: 25, Scene: 6, At: 2500, Summary: "Player paid the guild boss back with interest",
			Characters: []string{"player", "guild_boss"}, Location: "guild_hall", Significance: 6, Tags: []string{"guild", "trade"}, Embedding: vec(3, 5, 0.9)},
		{ID: 5, Playthrough: "p2", Session: "x", Turn: 1, At: 10, Summary: "Another playthrough met the blacksmith",
			Characters: []string{"blacksmith_aldric"}, Location: "blacksmith_shop", Significance: 5, Embedding: vec(0, 1, 0.1)},
		{ID: 6, Playthrough: "p1", Session: "s2", Turn: 30, Scene: 7, At: 3000, Summary: "Player slept at the inn with no vector",
			Characters: []string{"player"}, Location: "inn", Significance: 2},
	}
}

func ids(ms []Match) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.Event.ID
	}
	return out
}

func indexOf(t *testing.T, evs []Event, opts IndexOptions) *Index {
	t.Helper()
	x := NewIndex(opts)
	for _, e := range evs {
		if err := x.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestRecall(t *testing.T) {
	anvil := vec(0, 1, 0.1)
	cases := []struct {
		name string
		q    Query
		want []int64
	}{
		{"nearest first, threshold drops the rest", Query{Vector: anvil}, []int64{1, 2}},
		{"threshold raised", Query{Vector: anvil, MinScore: 0.95}, []int64{1}},
		{"threshold disabled keeps all with vectors", Query{Vector: anvil, MinScore: -1, Limit: 10}, []int64{1, 2, 3, 4}},
		{"limit", Query{Vector: anvil, MinScore: -1, Limit: 2}, []int64{1, 2}},
		{"location", Query{Vector: vec(3, 4, 0.2), Filter: Filter{Location: "guild_hall"}, MinScore: -1}, []int64{4}},
		{"characters any", Query{Vector: anvil, MinScore: -1, Filter: Filter{Characters: []string{"guild_boss", "nobody"}}}, []int64{3, 4}},
		{"unknown character matches nothing", Query{Vector: anvil, MinScore: -1, Filter: Filter{Characters: []string{"nobody"}}}, nil},
		{"tags any", Query{Vector: anvil, MinScore: -1, Filter: Filter{TagsAny: []string{"craft", "fight"}}}, []int64{1, 3}},
		{"tags all", Query{Vector: anvil, MinScore: -1, Filter: Filter{TagsAll: []string{"guild", "trade"}}}, []int64{4}},
		{"min significance", Query{Vector: anvil, MinScore: -1, Filter: Filter{MinSignificance: 8}}, []int64{1, 3}},
		{"turn range", Query{Vector: anvil, MinScore: -1, Filter: Filter{FromTurn: 5, ToTurn: 20}}, []int64{2, 3}},
		{"game time range", Query{Vector: anvil, MinScore: -1, Filter: Filter{Since: 300, Until: 2000}}, []int64{2, 3}},
		{"session", Query{Vector: anvil, MinScore: -1, Filter: Filter{Session: "s2"}}, []int64{3, 4}},
		{"kinds", Query{Vector: anvil, MinScore: -1, Filter: Filter{Kinds: []Kind{KindEvent}}}, []int64{2, 4}},
		{"episodic", Query{Vector: anvil, MinScore: -1, Filter: Filter{Episodic: true}}, []int64{1, 3}},
		{"other playthrough is invisible", Query{Playthrough: "p2", Vector: anvil}, []int64{5}},
		{"unknown playthrough", Query{Playthrough: "p9", Vector: anvil}, nil},
		{"lexical fallback", Query{Text: "interactions with the blacksmith"}, []int64{1, 2}},
		{"lexical reads names and tags", Query{Text: "guild fight"}, []int64{3, 4}},
		{"lexical with filter", Query{Text: "blacksmith", Filter: Filter{Kinds: []Kind{KindEvent}}}, []int64{2}},
		{"lexical threshold", Query{Text: "blacksmith sword anvil dragon", MinOverlap: 0.5}, []int64{1, 2}},
		{"lexical finds events without vectors", Query{Text: "slept at the inn"}, []int64{6}},
		{"stopwords only", Query{Text: "the and of"}, nil},
		{"filter only lists newest first", Query{Filter: Filter{Characters: []string{"player"}}, Limit: 3}, []int64{6, 4, 3}},
	}
	evs := memories()
	x := indexOf(t, evs, IndexOptions{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			if q.Playthrough == "" {
				q.Playthrough = "p1"
			}
			ref, err := Recall(evs, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(ref); !slices.Equal(got, tc.want) {
				t.Errorf("Recall = %v, want %v", got, tc.want)
			}
			got, err := x.Recall(q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("Index.Recall = %v, want %v", ids(got), tc.want)
			}
			for _, m := range got {
				if m.Event.Embedding != nil {
					t.Errorf("match %d carries its embedding", m.Event.ID)
				}
			}
		})
	}
}

func TestRecallScoresAndMethods(t *testing.T) {
	evs := memories()
	ms, err := Recall(evs, Query{Playthrough: "p1", Text: "blacksmith anvil"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].Method != ByLexical || ms[0].Score != 1 || ms[0].Event.ID != 1 {
		t.Fatalf("lexical top = %+v, want event 1 scored 1 by lexical", ms)
	}
	ms, err = Recall(evs, Query{Playthrough: "p1", Vector: vec(0, 1, 0.1)})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Method != ByVector || ms[0].Score < 0.999 {
		t.Fatalf("vector top = %+v, want cosine ≈ 1", ms[0])
	}
}

func TestRecallErrors(t *testing.T) {
	evs := memories()
	x := indexOf(t, evs, IndexOptions{})
	for name, q := range map[string]Query{
		"dimension":   {Playthrough: "p1", Vector: []float32{1, 0, 0}},
		"zero vector": {Playthrough: "p1", Vector: make([]float32, 8)},
		"limit":       {Playthrough: "p1", Text: "x", Limit: MaxLimit + 1},
		"long query":  {Playthrough: "p1", Text: strings.Repeat("a", MaxQueryBytes+1)},
	} {
		if _, err := Recall(evs, q); err == nil {
			t.Errorf("%s: Recall accepted it", name)
		}
		if _, err := x.Recall(q); err == nil {
			t.Errorf("%s: Index.Recall accepted it", name)
		}
	}
}

func TestIndexAddRejects(t *testing.T) {
	x := indexOf(t, memories(), IndexOptions{})
	bad := map[string]Event{
		"duplicate id":       {ID: 1, Playthrough: "p1", Summary: "again"},
		"no id":              {Playthrough: "p1", Summary: "x"},
		"other dimension":    {ID: 99, Playthrough: "p1", Summary: "x", Embedding: []float32{1, 2}},
		"zero embedding":     {ID: 98, Playthrough: "p1", Summary: "x", Embedding: make([]float32, 8)},
		"empty summary":      {ID: 97, Playthrough: "p1"},
		"significance":       {ID: 96, Playthrough: "p1", Summary: "x", Significance: 11},
		"kind":               {ID: 95, Playthrough: "p1", Summary: "x", Kind: "epic"},
		"negative turn":      {ID: 94, Playthrough: "p1", Summary: "x", Turn: -1},
		"huge summary":       {ID: 93, Playthrough: "p1", Summary: strings.Repeat("x", MaxSummaryBytes+1)},
		"too many tags":      {ID: 92, Playthrough: "p1", Summary: "x", Tags: make([]string, MaxNames+1)},
		"long location name": {ID: 91, Playthrough: "p1", Summary: "x", Location: strings.Repeat("l", MaxNameBytes+1)},
	}
	for name, e := range bad {
		if err := x.Add(e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if n := x.Len("p1"); n != 5 {
		t.Errorf("Len(p1) = %d after rejected adds, want 5", n)
	}
}

func TestIndexRemove(t *testing.T) {
	x := indexOf(t, memories(), IndexOptions{})
	if !x.Remove("p1", 1) || x.Remove("p1", 1) || x.Remove("p9", 1) {
		t.Fatal("Remove should succeed once for a held event only")
	}
	for _, q := range []Query{{Vector: vec(0, 1, 0.1), MinScore: -1}, {Text: "anvil"}, {}} {
		q.Playthrough = "p1"
		ms, err := x.Recall(q)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(ms), 1) {
			t.Errorf("%+v still recalls removed event 1", q)
		}
	}
}

// randomUnit returns a random unit vector.
func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return unit(v)
}

// TestQuantisedAgreesWithExact forces the sign-bit path on a small set
// (ExactBelow 1, few candidates) and checks it against exact scoring:
// a query near one event must find that event first, and the results
// must agree with the reference Recall's scores.
func TestQuantisedAgreesWithExact(t *testing.T) {
	const n, dim = 3000, 64
	r := rand.New(rand.NewPCG(7, 11))
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{ID: int64(i + 1), Playthrough: "p", Summary: "e", Embedding: randomUnit(r, dim),
			Tags: []string{[]string{"odd", "even"}[i%2]}, Characters: []string{fmt.Sprint("npc", i%3)}}
	}
	quant := indexOf(t, evs, IndexOptions{ExactBelow: 1, Candidates: 64})
	for i := range 200 {
		target := &evs[r.IntN(n)]
		var filter Filter
		if i%2 == 1 { // the narrowed path: posting lists, then candidates
			filter = Filter{TagsAny: target.Tags, Characters: []string{target.Characters[0], "nobody"}}
		}
		q := make([]float32, dim)
		for d := range q {
			q[d] = target.Embedding[d] + float32(0.02*r.NormFloat64())
		}
		query := Query{Playthrough: "p", Vector: q, Limit: 5, MinScore: -1, Filter: filter}
		got, err := quant.Recall(query)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := quant.RecallExact(query)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Recall(evs, query)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Event.ID != target.ID || exact[0].Event.ID != target.ID || ref[0].Event.ID != target.ID {
			t.Fatalf("query %d near event %d: quantised top %d, exact top %d, reference top %d", i, target.ID, got[0].Event.ID, exact[0].Event.ID, ref[0].Event.ID)
		}
		if !slices.Equal(ids(exact), ids(ref)) {
			t.Fatalf("query %d: RecallExact %v, reference %v", i, ids(exact), ids(ref))
		}
		for j := range exact {
			if d := exact[j].Score - ref[j].Score; d > 1e-5 || d < -1e-5 {
				t.Fatalf("query %d: score %v vs reference %v", i, exact[j].Score, ref[j].Score)
			}
		}
	}
}

// TestCandidateSelection checks that the linear-time selection keeps
// exactly the highest keys, breaking ties at the cut by row.
func TestCandidateSelection(t *testing.T) {
	keys := []int32{5, -1, 9, 5, 2, 9, 5, 0}
	hist := make([]int32, 10)
	n := 0
	for _, k := range keys {
		if k >= 0 {
			hist[k]++
			n++
		}
	}
	for _, tc := range []struct {
		want int
		rows []int32
	}{
		{1, []int32{2}},
		{2, []int32{2, 5}},
		{3, []int32{0, 2, 5}},
		{4, []int32{0, 2, 3, 5}},
		{7, []int32{0, 2, 3, 4, 5, 6, 7}},
		{20, []int32{0, 2, 3, 4, 5, 6, 7}},
	} {
		got := highest(keys, nil, hist, n, IndexOptions{Candidates: tc.want, ExactBelow: 1}, nil)
		if !slices.Equal(got, tc.rows) {
			t.Errorf("highest %d = %v, want %v", tc.want, got, tc.rows)
		}
	}
}

func TestLexicalTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"Interactions with the Blacksmith's anvils": {"anvil", "blacksmith", "interaction"},
		"guild_boss, stories; glass":                {"boss", "glass", "guild", "story"},
		"":                                          nil,
	} {
		if got := terms(in); !slices.Equal(got, want) {
			t.Errorf("terms(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestEstimatesSplitAgree checks that every key is its row's estimate and
// that the estimate pass split into parts (sizes not dividing evenly,
// removed rows, a filter checked row by row, and the narrowed form) gives
// the keys, histogram and count of one pass.
func TestEstimatesSplitAgree(t *testing.T) {
	const n, dim = 20011, 40
	r := rand.New(rand.NewPCG(9, 13))
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{ID: int64(i + 1), Playthrough: "p", Summary: "e", Embedding: randomUnit(r, dim),
			Significance: 1 + i%10, Characters: []string{fmt.Sprint("npc", i%3)}}
	}
	x := indexOf(t, evs, IndexOptions{})
	for i := 0; i < n; i += 1 + r.IntN(50) {
		x.Remove("p", int64(i+1))
	}
	s := x.shards["p"]
	for _, tc := range []struct {
		name   string
		filter Filter
	}{
		{"everything", Filter{}},
		{"significant", Filter{MinSignificance: 4}},
		{"one npc", Filter{Characters: []string{"npc1"}, MinSignificance: 3}},
	} {
		f, ok := s.compile(&tc.filter)
		if !ok {
			t.Fatalf("%s: filter did not compile", tc.name)
		}
		rows, narrowed := s.narrow(&f)
		if narrowed {
			var kept []int32
			for _, row := range rows {
				if s.live[row] && s.pass(&f, row) {
					kept = append(kept, row)
				}
			}
			rows = kept
		}
		size := n
		if narrowed {
			size = len(rows)
		}
		q := &Query{Vector: randomUnit(r, dim)}
		var one scratch
		wantKeys := slices.Clone(s.estimates(q, &f, rows, narrowed, size, 1, &one))
		// Each key is the row's estimate, however the pass reads the rows
		// (all at once when nothing is filtered, else row by row).
		p, w := planes(q.Vector), words(dim)
		for i, k := range wantKeys {
			row := int32(i)
			if narrowed {
				row = rows[i]
			}
			want := int32(-1)
			if s.live[row] && s.pass(&f, row) {
				want = int32(estimate(p, s.bits[int(row)*w:int(row+1)*w], int(s.pop[row])) + 15*dim)
			}
			if k != want {
				t.Fatalf("%s: row %d has key %d, want %d", tc.name, row, k, want)
			}
		}
		for _, parts := range []int{2, 3, 7} {
			var sc scratch
			keys := s.estimates(q, &f, rows, narrowed, size, parts, &sc)
			if !slices.Equal(keys, wantKeys) || !slices.Equal(sc.hist, one.hist) || sc.count != one.count {
				t.Errorf("%s, %d parts: keys, histogram or count (%d) differ from one pass (%d)", tc.name, parts, sc.count, one.count)
			}
		}
		if !narrowed && (one.count == 0 || one.count == size) {
			t.Errorf("%s: %d of %d rows passed: the filter tests nothing", tc.name, one.count, size)
		}
	}
}
