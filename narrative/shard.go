package narrative

import (
	"fmt"
	"math/bits"
	"slices"
)

// shard is one playthrough's events. Rows are never reused: a removed
// event leaves a dead row, skipped by every search, until the index is
// rebuilt (the store rebuilds it on open).
type shard struct {
	dim    int       // 0 until the first embedding arrives
	events []Event   // embeddings stripped: the vectors live in vecs
	meta   []rowMeta // the columns the cheap filters read
	chars  [][]uint32
	tags   [][]uint32
	vecs   []float32 // dim floats a row; zeros for rows without a vector
	bits   []uint64  // sign bits, words(dim) a row
	pop    []uint16  // set sign bits a row
	live   []bool    // has a vector and is not removed: what a vector scan reads
	byID   map[int64]int32
	names  map[string]uint32  // interned characters, tags, locations, sessions
	byName map[uint32][]int32 // rows naming each interned name, ascending
	post   map[string][]int32 // rows holding each lexical term, ascending
	count  int                // events held, removed ones excluded
}

type rowMeta struct {
	id      int64
	at      int64
	turn    int32
	loc     uint32
	session uint32
	sig     int8
	kind    Kind
	dead    bool
}

func newShard() *shard {
	return &shard{byID: map[int64]int32{}, names: map[string]uint32{}, byName: map[uint32][]int32{}, post: map[string][]int32{}}
}

// intern returns a name's number, giving new names the next one; 0 is
// the empty name.
func (s *shard) intern(n string) uint32 {
	if n == "" {
		return 0
	}
	if id, ok := s.names[n]; ok {
		return id
	}
	id := uint32(len(s.names) + 1)
	s.names[n] = id
	return id
}

func (s *shard) internAll(ns []string) []uint32 {
	if len(ns) == 0 {
		return nil
	}
	out := make([]uint32, len(ns))
	for i, n := range ns {
		out[i] = s.intern(n)
	}
	return out
}

func (s *shard) add(e Event) error {
	if _, dup := s.byID[e.ID]; dup {
		return e.fail(fmt.Errorf("the index already holds an event with this ID"))
	}
	var v []float32
	if len(e.Embedding) > 0 {
		if s.dim == 0 {
			s.dim = len(e.Embedding)
			// Rows added before the first vector get zero vectors.
			s.vecs = make([]float32, len(s.events)*s.dim)
			s.bits = make([]uint64, len(s.events)*words(s.dim))
			s.pop = make([]uint16, len(s.events))
		}
		if len(e.Embedding) != s.dim {
			return e.fail(dimensionError(s.dim, len(e.Embedding)))
		}
		if v = unit(e.Embedding); v == nil {
			return e.fail(fmt.Errorf("embedding is all zeros: it has no direction to compare"))
		}
	}
	row := int32(len(s.events))
	if s.dim > 0 {
		if v != nil {
			s.vecs = append(s.vecs, v...)
			s.bits = signBits(s.bits, v)
		} else {
			s.vecs = append(s.vecs, make([]float32, s.dim)...)
			s.bits = append(s.bits, make([]uint64, words(s.dim))...)
		}
		n := 0
		for _, x := range s.bits[len(s.bits)-words(s.dim):] {
			n += bits.OnesCount64(x)
		}
		s.pop = append(s.pop, uint16(n))
	}
	e.Embedding = nil
	s.events = append(s.events, e)
	s.meta = append(s.meta, rowMeta{
		id: e.ID, at: int64(e.At), turn: int32(e.Turn),
		loc: s.intern(e.Location), session: s.intern(e.Session),
		sig: int8(e.Significance), kind: e.Kind,
	})
	s.live = append(s.live, v != nil)
	s.chars = append(s.chars, s.internAll(e.Characters))
	s.tags = append(s.tags, s.internAll(e.Tags))
	m := &s.meta[row]
	for _, id := range append(append([]uint32{m.loc, m.session}, s.chars[row]...), s.tags[row]...) {
		if id != 0 && (len(s.byName[id]) == 0 || s.byName[id][len(s.byName[id])-1] != row) {
			s.byName[id] = append(s.byName[id], row)
		}
	}
	for _, t := range terms(eventText(&e)) {
		s.post[t] = append(s.post[t], row)
	}
	s.byID[e.ID] = row
	s.count++
	return nil
}

func (s *shard) remove(id int64) bool {
	row, ok := s.byID[id]
	if !ok {
		return false
	}
	delete(s.byID, id)
	s.meta[row].dead = true
	s.live[row] = false
	s.count--
	return true
}

// filter is a Filter with names replaced by their interned numbers.
type filter struct {
	all                     bool // nothing to check
	session, loc            uint32
	chars, tagsAny, tagsAll []uint32
	minSig                  int8
	fromTurn, toTurn        int
	since, until            int64
	kinds                   []Kind
	episodic                bool
}

// compile interns f's names; ok is false when a name the filter requires
// was never seen, so nothing can match.
func (s *shard) compile(f *Filter) (c filter, ok bool) {
	look := func(n string) (uint32, bool) {
		if n == "" {
			return 0, true
		}
		id, ok := s.names[n]
		return id, ok
	}
	known := func(ns []string) []uint32 {
		var out []uint32
		for _, n := range ns {
			if id, ok := s.names[n]; ok {
				out = append(out, id)
			}
		}
		return out
	}
	c = filter{
		minSig: int8(min(max(f.MinSignificance, -128), 127)), fromTurn: f.FromTurn, toTurn: f.ToTurn,
		since: int64(f.Since), until: int64(f.Until), kinds: f.Kinds, episodic: f.Episodic,
	}
	if c.session, ok = look(f.Session); !ok {
		return c, false
	}
	if c.loc, ok = look(f.Location); !ok {
		return c, false
	}
	if len(f.Characters) > 0 {
		if c.chars = known(f.Characters); len(c.chars) == 0 {
			return c, false
		}
	}
	if len(f.TagsAny) > 0 {
		if c.tagsAny = known(f.TagsAny); len(c.tagsAny) == 0 {
			return c, false
		}
	}
	for _, t := range f.TagsAll {
		id, ok := s.names[t]
		if !ok {
			return c, false
		}
		c.tagsAll = append(c.tagsAll, id)
	}
	c.all = f.Session == "" && f.Location == "" && f.MinSignificance <= 1 && f.FromTurn <= 0 && f.ToTurn <= 0 &&
		f.Since <= 0 && f.Until <= 0 && len(f.Kinds) == 0 && !f.Episodic &&
		len(c.chars) == 0 && len(c.tagsAny) == 0 && len(c.tagsAll) == 0
	return c, true
}

// narrow returns, ascending, the rows that can pass f by the names it
// requires, using the smallest posting list (or union of lists, for "any
// of" filters); ok is false when f names nothing and every row must be
// checked.
func (s *shard) narrow(f *filter) (rows []int32, ok bool) {
	consider := func(cand []int32) {
		if !ok || len(cand) < len(rows) {
			rows, ok = cand, true
		}
	}
	union := func(ids []uint32) []int32 {
		if len(ids) == 1 {
			return s.byName[ids[0]]
		}
		var u []int32
		for _, id := range ids {
			u = append(u, s.byName[id]...)
		}
		slices.Sort(u)
		return slices.Compact(u)
	}
	for _, id := range []uint32{f.loc, f.session} {
		if id != 0 {
			consider(s.byName[id])
		}
	}
	for _, id := range f.tagsAll {
		consider(s.byName[id])
	}
	if len(f.chars) > 0 {
		consider(union(f.chars))
	}
	if len(f.tagsAny) > 0 {
		consider(union(f.tagsAny))
	}
	return rows, ok
}

// pass reports whether row passes f; dead rows never do.
func (s *shard) pass(f *filter, row int32) bool {
	m := &s.meta[row]
	if m.dead {
		return false
	}
	if f.all {
		return true
	}
	switch {
	case f.session != 0 && m.session != f.session,
		f.loc != 0 && m.loc != f.loc,
		m.sig < f.minSig,
		int(m.turn) < f.fromTurn,
		f.toTurn > 0 && int(m.turn) > f.toTurn,
		m.at < f.since,
		f.until > 0 && m.at > f.until,
		f.episodic && !m.kind.Episodic(),
		len(f.kinds) > 0 && !slices.Contains(f.kinds, m.kind):
		return false
	}
	if len(f.chars) > 0 && !anyID(f.chars, s.chars[row]) {
		return false
	}
	if len(f.tagsAny) > 0 && !anyID(f.tagsAny, s.tags[row]) {
		return false
	}
	for _, t := range f.tagsAll {
		if !slices.Contains(s.tags[row], t) {
			return false
		}
	}
	return true
}

func anyID(want, have []uint32) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}
