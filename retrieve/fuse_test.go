package retrieve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/chunk"
)

func ps(ids ...string) []Passage {
	out := make([]Passage, len(ids))
	for i, id := range ids {
		out[i] = Passage{Chunk: chunk.Chunk{ID: id, Text: "text of " + id, Tokens: 10}, Score: float64(len(ids) - i)}
	}
	return out
}

func ids(p []Passage) string {
	s := make([]string, len(p))
	for i := range p {
		s[i] = p[i].Chunk.ID
	}
	return strings.Join(s, " ")
}

func TestFuse(t *testing.T) {
	ft := Ranking{Kind: FullText, Passages: ps("a", "b", "c")}
	vec := Ranking{Kind: Vector, Passages: ps("c", "a", "d")}
	got := Fuse(ft, vec)
	// a: 1/61+1/62, c: 1/63+1/61, b: 1/62, d: 1/63.
	if want := "a c b d"; ids(got) != want {
		t.Fatalf("order %q, want %q", ids(got), want)
	}
	a := got[0]
	if want := 1.0/61 + 1.0/62; math.Abs(a.Score-want) > 1e-12 || a.Trace.Fused != a.Score {
		t.Errorf("a scored %v (fused %v), want %v", a.Score, a.Trace.Fused, want)
	}
	wantSignals := []Signal{{FullText, 1, 3}, {Vector, 2, 2}}
	if !reflect.DeepEqual(a.Trace.Signals, wantSignals) {
		t.Errorf("a's signals %+v, want %+v", a.Trace.Signals, wantSignals)
	}
	// Ranking order does not matter, ties break by id.
	if again := Fuse(vec, ft); !reflect.DeepEqual(again, got) {
		t.Errorf("swapping rankings changed the result:\n%+v\n%+v", again, got)
	}
	tie := Fuse(Ranking{Kind: FullText, Passages: ps("z")}, Ranking{Kind: Vector, Passages: ps("y")})
	if ids(tie) != "y z" {
		t.Errorf("tie order %q, want by id", ids(tie))
	}
	// A chunk listed twice in one ranking counts once, at its best rank.
	dup := Fuse(Ranking{Kind: FullText, Passages: ps("a", "b", "a")})
	if len(dup) != 2 || len(dup[0].Trace.Signals) != 1 || dup[0].Trace.Signals[0].Rank != 1 {
		t.Errorf("duplicate in a ranking: %+v", dup)
	}
	if len(Fuse()) != 0 {
		t.Error("Fuse() not empty")
	}
}

func TestFuseDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rankings []Ranking
	for _, k := range []SignalKind{FullText, Vector, Keyword, Metadata} {
		var list []string
		for range 50 {
			list = append(list, fmt.Sprintf("c%02d", rng.IntN(60)))
		}
		rankings = append(rankings, Ranking{Kind: k, Passages: ps(list...)})
	}
	want := Fuse(rankings...)
	for range 20 {
		rng.Shuffle(len(rankings), func(i, j int) { rankings[i], rankings[j] = rankings[j], rankings[i] })
		if got := Fuse(rankings...); !reflect.DeepEqual(got, want) {
			t.Fatal("ranking order changed the fused result")
		}
	}
	for i := 1; i < len(want); i++ {
		if byScore(want[i-1], want[i]) > 0 {
			t.Fatalf("not sorted at %d: %v then %v", i, want[i-1], want[i])
		}
	}
}

func TestFit(t *testing.T) {
	p := func(id, text string, n int) Passage {
		return Passage{Chunk: chunk.Chunk{ID: id, Text: text, Tokens: n}}
	}
	in := []Passage{
		p("a", "The bell rang.", 40),
		p("b", "A very long passage about the harbour.", 80),
		p("c", "  the BELL   rang. ", 40), // same as a, ignoring case and spacing
		p("d", "Gulls circle the tower.", 30),
		p("e", "Fog rolls in.", 30),
	}
	tests := []struct {
		name   string
		budget int
		limit  int
		kept   string
		tokens int
		cuts   string
	}{
		{"no cap", 0, 0, "a b d e", 180, "- - duplicate - -"},
		{"skips what does not fit, keeps trying", 100, 0, "a d e", 100, "- budget duplicate - -"},
		{"exact fit", 120, 0, "a b", 120, "- - duplicate budget budget"},
		{"nothing fits", 10, 0, "", 0, "budget budget budget budget budget"},
		{"limit", 0, 2, "a b", 120, "- - duplicate limit limit"},
		{"budget cut does not use the limit", 100, 2, "a d", 70, "- budget duplicate - limit"},
	}
	for _, tt := range tests {
		r := fit(in, tt.budget, tt.limit)
		var cuts []string
		for _, c := range r.Considered {
			cuts = append(cuts, cmpOr(string(c.Trace.Cut), "-"))
		}
		if ids(r.Passages) != tt.kept || r.Tokens != tt.tokens || strings.Join(cuts, " ") != tt.cuts {
			t.Errorf("%s: kept %q (%d tokens), cuts %q; want %q (%d), %q", tt.name, ids(r.Passages), r.Tokens, strings.Join(cuts, " "), tt.kept, tt.tokens, tt.cuts)
		}
		if again := fit(in, tt.budget, tt.limit); !reflect.DeepEqual(again, r) {
			t.Errorf("%s: not deterministic", tt.name)
		}
	}
	if in[2].Trace.Cut != Kept {
		t.Error("Fit changed its input")
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestFitSharesBudgetWithKeywordLore(t *testing.T) {
	// A lorebook entry (scored by its caller) and retrieved passages
	// share one budget through Fuse and Fit.
	keyword := Ranking{Kind: Keyword, Passages: []Passage{{Chunk: chunk.Chunk{ID: "book:bell", Text: "The bell is cursed.", Tokens: 50}, Score: 1}}}
	retrieved := Ranking{Kind: FullText, Passages: []Passage{
		{Chunk: chunk.Chunk{ID: "core/a#0", Text: "The bell tower.", Tokens: 40}, Score: 9},
		{Chunk: chunk.Chunk{ID: "core/a#1", Text: "The keeper.", Tokens: 40}, Score: 5},
	}}
	r := Fit(Fuse(keyword, retrieved), 100)
	if ids(r.Passages) != "book:bell core/a#0" || r.Tokens != 90 {
		t.Errorf("kept %q (%d tokens), want book:bell core/a#0 (90)", ids(r.Passages), r.Tokens)
	}
}

func TestFitCountsMissingTokens(t *testing.T) {
	r := Fit([]Passage{{Chunk: chunk.Chunk{ID: "x", Text: "hello world"}}}, 0)
	if r.Tokens != 2 {
		t.Errorf("counted %d tokens for %q, want 2", r.Tokens, "hello world")
	}
}
