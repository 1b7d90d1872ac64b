package narrative

// byVector scores events by cosine similarity. Above ExactBelow filtered
// events it first keeps the Candidates rows with the highest asymmetric
// binary estimate (query at 4 bits, events at 1 bit a dimension; selected
// with a histogram, so in linear time) and scores only those exactly;
// otherwise it scores every filtered row. A filter naming characters,
// tags, a location or a session is answered from posting lists, so only
// the rows carrying those names are looked at.
func (s *shard) byVector(q *Query, f filter, exact bool, o IndexOptions, sc *scratch) []Match {
	w := words(s.dim)
	rows, narrowed := s.narrow(&f)
	if narrowed {
		kept := make([]int32, 0, len(rows))
		for _, row := range rows {
			if s.live[row] && s.pass(&f, row) {
				kept = append(kept, row)
			}
		}
		rows = kept
	}
	if !exact && (!narrowed || len(rows) >= o.ExactBelow) {
		// keys[i] is row i's estimate (the i-th kept row's, when
		// narrowed) shifted to 0..2·span, or -1 when filtered out.
		p := planes(q.Vector)
		span := 15 * s.dim
		n := len(s.meta)
		if narrowed {
			n = len(rows)
		}
		keys := grow(&sc.keys, n)
		hist := grow(&sc.hist, 2*span+1)
		clear(hist)
		count := 0
		for i := range keys {
			row := int32(i)
			if narrowed {
				row = rows[i]
			} else if !s.live[row] || (!f.all && !s.pass(&f, row)) {
				keys[i] = -1
				continue
			}
			k := estimate(p, s.bits[int(row)*w:int(row+1)*w], int(s.pop[row])) + span
			keys[i] = int32(k)
			hist[k]++
			count++
		}
		rows = highest(keys, rows, hist, count, o)
	} else if !narrowed {
		for row := range int32(len(s.meta)) {
			if s.live[row] && s.pass(&f, row) {
				rows = append(rows, row)
			}
		}
	}
	b := newBest(s, q.Limit)
	for _, row := range rows {
		score := float64(dot(q.Vector, s.vecs[int(row)*s.dim:int(row+1)*s.dim]))
		if q.MinScore > 0 && score < q.MinScore {
			continue
		}
		b.offer(scored{row, score})
	}
	return b.matches(ByVector)
}

// grow returns (*buf)[:n], reallocating when it is too short.
func grow(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	return (*buf)[:n]
}

// highest returns the rows to score exactly: the Candidates of highest
// key (ties at the cut taken in order, so the choice is deterministic),
// or every row with a key when there are fewer than ExactBelow. keys[i]
// belongs to rows[i], or to row i when rows is nil; -1 marks no key.
func highest(keys, rows, hist []int32, n int, o IndexOptions) []int32 {
	want := o.Candidates
	if n < o.ExactBelow || n <= want {
		want = n
	}
	cut, above := len(hist)-1, 0 // keys above cut number above
	for cut >= 0 && above+int(hist[cut]) < want {
		above += int(hist[cut])
		cut--
	}
	atCut := want - above // how many keys equal to cut to keep
	out := make([]int32, 0, want)
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
