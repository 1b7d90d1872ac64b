package sqliteindex

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// TestFullTextTiesOnEveryPath ranks fifty chunks of one text, equal in
// every score, by each way a search may take (the conformance suite sees
// only the one Search picks): each must give the first forty in the
// order they were indexed in, on every run, where the ranking's depth
// cuts the run of equals.
func TestFullTextTiesOnEveryPath(t *testing.T) {
	ctx := context.Background()
	ix := openTest(t, WithEmbedder(embedding.NewHashing(64)))
	docs := make([]chunk.Chunk, 50)
	for i := range docs {
		// IDs in an order unlike the order indexed in.
		docs[i] = chunk.Chunk{ID: fmt.Sprintf("tie-%02d", (i*37+11)%50), Ordinal: i, Location: "core:saltmere", Text: "The harbour bell rings at dusk for the drowned sailors."}
	}
	if err := ix.Upsert(ctx, "core", "ties.md", "h", docs); err != nil {
		t.Fatal(err)
	}
	// Other chunks, indexed after and without the query's words, make
	// them rare enough for rare-first to answer.
	var other []chunk.Chunk
	for i := range 450 {
		other = append(other, chunk.Chunk{ID: fmt.Sprintf("other-%03d", i), Ordinal: i,
			Text: fmt.Sprintf("Filler %d: the grey coast road winds past salt marshes, fishing huts and a ruined watchtower where gulls nest.", i)})
	}
	if err := ix.Upsert(ctx, "core", "other.md", "h", other); err != nil {
		t.Fatal(err)
	}
	// Upsert inserts the chunks in the order given: the first forty rows
	// are the first forty chunks.
	var want []int64
	rows, err := ix.r.QueryContext(ctx, `SELECT n, id FROM lore_chunks ORDER BY n LIMIT 40`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; rows.Next(); i++ {
		var n int64
		var id string
		if err := rows.Scan(&n, &id); err != nil {
			t.Fatal(err)
		}
		if id != docs[i].ID {
			t.Fatalf("row %d holds %s, want %s", n, id, docs[i].ID)
		}
		want = append(want, n)
	}
	rows.Close()
	gen, err := ix.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const text = "harbour bell"
	role := int(access.GM)
	cond, args := where(retrieve.Filter{})
	paths := map[string]func() ([]hit, bool, error){
		"in-memory BM25": func() ([]hit, bool, error) {
			// Built in the background after a write: wait for it.
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
				h, ok, err := ix.memSearch(ctx, gen, text, role, retrieve.Filter{}, 40)
				if ok || err != nil || time.Now().After(deadline) {
					return h, ok, err
				}
			}
		},
		"rare first": func() ([]hit, bool, error) {
			// At most 50 rows rare: "harbour" is, "bell" then common.
			return ix.rareFirst(ctx, gen, retrieve.Terms(text), role, cond, args, 40, 50)
		},
		"FTS5": func() ([]hit, bool, error) {
			h, err := ix.ftsHits(ctx, matchQuery(text), role, retrieve.Filter{}, cond, args, 40)
			return h, true, err
		},
		"FTS5 in a row range": func() ([]hit, bool, error) {
			f := retrieve.Filter{Location: "core:saltmere"} // selective: a rowid range
			c, a := where(f)
			h, err := ix.ftsHits(ctx, matchQuery(text), role, f, c, a, 40)
			return h, true, err
		},
		"vectors": func() ([]hit, bool, error) {
			h, ran, _, err := ix.vectorSearch(ctx, text, role, retrieve.Filter{}, cond, args, 40)
			return h, ran, err
		},
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			for run := range 3 {
				hits, ok, err := path()
				if err != nil || !ok {
					t.Fatalf("run %d: answered %v, %v", run, ok, err)
				}
				got := make([]int64, len(hits))
				for i, h := range hits {
					got[i] = h.n
					if h.score != hits[0].score {
						t.Fatalf("run %d: scores %v and %v of one text", run, hits[0].score, h.score)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("run %d: rows %v,\nwant %v", run, got, want)
				}
			}
		})
	}
}
