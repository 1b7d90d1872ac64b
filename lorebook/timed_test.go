package lorebook

import (
	"encoding/json"
	"fmt"
	"testing"
)

// step is one turn of a timed-effects scenario.
type step struct {
	turn   int
	msg    string
	in     bool      // included
	reason Reason    // when included
	cut    CutReason // when not included; "" for no cut reported
}

// play runs steps in order, passing the State through JSON between turns
// as a game persisting it would.
func play(t *testing.T, b *Book, steps []step) {
	t.Helper()
	var saved []byte
	for _, s := range steps {
		st := &State{}
		if saved != nil {
			if err := json.Unmarshal(saved, st); err != nil {
				t.Fatal(err)
			}
		}
		a := b.Activate(Input{Messages: []string{s.msg}, Turn: s.turn}, st)
		var err error
		if saved, err = json.Marshal(st); err != nil {
			t.Fatal(err)
		}
		m, in := matchFor(a, 0)
		if in != s.in {
			t.Fatalf("turn %d %q: included = %v, want %v (state %s, cuts %+v)", s.turn, s.msg, in, s.in, saved, a.Cut)
		}
		if in && m.Reason != s.reason {
			t.Errorf("turn %d: reason %q, want %q", s.turn, m.Reason, s.reason)
		}
		c, cut := cutFor(a, 0)
		if !in && (cut != (s.cut != "") || c.Reason != s.cut) {
			t.Errorf("turn %d: cut %+v, want %q", s.turn, c, s.cut)
		}
	}
}

func TestStickyThenCooldown(t *testing.T) {
	b := book(t, `{"key":["fog"],"content":"fog","sticky":3,"cooldown":2}`)
	play(t, b, []step{
		{turn: 10, msg: "fog rolls in", in: true, reason: ByKey},
		{turn: 11, msg: "calm", in: true, reason: BySticky},
		{turn: 12, msg: "calm", in: true, reason: BySticky},
		{turn: 13, msg: "fog again", cut: CutCooldown}, // sticky ended, cooldown began
		{turn: 14, msg: "fog again", cut: CutCooldown},
		{turn: 15, msg: "calm"},
		{turn: 16, msg: "fog again", in: true, reason: ByKey},
	})
}

func TestCooldownAlone(t *testing.T) {
	b := book(t, `{"key":["bell"],"content":"bell","cooldown":2}`)
	play(t, b, []step{
		{turn: 1, msg: "a bell", in: true, reason: ByKey},
		{turn: 2, msg: "a bell", cut: CutCooldown},
		{turn: 3, msg: "a bell", in: true, reason: ByKey},
		{turn: 4, msg: "a bell", cut: CutCooldown},
	})
}

func TestStickyAlone(t *testing.T) {
	b := book(t, `{"key":["fog"],"content":"fog","sticky":2}`)
	play(t, b, []step{
		{turn: 1, msg: "calm"},
		{turn: 2, msg: "fog", in: true, reason: ByKey},
		{turn: 3, msg: "calm", in: true, reason: BySticky},
		{turn: 4, msg: "calm"},
		{turn: 5, msg: "fog", in: true, reason: ByKey},
	})
}

func TestDelay(t *testing.T) {
	b := book(t, `{"key":["debt"],"content":"debt","delay":3}`)
	play(t, b, []step{
		{turn: 0, msg: "a debt", cut: CutDelay},
		{turn: 2, msg: "a debt", cut: CutDelay},
		{turn: 2, msg: "calm"}, // a delay is reported only for an entry that would match
		{turn: 3, msg: "a debt", in: true, reason: ByKey},
	})
	// Delay holds back constants too.
	c := book(t, `{"content":"always","constant":true,"delay":2}`)
	if a := c.Activate(Input{Turn: 1}, nil); len(a.Included) != 0 {
		t.Error("a delayed constant was included")
	}
	if a := c.Activate(Input{Turn: 2}, nil); len(a.Included) != 1 {
		t.Error("a constant past its delay was not included")
	}
}

func TestStickyIgnoresProbability(t *testing.T) {
	// Find a seed whose roll passes on turn 1; later turns must keep the
	// entry whatever their rolls say.
	b := book(t, `{"key":["omen"],"content":"omen","sticky":5,"probability":10}`)
	for seed := range uint64(500) {
		st := &State{}
		if len(b.Activate(Input{Messages: []string{"omen"}, Turn: 1, Seed: seed}, st).Included) == 0 {
			continue
		}
		for turn := 2; turn <= 5; turn++ {
			a := b.Activate(Input{Messages: []string{"omen"}, Turn: turn, Seed: seed}, st)
			if len(a.Included) != 1 || a.Included[0].Reason != BySticky {
				t.Fatalf("seed %d turn %d: %+v, want the sticky entry", seed, turn, a)
			}
		}
		return
	}
	t.Fatal("no seed in 500 passed a 10% roll")
}

func TestRepeatedTurnUndoesItsEffects(t *testing.T) {
	b := book(t, `{"key":["fog"],"content":"fog","sticky":3,"cooldown":3}`)
	st := &State{}
	b.Activate(Input{Messages: []string{"fog"}, Turn: 5}, st)
	if len(st.Sticky) != 1 || len(st.Cooldown) != 1 {
		t.Fatalf("state %+v, want one sticky and one cooldown", st)
	}
	// The same turn again (a retry, a swipe) without the keyword: the
	// effects the first attempt started are void.
	a := b.Activate(Input{Messages: []string{"calm"}, Turn: 5}, st)
	if len(a.Included) != 0 || len(st.Sticky) != 0 || len(st.Cooldown) != 0 {
		t.Errorf("included %v, state %+v; want nothing left", uids(a), st)
	}
}

func TestEditedEntryDropsItsEffects(t *testing.T) {
	b := book(t, `{"key":["fog"],"content":"fog","sticky":3}`)
	st := &State{}
	b.Activate(Input{Messages: []string{"fog"}, Turn: 1}, st)
	edited := book(t, `{"key":["fog"],"content":"a thicker fog","sticky":3}`)
	if a := edited.Activate(Input{Messages: []string{"calm"}, Turn: 2}, st); len(a.Included) != 0 {
		t.Error("an edited entry inherited the sticky effect of its old text")
	}
	if a := b.Activate(Input{Messages: []string{"calm"}, Turn: 2}, st); len(a.Included) != 1 {
		t.Error("the unedited entry lost its sticky effect")
	}
	edited.Activate(Input{Messages: []string{"calm"}, Turn: 4}, st)
	if len(st.Sticky) != 0 {
		t.Errorf("a stale effect outlived its end: %+v", st.Sticky)
	}
}

func TestStateKeepsOtherBooksEffects(t *testing.T) {
	a := book(t, `{"key":["fog"],"content":"fog","sticky":5}`)
	a.Name = "coast"
	b := book(t, `{"key":["x"],"content":"x"}`)
	b.Name = "inland"
	st := &State{}
	a.Activate(Input{Messages: []string{"fog"}, Turn: 1}, st)
	for turn := 2; turn < 10; turn++ {
		b.Activate(Input{Messages: []string{"x"}, Turn: turn}, st)
	}
	if _, ok := st.Sticky["coast.0"]; !ok {
		t.Errorf("another book's activation removed coast's effect: %+v", st)
	}
}

func TestStateJSON(t *testing.T) {
	st := State{Sticky: map[string]Effect{"b.1": {Hash: "00ff", Start: 3, End: 6}}, Cooldown: map[string]Effect{"b.2": {Hash: "ab", Start: 4, End: 5, Protected: true}}}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sticky":{"b.1":{"hash":"00ff","start":3,"end":6}},"cooldown":{"b.2":{"hash":"ab","start":4,"end":5,"protected":true}}}`
	if string(data) != want {
		t.Errorf("JSON %s, want %s", data, want)
	}
	var back State
	if err := json.Unmarshal(data, &back); err != nil || fmt.Sprint(back) != fmt.Sprint(st) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
