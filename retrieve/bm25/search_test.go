package bm25

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bruteForce scores every document as FTS5's bm25() does, from the
// documents' text, without the index's postings or bounds.
type tf struct{ f [3]int }

type corpus struct {
	counts []map[string]*tf
	lens   []int
	total  int
}

func count(docs [][3]string) *corpus {
	counts := make([]map[string]*tf, len(docs))
	lens := make([]int, len(docs))
	total := 0
	for d, cols := range docs {
		counts[d] = map[string]*tf{}
		for c, text := range cols {
			for _, t := range Tokens(text) {
				if counts[d][t] == nil {
					counts[d][t] = &tf{}
				}
				counts[d][t].f[c]++
				lens[d]++
			}
		}
		total += lens[d]
	}
	return &corpus{counts, lens, total}
}

func bruteForce(cp *corpus, rows []int64, weights [3]float64, terms []string, k int, accept func(int64) bool) []Hit {
	counts, lens, total := cp.counts, cp.lens, cp.total
	n := len(counts)
	avgdl := float64(total) / float64(n)
	idfs := make([]float64, len(terms))
	for i, t := range terms {
		df := 0
		for d := range counts {
			if counts[d][t] != nil {
				df++
			}
		}
		idfs[i] = idf(n, df)
	}
	var hits []Hit
	for d := range counts {
		if accept != nil && !accept(rows[d]) {
			continue
		}
		score, matched := 0.0, false
		for i, t := range terms {
			f := 0.0
			if c := counts[d][t]; c != nil {
				matched = true
				for col := range 3 {
					f += weights[col] * float64(c.f[col])
				}
			}
			score += idfs[i] * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*float64(lens[d])/avgdl)))
		}
		if matched {
			hits = append(hits, Hit{rows[d], score})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return int(a.Row - b.Row)
	})
	return hits[:min(k, len(hits))]
}

// TestSearchMatchesBruteForce checks the index's top k, rows and
// scores, against scoring every document, over random corpora with
// skewed word frequencies, repeated query words and filters.
func TestSearchMatchesBruteForce(t *testing.T) {
	weights := [3]float64{3, 1, 2}
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		vocab := make([]string, 60+r.IntN(400))
		for i := range vocab {
			vocab[i] = fmt.Sprintf("w%dx", i)
		}
		word := func() string {
			// Zipf-like: low ids are common.
			return vocab[int(math.Pow(r.Float64(), 2.5)*float64(len(vocab)))]
		}
		ndocs := 50 + r.IntN(3000)
		docs := make([][3]string, ndocs)
		rows := make([]int64, ndocs)
		bd, err := NewBuilder(weights[:]...)
		if err != nil {
			t.Fatal(err)
		}
		row := int64(0)
		for d := range docs {
			row += 1 + int64(r.IntN(3))
			rows[d] = row
			for c, nw := range []int{r.IntN(4), 5 + r.IntN(200), r.IntN(3)} {
				ws := make([]string, nw)
				for i := range ws {
					ws[i] = word()
				}
				docs[d][c] = strings.Join(ws, " ")
			}
			if err := bd.Add(row, docs[d][:]...); err != nil {
				t.Fatal(err)
			}
		}
		ix := bd.Build()
		cp := count(docs)
		for q := range 40 {
			terms := make([]string, 1+r.IntN(12))
			for i := range terms {
				terms[i] = word()
			}
			if q%7 == 0 {
				terms = append(terms, "absent")
			}
			k := 1 + r.IntN(50)
			var accept func(int) bool
			var acceptRow func(int64) bool
			if q%3 == 1 {
				m := int64(2 + r.IntN(5))
				acceptRow = func(row int64) bool { return row%m != 0 }
				accept = func(d int) bool { return acceptRow(ix.Rows()[d]) }
			}
			got := ix.Search(terms, k, accept)
			want := bruteForce(cp, rows, weights, terms, k, acceptRow)
			if !sameHits(got, want) {
				t.Fatalf("seed %d query %d %v k %d:\n got %v\nwant %v", seed, q, terms, k, got, want)
			}
		}
	}
}

// sameHits compares rankings: equal scores (relative 1e-9) position by
// position and the same rows, except where scores tie.
func sameHits(got, want []Hit) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
			return false
		}
		if got[i].Row != want[i].Row {
			// Allowed only within a run of equal scores.
			tied := false
			for j := range want {
				if want[j].Row == got[i].Row && math.Abs(want[j].Score-got[i].Score) <= 1e-9*math.Abs(want[i].Score) {
					tied = true
				}
			}
			if !tied {
				return false
			}
		}
	}
	return true
}
