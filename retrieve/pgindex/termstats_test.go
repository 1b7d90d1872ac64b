package pgindex

import (
	"slices"
	"testing"
)

func TestRareTerms(t *testing.T) {
	for _, tt := range []struct {
		dfs   []int64
		rare  []int
		exact bool
	}{
		{nil, nil, true},
		{[]int64{0, 0}, nil, true},
		{[]int64{10, 5, 0}, []int{1, 0}, true},
		{[]int64{2900, 50, 60}, []int{1, 2}, false},
		{[]int64{1400, 800, 800}, []int{1, 2, 0}, true},
		{[]int64{5000, 3500}, []int{1}, false},
		{[]int64{5000}, []int{0}, false},
	} {
		rare, exact := rareTerms(tt.dfs, rankRows)
		if !slices.Equal(rare, tt.rare) || exact != tt.exact {
			t.Errorf("rareTerms(%v) = %v, %v; want %v, %v", tt.dfs, rare, exact, tt.rare, tt.exact)
		}
	}
}
