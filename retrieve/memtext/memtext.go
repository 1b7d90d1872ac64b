package memtext

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/bm25"
)

// The columns a filter tests by value, in the order Add takes them.
const (
	Pack = iota
	ContentType
	Corpus
	Location
	Faction
	NumColumns
)

// Columns are the per-document access levels and filter columns, in the
// order the documents were added to the bm25 index.
type Columns struct {
	access []uint8
	cols   [NumColumns]column
}

// Add appends one document: its access level (clamped to 0..255) and its
// values for the columns above.
func (c *Columns) Add(access int, vals [NumColumns]string) {
	c.access = append(c.access, uint8(min(max(access, 0), 255)))
	for i, v := range vals {
		c.cols[i].add(v)
	}
}

// Derive returns empty columns that know c's values, with room for n
// documents: AppendFrom copies c's documents into them without looking
// their values up again, and Add appends new ones. It serves a set of
// documents changed by a few from c's.
func (c *Columns) Derive(n int) Columns {
	out := Columns{access: make([]uint8, 0, n)}
	for i := range c.cols {
		out.cols[i] = column{ids: maps.Clone(c.cols[i].ids), names: slices.Clone(c.cols[i].names), of: make([]uint32, 0, n)}
	}
	return out
}

// AppendFrom appends document d of src, the columns c was derived from
// (Derive).
func (c *Columns) AppendFrom(src *Columns, d int) {
	c.access = append(c.access, src.access[d])
	for i := range c.cols {
		c.cols[i].of = append(c.cols[i].of, src.cols[i].of[d])
	}
}

// Len is how many documents the columns hold.
func (c *Columns) Len() int { return len(c.access) }

// Bytes estimates the columns' memory.
func (c *Columns) Bytes() int64 {
	n := int64(len(c.access))
	for _, col := range c.cols {
		n += int64(len(col.of)) * 4
		for _, v := range col.names {
			n += int64(len(v)) + 16 + 24
		}
	}
	return n
}

// Keyed is the part of f the database must answer: its entities, threads
// and tags. IsZero on the result says there is none.
func Keyed(f retrieve.Filter) retrieve.Filter {
	g := f.Normalized()
	return retrieve.Filter{EntityIDs: g.EntityIDs, Threads: g.Threads, Tags: g.Tags, TagMatch: g.TagMatch}
}

// Accept returns the test a document must pass for a reader of role
// under f: its access level, the columns f names and, when keyed, its
// row number among allowed (ascending: the rows the database found for
// Keyed(f)). rows are the documents' row numbers (bm25.Index.Rows).
func (c *Columns) Accept(role int, f retrieve.Filter, rows []int64, keyed bool, allowed []int64) func(d int) bool {
	g := f.Normalized()
	type test struct {
		col  *column
		ok   []bool // by value id
		want bool   // the value must be among ok (false: must not be)
	}
	var tests []test
	in := func(col int, vals []string, want bool) {
		if len(vals) > 0 {
			tests = append(tests, test{&c.cols[col], c.cols[col].admit(vals), want})
		}
	}
	in(Pack, g.Packs, true)
	in(Pack, g.ExcludePacks, false)
	in(ContentType, g.ContentTypes, true)
	var corpora []string
	for _, x := range g.Corpora {
		corpora = append(corpora, string(x))
	}
	in(Corpus, corpora, true)
	if g.Location != "" {
		in(Location, []string{g.Location}, true)
	}
	if g.Faction != "" {
		in(Faction, []string{g.Faction}, true)
	}
	return func(d int) bool {
		if int(c.access[d]) > role {
			return false
		}
		if keyed {
			if _, ok := slices.BinarySearch(allowed, rows[d]); !ok {
				return false
			}
		}
		for _, t := range tests {
			if t.ok[t.col.of[d]] != t.want {
				return false
			}
		}
		return true
	}
}

// column is one text column, its values interned.
type column struct {
	ids   map[string]uint32
	names []string
	of    []uint32 // per document
}

func (c *column) add(v string) {
	id, ok := c.ids[v]
	if !ok {
		if c.ids == nil {
			c.ids = map[string]uint32{}
		}
		id = uint32(len(c.names))
		c.ids[v] = id
		c.names = append(c.names, v)
	}
	c.of = append(c.of, id)
}

// admit marks the ids of the values listed (SQL's IN over the column).
func (c *column) admit(vals []string) []bool {
	ok := make([]bool, len(c.names))
	for _, v := range vals {
		if id, found := c.ids[v]; found {
			ok[id] = true
		}
	}
	return ok
}

// MaxPostings bounds an in-memory full text (about 2.5 bytes a posting
// with its vocabulary and per-document arrays: 100,000 chunks of 150–400
// words are 16 million postings, 38 MiB). Past it the database's own
// full text serves alone.
const MaxPostings = 200_000_000

// Builder builds the index and its columns together, document by
// document, in row order.
type Builder struct {
	bd   *bm25.Builder
	cols Columns
}

// NewBuilder starts a build weighting heading, text and tags as the
// lore index's FTS5 rank does: bm25(3.0, 1.0, 2.0).
func NewBuilder() (*Builder, error) {
	bd, err := bm25.NewBuilder(3, 1, 2)
	if err != nil {
		return nil, err
	}
	return &Builder{bd: bd}, nil
}

// Add adds one chunk: its row number, its heading, text and tags, its
// access level and its filter columns. It fails past MaxPostings.
func (b *Builder) Add(row int64, heading, text, tags string, access int, vals [NumColumns]string) error {
	if err := b.bd.Add(row, heading, text, tags); err != nil {
		return err
	}
	if b.bd.Postings() > MaxPostings {
		return fmt.Errorf("build the in-memory full text: more than %d postings, past its memory bound", MaxPostings)
	}
	b.cols.Add(access, vals)
	return nil
}

// Build returns the index and the columns of the documents added.
func (b *Builder) Build() (*bm25.Index, Columns) { return b.bd.Build(), b.cols }
