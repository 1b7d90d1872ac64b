package narrative

import (
	"runtime"
	"sync"

	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// byVector scores events by cosine similarity. Above ExactBelow filtered
// events it first keeps the Candidates rows with the highest asymmetric
// binary estimate (query at 4 bits, events at 1 bit a dimension; selected
// with a histogram, so in linear time) and scores only those exactly;
// otherwise it scores every filtered row. A filter naming characters,
// tags, a location or a session is answered from posting lists, so only
// the rows carrying those names are looked at. Large estimate passes are
// split across the CPUs; the exact scores are taken eight rows at a time
// (vecmath.DotGather, the same bits as one at a time).
func (s *shard) byVector(q *Query, f filter, exact bool, o IndexOptions, sc *scratch) []Match {
	rows, narrowed := s.narrow(&f)
	if narrowed {
		kept := sc.rows[:0]
		for _, row := range rows {
			if s.live[row] && s.pass(&f, row) {
				kept = append(kept, row)
			}
		}
		sc.rows = kept
		rows = kept
	}
	if !exact && (!narrowed || len(rows) >= o.ExactBelow) {
		n := len(s.meta)
		if narrowed {
			n = len(rows)
		}
		keys := s.estimates(q, &f, rows, narrowed, n, estimateParts(n), sc)
		sc.out = highest(keys, rows, sc.hist, sc.count, o, sc.out)
		rows = sc.out
	} else if !narrowed {
		rows = sc.rows[:0]
		for row := range int32(len(s.meta)) {
			if s.live[row] && s.pass(&f, row) {
				rows = append(rows, row)
			}
		}
		sc.rows = rows
	}
	sims := growFloat(&sc.sims, len(rows))
	vecmath.DotGather(sims, q.Vector, s.vecs, rows)
	b := newBest(s, q.Limit)
	for i, row := range rows {
		score := float64(sims[i])
		if q.MinScore > 0 && score < q.MinScore {
			continue
		}
		b.offer(scored{row, score})
	}
	return b.matches(ByVector)
}

// estimateSplit is the number of rows above which the estimate pass is
// split across the CPUs; below it, starting goroutines costs more than
// it saves.
const estimateSplit = 16384

// estimateParts is how many goroutines share an estimate pass over n rows.
func estimateParts(n int) int {
	if n < estimateSplit {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/(estimateSplit/2)))
}

// estimates sets, for each of n rows (row i, or rows[i] when narrowed),
// its key: the estimate shifted to 0..2·span, or -1 when filtered out,
// splitting the rows into parts run at once. It returns the keys, with
// sc.hist counting each key and sc.count the keys set.
func (s *shard) estimates(q *Query, f *filter, rows []int32, narrowed bool, n, parts int, sc *scratch) []int32 {
	p := planes(q.Vector)
	span := 15 * s.dim
	keys := grow(&sc.keys, n)
	for len(sc.hists) < parts {
		sc.hists = append(sc.hists, nil)
	}
	counts := make([]int, parts)
	var wg sync.WaitGroup
	for part := range parts {
		hist := grow(&sc.hists[part], 2*span+1)
		clear(hist)
		lo, hi := part*n/parts, (part+1)*n/parts
		run := func() { counts[part] = s.estimateRange(p, f, rows, narrowed, keys, hist, lo, hi) }
		if part == parts-1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	sc.hist = sc.hists[0]
	sc.count = counts[0]
	for part := 1; part < parts; part++ {
		for k, c := range sc.hists[part] {
			sc.hist[k] += c
		}
		sc.count += counts[part]
	}
	return keys
}

// estimateRange fills keys[lo:hi] and counts them in hist, returning how
// many rows passed the filter.
func (s *shard) estimateRange(p []uint64, f *filter, rows []int32, narrowed bool, keys, hist []int32, lo, hi int) int {
	w := words(s.dim)
	span := 15 * s.dim
	count := 0
	if !narrowed && f.all {
		// Every live row is estimated: read the sign bits in one batch,
		// then turn each row's sum into its key.
		ks := keys[lo:hi]
		vecmath.EstimateRows(ks, p, s.bits[lo*w:hi*w], w)
		live, pop := s.live[lo:hi], s.pop[lo:hi] // as long as ks: no bounds checks below
		live, pop = live[:len(ks)], pop[:len(ks)]
		for i, k := range ks {
			if !live[i] {
				ks[i] = -1
				continue
			}
			k = 2*k - 15*int32(pop[i]) + int32(span)
			ks[i] = k
			hist[k]++
			count++
		}
		return count
	}
	for i := lo; i < hi; i++ {
		row := int32(i)
		if narrowed {
			row = rows[i]
		} else if !s.live[row] || (!f.all && !s.pass(f, row)) {
			keys[i] = -1
			continue
		}
		k := estimate(p, s.bits[int(row)*w:int(row+1)*w], int(s.pop[row])) + span
		keys[i] = int32(k)
		hist[k]++
		count++
	}
	return count
}

// grow returns (*buf)[:n], reallocating when it is too short.
func grow(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	return (*buf)[:n]
}

func growFloat(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// highest returns the rows to score exactly: the Candidates of highest
// key (ties at the cut taken in order, so the choice is deterministic),
// or every row with a key when there are fewer than ExactBelow. keys[i]
// belongs to rows[i], or to row i when rows is nil; -1 marks no key.
// hist counts the keys and n is how many there are; the result is
// appended to out[:0].
func highest(keys, rows, hist []int32, n int, o IndexOptions, out []int32) []int32 {
	want := o.Candidates
	if n < o.ExactBelow || n <= want {
		want = n
	}
	cut, atCut := vecmath.Cut(hist, want)
	out = out[:0]
	for i, k := range keys {
		keep := int(k) > cut
		if int(k) == cut && atCut > 0 {
			keep = true
			atCut--
		}
		if !keep {
			continue
		}
		if rows != nil {
			out = append(out, rows[i])
		} else {
			out = append(out, int32(i))
		}
	}
	return out
}

// byLexical scores events by the share of the query's words they hold,
// counting through the postings so only events sharing a word are seen.
func (s *shard) byLexical(q *Query, f filter) []Match {
	qt := terms(q.Text)
	if len(qt) == 0 {
		return nil
	}
	hits := map[int32]int{}
	for _, t := range qt {
		for _, row := range s.post[t] {
			hits[row]++
		}
	}
	b := newBest(s, q.Limit)
	for row, n := range hits {
		score := float64(n) / float64(len(qt))
		if score < q.MinOverlap || !s.pass(&f, row) {
			continue
		}
		b.offer(scored{row, score})
	}
	return b.matches(ByLexical)
}

// byFilter lists the filtered events, newest first.
func (s *shard) byFilter(q *Query, f filter) []Match {
	b := newRecent(s, q.Limit)
	if rows, ok := s.narrow(&f); ok {
		for _, row := range rows {
			if s.pass(&f, row) {
				b.offer(scored{row, 1})
			}
		}
		return b.matches(ByFilter)
	}
	for row := range int32(len(s.meta)) {
		if s.pass(&f, row) {
			b.offer(scored{row, 1})
		}
	}
	return b.matches(ByFilter)
}
