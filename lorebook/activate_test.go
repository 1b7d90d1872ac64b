package lorebook

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSelectiveLogic(t *testing.T) {
	// Primary key "castle"; secondary keys "siege" and "winter".
	for _, tc := range []struct {
		logic Logic
		msg   string
		want  bool
		sec   string // the secondary key reported
	}{
		{AndAny, "the castle", false, ""},
		{AndAny, "the castle in winter", true, "winter"},
		{AndAny, "the castle siege in winter", true, "siege"},
		{AndAny, "a siege in winter", false, ""}, // no primary key

		{NotAll, "the castle", true, "siege"},
		{NotAll, "the castle in winter", true, "siege"},
		{NotAll, "the castle siege", true, "winter"},
		{NotAll, "the castle siege in winter", false, ""},

		{NotAny, "the castle", true, ""},
		{NotAny, "the castle in winter", false, ""},
		{NotAny, "the castle siege in winter", false, ""},

		{AndAll, "the castle", false, ""},
		{AndAll, "the castle in winter", false, ""},
		{AndAll, "the castle siege in winter", true, ""},
	} {
		t.Run(fmt.Sprintf("%v/%s", tc.logic, tc.msg), func(t *testing.T) {
			b := book(t, fmt.Sprintf(`{"key":["castle"],"keysecondary":["siege","winter"],"selective":true,"selectiveLogic":%d}`, tc.logic))
			a := b.Activate(Input{Messages: []string{tc.msg}}, nil)
			if got := len(a.Included) == 1; got != tc.want {
				t.Fatalf("activated = %v, want %v", got, tc.want)
			}
			if tc.want && (a.Included[0].Key != "castle" || a.Included[0].Secondary != tc.sec) {
				t.Errorf("key %q secondary %q, want castle and %q", a.Included[0].Key, a.Included[0].Secondary, tc.sec)
			}
		})
	}
}

func TestSecondaryKeysNeedSelective(t *testing.T) {
	b := book(t, `{"key":["castle"],"keysecondary":["siege"],"selective":false,"selectiveLogic":3}`)
	if a := b.Activate(Input{Messages: []string{"the castle"}}, nil); len(a.Included) != 1 {
		t.Fatal("secondary keys applied although selective is off")
	}
}

func TestScanDepth(t *testing.T) {
	msgs := []string{"the dragon stirs", "a quiet night", "bread and ale"} // newest last
	for _, tc := range []struct {
		name  string
		entry string
		in    Input
		want  bool
	}{
		{"default depth 2 misses the third-newest", `{"key":["dragon"]}`, Input{}, false},
		{"global depth 3 reaches it", `{"key":["dragon"]}`, Input{ScanDepth: 3}, true},
		{"global depth 1 sees only the newest", `{"key":["ale"]}`, Input{ScanDepth: 1}, true},
		{"global depth 1 misses the second-newest", `{"key":["quiet"]}`, Input{ScanDepth: 1}, false},
		{"entry depth overrides global", `{"key":["dragon"],"scanDepth":3}`, Input{ScanDepth: 1}, true},
		{"entry depth can be smaller", `{"key":["quiet"],"scanDepth":1}`, Input{ScanDepth: 3}, false},
		{"entry depth 0 scans nothing", `{"key":["ale"],"scanDepth":0}`, Input{}, false},
		{"entry depth beyond the chat sees it all", `{"key":["dragon"],"scanDepth":50}`, Input{}, true},
		{"null depth inherits", `{"key":["dragon"],"scanDepth":null}`, Input{ScanDepth: 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := book(t, tc.entry)
			tc.in.Messages = msgs
			if got := len(b.Activate(tc.in, nil).Included) == 1; got != tc.want {
				t.Errorf("activated = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBookScanDepth(t *testing.T) {
	card := `{"spec":"chara_card_v2","data":{"character_book":{"scan_depth":3,"entries":[{"keys":["dragon"],"content":"x","enabled":true,"insertion_order":1}]}}}`
	b, err := Parse([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []string{"the dragon stirs", "a quiet night", "bread and ale"}
	if len(b.Activate(Input{Messages: msgs}, nil).Included) != 1 {
		t.Error("the book's scan_depth 3 did not apply")
	}
	if len(b.Activate(Input{Messages: msgs, ScanDepth: 2}, nil).Included) != 0 {
		t.Error("Input.ScanDepth did not override the book's")
	}
}

func TestConstants(t *testing.T) {
	b := book(t,
		`{"key":[],"content":"always","constant":true}`,
		`{"key":["never-said"],"content":"also always","constant":true}`,
		`{"key":["dragon"],"content":"keyed"}`,
		`{"key":[],"content":"no keys, not constant"}`,
		`{"key":[],"content":"disabled constant","constant":true,"disable":true}`,
	)
	a := b.Activate(Input{Messages: []string{"quiet"}}, nil)
	if got := uids(a); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("included %v, want [0 1]", got)
	}
	for _, m := range a.Included {
		if m.Reason != ByConstant || m.Key != "" {
			t.Errorf("uid %d: reason %q key %q, want constant", m.UID, m.Reason, m.Key)
		}
	}
	if a := b.Activate(Input{}, nil); len(a.Included) != 2 {
		t.Errorf("with no messages, %d entries included, want the 2 constants", len(a.Included))
	}
}

// chain is a book where each entry's content names the next entry's key:
// the messages name only "alpha".
func chain(t *testing.T, extra ...string) *Book {
	e := []string{
		`{"key":["alpha"],"content":"alpha mentions beta"}`,
		`{"key":["beta"],"content":"beta mentions gamma"}`,
		`{"key":["gamma"],"content":"gamma mentions delta"}`,
		`{"key":["delta"],"content":"delta mentions epsilon"}`,
		`{"key":["epsilon"],"content":"the end"}`,
	}
	for i, x := range extra {
		if x != "" {
			e[i] = x
		}
	}
	return book(t, e...)
}

func TestRecursionDepth(t *testing.T) {
	for _, tc := range []struct {
		max    int
		want   []int
		passes int
	}{
		{-1, []int{0}, 1},
		{1, []int{0, 1}, 2},
		{2, []int{0, 1, 2}, 3},
		{0, []int{0, 1, 2, 3}, 4},     // DefaultMaxRecursion is 3
		{10, []int{0, 1, 2, 3, 4}, 6}, // the sixth pass finds nothing new
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			a := chain(t).Activate(Input{Messages: []string{"alpha"}, MaxRecursion: tc.max}, nil)
			if got := uids(a); !slices.Equal(got, tc.want) {
				t.Fatalf("included %v, want %v", got, tc.want)
			}
			for _, m := range a.Included {
				if m.Level != m.UID {
					t.Errorf("uid %d activated at level %d, want %d", m.UID, m.Level, m.UID)
				}
			}
			if a.Passes != tc.passes {
				t.Errorf("%d passes, want %d", a.Passes, tc.passes)
			}
		})
	}
}

func TestRecursionFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		msg   string
		want  []int
	}{
		{"exclude recursion: not activated by content",
			[]string{1: `{"key":["beta"],"content":"beta mentions gamma","excludeRecursion":true}`},
			"alpha", []int{0}},
		{"exclude recursion: still activated by the messages",
			[]string{1: `{"key":["beta"],"content":"beta mentions gamma","excludeRecursion":true}`},
			"alpha and beta", []int{0, 1, 2, 3, 4}},
		{"prevent recursion: its content activates nothing",
			[]string{1: `{"key":["beta"],"content":"beta mentions gamma","preventRecursion":true}`},
			"alpha", []int{0, 1}},
		{"delay until recursion: not from the messages",
			[]string{0: `{"key":["alpha"],"content":"alpha mentions beta","delayUntilRecursion":true}`},
			"alpha", nil},
		{"delay until recursion: in the first recursion pass",
			[]string{2: `{"key":["gamma"],"content":"gamma mentions delta","delayUntilRecursion":true}`},
			"alpha gamma", []int{0, 1, 2, 3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := chain(t, tc.extra...)
			a := b.Activate(Input{Messages: []string{tc.msg}, MaxRecursion: 10}, nil)
			if got := uids(a); !slices.Equal(got, tc.want) {
				t.Errorf("included %v, want %v", got, tc.want)
			}
			for _, m := range a.Included {
				if b.Entries[m.UID].DelayUntilRecursion > 0 && m.Level == 0 {
					t.Errorf("uid %d is delayed until recursion but activated in the first pass", m.UID)
				}
			}
		})
	}
}

func TestDelayUntilRecursionLevels(t *testing.T) {
	// Level-1 and level-2 entries both match the messages. Level 1 joins in
	// the first recursion pass; level 2 only after a recursion pass finds
	// nothing new (pass 2 here), in the pass after that.
	b := book(t,
		`{"key":["harbour"],"content":"the harbour"}`,
		`{"key":["harbour"],"content":"level one","delayUntilRecursion":1}`,
		`{"key":["harbour"],"content":"level two","delayUntilRecursion":2}`,
	)
	a := b.Activate(Input{Messages: []string{"the harbour"}}, nil)
	levels := map[int]int{}
	for _, m := range a.Included {
		levels[m.UID] = m.Level
	}
	if want := map[int]int{0: 0, 1: 1, 2: 3}; fmt.Sprint(levels) != fmt.Sprint(want) {
		t.Errorf("levels %v, want %v", levels, want)
	}
}

func TestCardRecursiveScanningFalse(t *testing.T) {
	card := `{"spec":"chara_card_v3","data":{"character_book":{"recursive_scanning":false,"entries":[
		{"keys":["alpha"],"content":"alpha mentions beta","enabled":true,"insertion_order":1},
		{"keys":["beta"],"content":"beta","enabled":true,"insertion_order":1}]}}}`
	b, err := Parse([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	if got := uids(b.Activate(Input{Messages: []string{"alpha"}}, nil)); !slices.Equal(got, []int{0}) {
		t.Errorf("included %v, want [0]", got)
	}
}

func TestPromptOrder(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","order":50}`,
		`{"key":["x"],"content":"b","order":300}`,
		`{"key":["x"],"content":"c","order":10}`,
		`{"key":["x"],"content":"d","order":50}`,
	)
	// Lowest order first; among equals, SillyTavern prepends later
	// activations, and uid 3 activates after uid 0.
	if got := promptOrder(b.Activate(Input{Messages: []string{"x"}}, nil)); !slices.Equal(got, []int{2, 3, 0, 1}) {
		t.Errorf("prompt order %v, want [2 3 0 1]", got)
	}
}

func TestBudget(t *testing.T) {
	c := counter(t)
	words := func(n int) string { return strings.TrimSpace(strings.Repeat(" the", n)) } // one token each
	if c.Count(words(10)) != 10 {
		t.Fatalf("fixture: %q is %d tokens", words(10), c.Count(words(10)))
	}
	b := book(t,
		`{"key":["x"],"content":"`+words(10)+`","order":100}`,
		`{"key":["x"],"content":"`+words(10)+`","order":300}`,
		`{"key":[],"content":"`+words(10)+`","order":1,"constant":true}`,
		`{"key":["x"],"content":"`+words(3)+`","order":200}`,
		`{"key":["x"],"content":"`+words(10)+`","order":0,"ignoreBudget":true}`,
	)
	for _, tc := range []struct {
		budget int
		want   []int
	}{
		{0, []int{0, 1, 2, 3, 4}},  // no cap
		{10, []int{2, 4}},          // the constant comes first and fills it
		{20, []int{1, 2, 4}},       // then order 300
		{22, []int{1, 2, 4}},       // order 200 needs 3 more: budget over; order 100 is not tried
		{23, []int{1, 2, 3, 4}},    // exactly full
		{33, []int{0, 1, 2, 3, 4}}, // room for all
	} {
		a := b.Activate(Input{Messages: []string{"x"}, Budget: tc.budget, Counter: c}, nil)
		if got := uids(a); !slices.Equal(got, tc.want) {
			t.Errorf("budget %d: included %v, want %v", tc.budget, got, tc.want)
			continue
		}
		sum := 0
		for _, m := range a.Included {
			sum += m.Tokens
		}
		if sum != a.Tokens {
			t.Errorf("budget %d: Tokens %d, included entries sum to %d", tc.budget, a.Tokens, sum)
		}
		for _, uid := range []int{0, 1, 3} {
			if slices.Contains(tc.want, uid) {
				continue
			}
			if cut, ok := cutFor(a, uid); !ok || cut.Reason != CutBudget {
				t.Errorf("budget %d: uid %d cut as %+v, want budget", tc.budget, uid, cut)
			}
		}
	}
}

func TestBudgetFromCard(t *testing.T) {
	card := `{"spec":"chara_card_v2","data":{"character_book":{"token_budget":2,"entries":[
		{"keys":["x"],"content":"one two three","enabled":true,"insertion_order":2},
		{"keys":["x"],"content":"one","enabled":true,"insertion_order":1}]}}}`
	b, err := Parse([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	a := b.Activate(Input{Messages: []string{"x"}, Counter: counter(t)}, nil)
	if a.Budget != 2 || len(a.Included) != 0 {
		t.Errorf("budget %d, included %v; want the card's budget 2 spent by the first entry", a.Budget, uids(a))
	}
}

func TestRecursionStopsWhenBudgetIsSpent(t *testing.T) {
	c := counter(t)
	// alpha's short content fits; its recursion would reach beta, but a
	// sibling overflowed the budget in the same pass.
	b := book(t,
		`{"key":["alpha"],"content":"alpha mentions beta","order":200}`,
		`{"key":["alpha"],"content":"alpha alpha alpha alpha alpha alpha","order":100}`,
		`{"key":["beta"],"content":"b"}`,
	)
	a := b.Activate(Input{Messages: []string{"alpha"}, Budget: 5, Counter: c}, nil)
	if got := uids(a); !slices.Equal(got, []int{0}) {
		t.Errorf("included %v, want [0]", got)
	}
	if a.Passes != 1 {
		t.Errorf("%d passes, want 1", a.Passes)
	}
}

func TestProbability(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"a","probability":30,"useProbability":true}`,
		`{"key":["x"],"content":"b","probability":0,"useProbability":true}`,
		`{"key":["x"],"content":"c","probability":0,"useProbability":false}`,
		`{"key":["x"],"content":"d","probability":100}`,
	)
	hits := map[int]int{}
	for seed := range uint64(2000) {
		in := Input{Messages: []string{"x"}, Seed: seed}
		a := b.Activate(in, nil)
		if b2 := b.Activate(in, nil); !slices.Equal(uids(a), uids(b2)) {
			t.Fatalf("seed %d: %v then %v", seed, uids(a), uids(b2))
		}
		for _, uid := range uids(a) {
			hits[uid]++
		}
		if _, in := matchFor(a, 0); !in {
			if cut, ok := cutFor(a, 0); !ok || cut.Reason != CutProbability {
				t.Fatalf("seed %d: uid 0 left out without a probability cut: %+v", seed, a.Cut)
			}
		}
	}
	if hits[1] != 0 || hits[2] != 2000 || hits[3] != 2000 {
		t.Errorf("hits %v: 0%% must never, unused or 100%% must always activate", hits)
	}
	if hits[0] < 500 || hits[0] > 700 { // 30% of 2000 = 600
		t.Errorf("30%% entry activated %d times in 2000", hits[0])
	}
}

func TestProbabilityDependsOnSeedAndTurn(t *testing.T) {
	b := book(t, `{"key":["x"],"content":"a","probability":50}`)
	outcomes := map[bool]bool{}
	for turn := range 40 {
		a := b.Activate(Input{Messages: []string{"x"}, Seed: 7, Turn: turn}, nil)
		outcomes[len(a.Included) == 1] = true
	}
	if len(outcomes) != 2 {
		t.Error("a 50% entry gave the same outcome on 40 turns with one campaign seed")
	}
}

func TestDecorators(t *testing.T) {
	b := book(t,
		`{"key":["never"],"content":"@@activate\nforced"}`,
		`{"key":["x"],"content":"@@dont_activate\nsilenced","constant":true}`,
		`{"key":["x"],"content":"@@unknown_thing 3\n@@@activate\nfallback applies"}`,
		`{"key":["x"],"content":"@@scan_depth 1\ndepth one"}`,
		`{"key":["x"],"content":"@@activate_only_after 5\nlate"}`,
		`{"key":["x"],"content":"@@activate_only_every 2\neven turns"}`,
		`{"key":["x"],"content":"@@depth 4\n\nplacement is not ours"}`,
	)
	if got := b.Entries[0].Content; got != "forced" {
		t.Errorf("content %q, want the decorator trimmed", got)
	}
	if got := b.Entries[6].Content; got != "placement is not ours" {
		t.Errorf("content %q, want the decorator and blank line trimmed", got)
	}
	if len(b.Warnings) != 2 { // @@unknown_thing and @@depth
		t.Errorf("warnings %v, want 2", b.Warnings)
	}
	msgs := []string{"x earlier", "now"} // "x" only in the second-newest
	for _, tc := range []struct {
		turn int
		want []int
	}{
		{3, []int{0, 2, 6}},
		{4, []int{0, 2, 5, 6}},
		{5, []int{0, 2, 4, 6}},
	} {
		a := b.Activate(Input{Messages: msgs, Turn: tc.turn}, nil)
		if got := uids(a); !slices.Equal(got, tc.want) {
			t.Errorf("turn %d: included %v, want %v", tc.turn, got, tc.want)
		}
		if m, _ := matchFor(a, 0); m.Reason != ByDecorator {
			t.Errorf("uid 0 reason %q, want decorator", m.Reason)
		}
	}
}

func TestPassages(t *testing.T) {
	b := book(t,
		`{"key":["x"],"content":"the text","order":5,"comment":"Title"}`,
		`{"key":["x"],"content":"","order":6}`,
	)
	b.Name = "saltmere"
	a := b.Activate(Input{Messages: []string{"x"}, Counter: counter(t)}, nil)
	ps := a.Passages()
	if len(ps) != 1 {
		t.Fatalf("%d passages, want 1 (the empty entry has none)", len(ps))
	}
	want := Passage{ID: "lorebook:saltmere:0", Text: "the text", Tokens: 2, Order: 5, Key: "x", Reason: ByKey, Comment: "Title"}
	if ps[0] != want {
		t.Errorf("passage %+v, want %+v", ps[0], want)
	}
}

func TestActivateDoesNotChangeTheBook(t *testing.T) {
	b := chain(t)
	before := fmt.Sprintf("%+v", b.Entries)
	b.Activate(Input{Messages: []string{"alpha"}}, &State{})
	if after := fmt.Sprintf("%+v", b.Entries); after != before {
		t.Error("Activate modified the book")
	}
}

func TestConcurrentActivate(t *testing.T) {
	b, err := Parse(readFixture(t, "saltmere_worldinfo.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := counter(t)
	in := Input{Messages: []string{"the lighthouse keeper hums a song", "any smuggler about?"}, Counter: c, Seed: 3}
	want := fmt.Sprint(b.Activate(in, &State{}))
	done := make(chan string)
	for range 8 {
		go func() { done <- fmt.Sprint(b.Activate(in, &State{})) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Fatalf("concurrent activation differs:\n%s\n%s", got, want)
		}
	}
}
