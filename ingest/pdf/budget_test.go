package pdf

import "testing"

func TestImageBudgetKeepsEarlierPagesShare(t *testing.T) {
	type step struct {
		page int
		take bool // take, or else give one back
		want bool
	}
	for _, tc := range []struct {
		name  string
		limit int
		steps []step
	}{
		{"in order", 3, []step{{0, true, true}, {0, true, true}, {1, true, true}, {1, true, false}, {2, true, false}}},
		{"a later page first", 3, []step{{3, true, true}, {3, true, true}, {3, true, true}, {3, true, false}, {0, true, true}, {0, true, true}, {0, true, true}, {0, true, false}, {1, true, false}}},
		{"given back", 1, []step{{0, true, true}, {1, true, false}, {0, false, false}, {1, true, true}, {2, true, false}}},
		{"no allowance", 0, []step{{0, true, false}}},
		{"past the last page", 5, []step{{4, true, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newImageBudget(tc.limit, 4)
			for i, s := range tc.steps {
				if !s.take {
					b.giveBack(s.page, 1)
					continue
				}
				if open := b.open(s.page); open != s.want {
					t.Errorf("step %d: open(%d) = %v, want %v", i, s.page, open, s.want)
				}
				if got := b.take(s.page); got != s.want {
					t.Errorf("step %d: take(%d) = %v, want %v", i, s.page, got, s.want)
				}
			}
		})
	}
	var none *imageBudget
	if none.open(0) || none.take(0) {
		t.Error("a nil budget keeps an image")
	}
	none.giveBack(0, 1)
}
