package lorebook

import (
	"slices"
	"testing"
)

func TestInclusionGroupOverride(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","group":"g","order":10,"groupOverride":true}`,
		`{"key":["x"],"content":"b","group":"g","order":30,"groupOverride":true}`,
		`{"key":["x"],"content":"c","group":"g","order":90}`,
		`{"key":["x"],"content":"d","group":"other"}`,
	)
	for seed := range uint64(20) {
		a := b.Activate(Input{Messages: []string{"x"}, Seed: seed}, nil)
		if got := uids(a); !slices.Equal(got, []int{1, 3}) {
			t.Fatalf("seed %d: included %v, want [1 3]: the override with the highest order wins", seed, got)
		}
		for _, uid := range []int{0, 2} {
			if c, ok := cutFor(a, uid); !ok || c.Reason != CutGroup {
				t.Errorf("uid %d: cut %+v, want a group cut", uid, c)
			}
		}
	}
}

func TestInclusionGroupWeights(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","group":"g","groupWeight":100}`,
		`{"key":["x"],"content":"b","group":"g","groupWeight":300}`,
		`{"key":["x"],"content":"c","group":"g","groupWeight":0}`,
	)
	// A fixed seed gives a fixed winner.
	first := uids(b.Activate(Input{Messages: []string{"x"}, Seed: 42}, nil))
	for range 5 {
		if got := uids(b.Activate(Input{Messages: []string{"x"}, Seed: 42}, nil)); !slices.Equal(got, first) {
			t.Fatalf("seed 42 chose %v, then %v", first, got)
		}
	}
	if len(first) != 1 {
		t.Fatalf("seed 42 included %v, want exactly one group member", first)
	}
	// Over many seeds the winners follow the weights: 1:3:0.
	wins := map[int]int{}
	for seed := range uint64(4000) {
		got := uids(b.Activate(Input{Messages: []string{"x"}, Seed: seed}, nil))
		if len(got) != 1 {
			t.Fatalf("seed %d included %v", seed, got)
		}
		wins[got[0]]++
	}
	if wins[2] != 0 || wins[0] < 850 || wins[0] > 1150 || wins[1] < 2850 || wins[1] > 3150 {
		t.Errorf("wins %v over 4000 draws, want about 1000/3000/0", wins)
	}
}

func TestInclusionGroupScoring(t *testing.T) {
	// The documentation's example: "sing me a song" ties, "sing me a song
	// about Ghosts" gives the Ghosts entry three keys to the other's two.
	entries := []string{
		`{"key":["song","sing","Black Cat"],"content":"a","group":"songs"}`,
		`{"key":["song","sing","Ghosts"],"content":"b","group":"songs"}`,
	}
	b := book(t, entries...)
	for seed := range uint64(20) {
		a := b.Activate(Input{Messages: []string{"sing me a song about Ghosts"}, Seed: seed, GroupScoring: true}, nil)
		if got := uids(a); !slices.Equal(got, []int{1}) {
			t.Fatalf("seed %d: included %v, want [1]", seed, got)
		}
	}
	winners := map[int]bool{}
	for seed := range uint64(40) {
		a := b.Activate(Input{Messages: []string{"sing me a song"}, Seed: seed, GroupScoring: true}, nil)
		winners[uids(a)[0]] = true
	}
	if len(winners) != 2 {
		t.Errorf("on a tie the draw should pick either; it picked %v", winners)
	}
	// Without scoring, the better match does not always win.
	winners = map[int]bool{}
	for seed := range uint64(40) {
		a := b.Activate(Input{Messages: []string{"sing me a song about Ghosts"}, Seed: seed}, nil)
		winners[uids(a)[0]] = true
	}
	if len(winners) != 2 {
		t.Errorf("without scoring the draw should pick either; it picked %v", winners)
	}
	// Scoring switched on by one entry applies to its group.
	b = book(t, `{"key":["song","sing","Black Cat"],"content":"a","group":"songs","useGroupScoring":true}`, entries[1])
	if got := uids(b.Activate(Input{Messages: []string{"sing me a song about Ghosts"}}, nil)); len(got) != 1 {
		t.Errorf("included %v", got)
	}
	for seed := range uint64(20) {
		// uid 0 is scored and loses; uid 1 is not scored but wins anyway.
		if got := uids(b.Activate(Input{Messages: []string{"sing me a song about Ghosts"}, Seed: seed}, nil)); !slices.Equal(got, []int{1}) {
			t.Fatalf("seed %d: included %v, want [1]", seed, got)
		}
	}
}

func TestInclusionGroupAcrossPasses(t *testing.T) {
	// uid 0 wins group g in the first pass by override; uid 2 joins the
	// group in the recursion pass and must not be added beside it.
	b := book(t,
		`{"key":["x"],"content":"mentions y","group":"g","groupOverride":true}`,
		`{"key":["x"],"content":"b","group":"g"}`,
		`{"key":["y"],"content":"c","group":"g"}`,
	)
	a := b.Activate(Input{Messages: []string{"x"}}, nil)
	if got := uids(a); !slices.Equal(got, []int{0}) {
		t.Fatalf("included %v, want [0]", got)
	}
	if c, ok := cutFor(a, 2); !ok || c.Reason != CutGroup || c.Level != 1 {
		t.Errorf("uid 2 cut %+v, want a group cut at level 1", c)
	}
}

func TestInclusionGroupMultipleGroups(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","group":"red, blue","groupOverride":true,"order":50}`,
		`{"key":["x"],"content":"b","group":"red"}`,
		`{"key":["x"],"content":"c","group":"blue"}`,
		`{"key":["x"],"content":"d","group":"green"}`,
	)
	if got := uids(b.Activate(Input{Messages: []string{"x"}}, nil)); !slices.Equal(got, []int{0, 3}) {
		t.Errorf("included %v, want [0 3]: uid 0 wins both its groups", got)
	}
}

func TestInclusionGroupKeepsStickyMember(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","group":"g","sticky":3}`,
		`{"key":["y"],"content":"b","group":"g","groupOverride":true,"order":500}`,
	)
	st := &State{}
	if got := uids(b.Activate(Input{Messages: []string{"x"}, Turn: 1}, st)); !slices.Equal(got, []int{0}) {
		t.Fatalf("turn 1: included %v, want [0]", got)
	}
	// Turn 2: uid 1 would win by override, but uid 0 is sticky.
	a := b.Activate(Input{Messages: []string{"x y"}, Turn: 2}, st)
	if got := uids(a); !slices.Equal(got, []int{0}) {
		t.Fatalf("turn 2: included %v, want the sticky uid 0 to hold the group", got)
	}
	if m, _ := matchFor(a, 0); m.Reason != BySticky {
		t.Errorf("uid 0 reason %q, want sticky", m.Reason)
	}
	if c, ok := cutFor(a, 1); !ok || c.Reason != CutGroup {
		t.Errorf("uid 1 cut %+v, want a group cut", c)
	}
}
