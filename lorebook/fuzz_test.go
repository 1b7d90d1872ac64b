package lorebook

import (
	"slices"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse and activates whatever parses:
// neither may panic, and a parsed book must keep its invariants.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"entries":{"0":{"key":["x"],"content":"x mentions y"},"1":{"key":["/y+/i"],"content":"@@activate\nz","group":"g"}}}`))
	f.Add([]byte(`{"spec":"chara_card_v3","data":{"character_book":{"entries":[{"keys":["a"],"secondary_keys":["b"],"selective":true,"content":"c","extensions":{"selectiveLogic":"2","sticky":1}}]}}}`))
	f.Add([]byte(`{"spec":"lorebook_v3","data":{"entries":[{"keys":["(a|b)"],"use_regex":true,"content":"d"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(data)
		if err != nil {
			if b != nil {
				t.Fatal("Parse returned a book with an error")
			}
			return
		}
		if !slices.IsSortedFunc(b.Entries, func(x, y Entry) int { return x.UID - y.UID }) {
			t.Fatal("entries not sorted by uid")
		}
		if len(b.order) != len(b.Entries) {
			t.Fatal("scan order does not cover the entries")
		}
		msg := string(data[:min(len(data), 300)])
		st := &State{}
		for turn := range 3 {
			a := b.Activate(Input{Messages: []string{"x y a b", msg}, Turn: turn, Budget: 50, Seed: uint64(turn)}, st)
			spent := 0
			seen := map[int]bool{}
			for _, m := range a.Included {
				if seen[m.UID] {
					t.Fatalf("uid %d included twice", m.UID)
				}
				seen[m.UID] = true
				if i, ok := b.byUID[m.UID]; !ok || b.Entries[i].Disabled {
					t.Fatalf("included uid %d is not an enabled entry", m.UID)
				} else if !b.Entries[i].IgnoreBudget {
					spent += m.Tokens
				}
			}
			if spent > a.Budget {
				t.Fatalf("spent %d tokens of a %d budget", spent, a.Budget)
			}
		}
	})
}
