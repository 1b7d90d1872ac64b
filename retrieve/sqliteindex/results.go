package sqliteindex

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/retrieve"
)

// maxResults bounds the results kept: a campaign's scenes ask a few
// dozen distinct queries, each result a few passages.
const maxResults = 256

// resultCache keeps Search's results while the index's generation stamp
// (migrations/0003, 0005) is unchanged. Searching is deterministic for
// given contents, so a kept result is the one the query would give now;
// a game asks the same scene queries each time a scene is entered, and
// ranking them is most of a turn.
type resultCache struct {
	mu   sync.Mutex
	gen  string
	m    map[string]retrieve.Result
	hits int // for tests
}

// generation reads the index's stamp, "counter.random" (migrations/0005):
// every write changes both, so two reads are equal only when no write
// came between, even across a restore of the file from an older copy
// (which brings an older counter back, and later writes count it up
// again, but draw other random parts). It is compared whole, never
// ordered.
func (ix *Index) generation(ctx context.Context) (string, error) {
	rows, err := ix.stmts.query(ctx, `SELECT value FROM lore_meta WHERE key = 'generation'`)
	if err != nil {
		return "", ix.explain("search the lore index", err)
	}
	defer rows.Close()
	var gen string
	if rows.Next() {
		if err := rows.Scan(&gen); err != nil {
			return "", ix.explain("search the lore index", err)
		}
	}
	return gen, ix.explain("search the lore index", rows.Err())
}

// resultKey identifies a query: every field of it decides the result.
func resultKey(q retrieve.Query) (string, bool) {
	b, err := json.Marshal(q)
	return string(b), err == nil
}

func (c *resultCache) get(gen string, key string) (retrieve.Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		c.gen, c.m = gen, nil
		return retrieve.Result{}, false
	}
	r, ok := c.m[key]
	if ok {
		c.hits++
	}
	return cloneResult(r), ok
}

// has reports whether a result is kept for key at generation gen.
func (c *resultCache) has(gen string, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok && c.gen == gen
}

func (c *resultCache) put(gen string, key string, r retrieve.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return // the index changed while searching
	}
	if c.m == nil || len(c.m) >= maxResults {
		c.m = map[string]retrieve.Result{}
	}
	c.m[key] = cloneResult(r)
}

// cloneResult copies a result down to its lists, so what a caller does
// with its result cannot change a kept one.
func cloneResult(r retrieve.Result) retrieve.Result {
	r.Passages, r.Considered = clonePassages(r.Passages), clonePassages(r.Considered)
	return r
}

func clonePassages(ps []retrieve.Passage) []retrieve.Passage {
	if ps == nil {
		return nil
	}
	out := make([]retrieve.Passage, len(ps))
	for i, p := range ps {
		c := &p.Chunk
		c.Section, c.Refs, c.Threads, c.Tags = slices.Clone(c.Section), slices.Clone(c.Refs), slices.Clone(c.Threads), slices.Clone(c.Tags)
		p.Trace.Signals = slices.Clone(p.Trace.Signals)
		out[i] = p
	}
	return out
}
