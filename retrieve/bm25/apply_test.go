package bm25

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestApplyMatchesBuild applies random removals, changes and additions,
// some of them copies of other documents (equal scores), and checks
// every search against an index built from the documents that result:
// the same rows and bit-identical scores, with and without a filter.
func TestApplyMatchesBuild(t *testing.T) {
	for seed := range 8 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		vocab := make([]string, 40+r.IntN(300))
		for i := range vocab {
			vocab[i] = fmt.Sprintf("w%dx", i)
		}
		word := func() string { return vocab[int(math.Pow(r.Float64(), 2.5)*float64(len(vocab)))] }
		text := func() []string {
			cols := make([]string, 3)
			for c, nw := range []int{r.IntN(4), 3 + r.IntN(150), r.IntN(3)} {
				ws := make([]string, nw)
				for i := range ws {
					ws[i] = word()
				}
				cols[c] = strings.Join(ws, " ")
			}
			return cols
		}
		docs := map[int64][]string{}
		next := int64(1)
		for range 20 + r.IntN(1500) {
			docs[next] = text()
			next += 1 + int64(r.IntN(3))
		}
		build := func() *Index {
			bd, err := NewBuilder(3, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range slices.Sorted(maps.Keys(docs)) {
				if err := bd.Add(row, docs[row]...); err != nil {
					t.Fatal(err)
				}
			}
			return bd.Build()
		}
		ix := build()
		for step := range 6 {
			var remove []int64
			var add []Doc
			rows := slices.Sorted(maps.Keys(docs))
			for _, row := range rows {
				switch x := r.IntN(40); {
				case x == 0: // removed
					remove = append(remove, row)
					delete(docs, row)
				case x == 1: // changed
					remove = append(remove, row)
					docs[row] = text()
					add = append(add, Doc{Row: row, Cols: docs[row]})
				case x == 2 && docs[rows[0]] != nil: // a copy of another
					remove = append(remove, row)
					docs[row] = docs[rows[0]]
					add = append(add, Doc{Row: row, Cols: docs[row]})
				}
			}
			for range r.IntN(30) {
				cols := text()
				if r.IntN(3) == 0 && len(rows) > 0 {
					cols = docs[rows[r.IntN(len(rows))]]
				}
				if cols == nil {
					continue
				}
				docs[next] = cols
				add = append(add, Doc{Row: next, Cols: cols})
				next += 1 + int64(r.IntN(3))
			}
			remove = append(remove, next+1000) // not indexed: ignored
			slices.SortFunc(add, func(a, b Doc) int { return int(a.Row - b.Row) })
			var err error
			if ix, err = ix.Apply(remove, add); err != nil {
				t.Fatal(err)
			}
			want := build()
			if ix.Docs() != want.Docs() || ix.Tokens() != want.Tokens() || ix.Postings() != want.Postings() {
				t.Fatalf("seed %d step %d: %d docs %d tokens %d postings, want %d %d %d", seed, step,
					ix.Docs(), ix.Tokens(), ix.Postings(), want.Docs(), want.Tokens(), want.Postings())
			}
			for row, cols := range docs {
				got, ok := ix.Length(row)
				if w, _ := want.Length(row); !ok || got != w {
					t.Fatalf("seed %d step %d: row %d (%v) has length %d, want %d", seed, step, row, cols[0], got, w)
				}
			}
			for q := range 30 {
				terms := make([]string, 1+r.IntN(10))
				for i := range terms {
					terms[i] = word()
				}
				for _, term := range terms {
					if ix.DocFreq(term) != want.DocFreq(term) {
						t.Fatalf("seed %d step %d: %q in %d documents, want %d", seed, step, term, ix.DocFreq(term), want.DocFreq(term))
					}
				}
				k := 1 + r.IntN(40)
				var got, exp []Hit
				if q%3 == 1 {
					m := int64(2 + r.IntN(4))
					got = ix.Search(terms, k, func(d int) bool { return ix.Rows()[d]%m != 0 })
					exp = want.Search(terms, k, func(d int) bool { return want.Rows()[d]%m != 0 })
				} else {
					got, exp = ix.Search(terms, k, nil), want.Search(terms, k, nil)
				}
				if !slices.Equal(got, exp) {
					t.Fatalf("seed %d step %d query %v k %d:\n got %v\nwant %v", seed, step, terms, k, got, exp)
				}
			}
		}
	}
}

// TestApplyRejects names the bad input.
func TestApplyRejects(t *testing.T) {
	bd, _ := NewBuilder(1)
	bd.Add(1, "a b")
	ix := bd.Build()
	if _, err := ix.Apply(nil, []Doc{{Row: 3, Cols: []string{"x"}}, {Row: 2, Cols: []string{"y"}}}); err == nil || !strings.Contains(err.Error(), "row 2 added after row 3") {
		t.Errorf("descending rows: %v", err)
	}
	if _, err := ix.Apply(nil, []Doc{{Row: 3, Cols: []string{"x", "y"}}}); err == nil || !strings.Contains(err.Error(), "row 3 has 2 columns") {
		t.Errorf("columns: %v", err)
	}
}

// TestApplyEmptied empties an index and fills it again, and fills one
// built empty: each ranks as a fresh build.
func TestApplyEmptied(t *testing.T) {
	build := func(docs ...Doc) *Index {
		bd, _ := NewBuilder(1, 2)
		for _, d := range docs {
			if err := bd.Add(d.Row, d.Cols...); err != nil {
				t.Fatal(err)
			}
		}
		return bd.Build()
	}
	a := Doc{Row: 1, Cols: []string{"red dragon", "fire fire"}}
	b := Doc{Row: 2, Cols: []string{"blue dragon", "lightning"}}
	c := Doc{Row: 3, Cols: []string{"dragon turtle", "steam and fire fire fire"}}
	ix, err := build(a, b).Apply([]int64{1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Search([]string{"dragon"}, 5, nil); ix.Docs() != 0 || len(got) != 0 {
		t.Fatalf("emptied: %d docs, hits %v", ix.Docs(), got)
	}
	for name, from := range map[string]*Index{"emptied": ix, "built empty": build()} {
		got, err := from.Apply(nil, []Doc{b, c})
		if err != nil {
			t.Fatal(err)
		}
		want := build(b, c)
		for _, q := range [][]string{{"dragon"}, {"fire", "dragon"}, {"red"}, {"lightn", "steam"}} {
			if g, w := got.Search(q, 5, nil), want.Search(q, 5, nil); !slices.Equal(g, w) {
				t.Errorf("%s then filled, %v: got %v, want %v", name, q, g, w)
			}
		}
	}
}
