package sqliteindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
)

// snapshot is a cache's readable contents by row, for comparing a cache
// that caught up with one loaded from scratch.
func snapshot(vc *vectorCache) map[int64]string {
	rows, acc, vecs := vc.live()
	out := make(map[int64]string, len(rows))
	for i, n := range rows {
		out[n] = fmt.Sprint(acc[i], vecs[i])
	}
	return out
}

// fresh loads the vectors of the index file at path through a new handle,
// which has no cache to catch up from.
func fresh(t *testing.T, path string, e embedding.Embedder) map[int64]string {
	t.Helper()
	ix, err := Open(context.Background(), path, WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	vc, err := ix.vectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snapshot(vc)
}

func mustVectors(t *testing.T, ix *Index) *vectorCache {
	t.Helper()
	vc, err := ix.vectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return vc
}

func sameBase(a, b *vectorCache) bool {
	return len(a.base.data) > 0 && len(b.base.data) > 0 && &a.base.data[0] == &b.base.data[0]
}

func lorefile(name string, n int, level access.Level) []chunk.Chunk {
	var cs []chunk.Chunk
	for i := range n {
		cs = append(cs, chunk.Chunk{Ordinal: i, Access: level, Section: []string{name},
			Text: fmt.Sprintf("%s paragraph %d about the lighthouse, the harbour and keeper %d", name, i, i*7)})
	}
	return cs
}

// TestVectorCacheCatchesUp checks that after writes (its own and another
// handle's, as another process would make them) the cache reads only
// what changed, and ends up exactly as a full load would.
func TestVectorCacheCatchesUp(t *testing.T) {
	ctx := context.Background()
	e := embedding.NewHashing(32)
	path := filepath.Join(t.TempDir(), "hearth.db")
	ix, err := Open(ctx, path, WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for i := range 40 {
		if err := ix.Upsert(ctx, "core", fmt.Sprintf("f%02d.md", i), "h1", lorefile(fmt.Sprintf("f%02d", i), 10, access.Player)); err != nil {
			t.Fatal(err)
		}
	}
	first := mustVectors(t, ix)
	if first.len() != 400 || first.ndead != 0 || len(first.extra.rows) != 0 {
		t.Fatalf("first load: %d vectors, %d dead, %d extra", first.len(), first.ndead, len(first.extra.rows))
	}
	if again := mustVectors(t, ix); again != first {
		t.Fatal("the cache was rebuilt with nothing written")
	}

	// Its own writes: a file rewritten (now GM-only), one deleted, one new.
	if err := ix.Upsert(ctx, "core", "f01.md", "h2", lorefile("f01b", 12, access.GM)); err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteFile(ctx, "core", "f02.md"); err != nil {
		t.Fatal(err)
	}
	if err := ix.Upsert(ctx, "core", "new.md", "h1", lorefile("new", 3, access.Player)); err != nil {
		t.Fatal(err)
	}
	second := mustVectors(t, ix)
	if !sameBase(first, second) || second.ndead != 20 || len(second.extra.rows) != 15 {
		t.Fatalf("after 3 writes: shared base %v, %d dead, %d extra; want a delta of 20 dead and 15 extra",
			sameBase(first, second), second.ndead, len(second.extra.rows))
	}
	if got, want := snapshot(second), fresh(t, path, e); !reflect.DeepEqual(got, want) {
		t.Fatalf("caught-up cache has %d vectors, a full load %d", len(got), len(want))
	}

	// Another handle's writes, including to rows already in the extra slab.
	other, err := Open(ctx, path, WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Upsert(ctx, "core", "new.md", "h2", lorefile("newer", 2, access.Trusted)); err != nil {
		t.Fatal(err)
	}
	if err := other.DeletePack(ctx, "nothing-here"); err != nil {
		t.Fatal(err)
	}
	third := mustVectors(t, ix)
	if !sameBase(first, third) || len(third.extra.rows) != 14 {
		t.Fatalf("after another handle's write: shared base %v, %d extra; want 14", sameBase(first, third), len(third.extra.rows))
	}
	if got, want := snapshot(third), fresh(t, path, e); !reflect.DeepEqual(got, want) {
		t.Fatalf("caught-up cache has %d vectors, a full load %d", len(got), len(want))
	}

	// Past compactAt, the next read reloads in full.
	for i := 10; i < 40; i++ {
		if err := other.Upsert(ctx, "core", fmt.Sprintf("f%02d.md", i), "h3", lorefile(fmt.Sprintf("g%02d", i), 10, access.Player)); err != nil {
			t.Fatal(err)
		}
	}
	fourth := mustVectors(t, ix)
	if sameBase(first, fourth) || fourth.ndead != 0 || len(fourth.extra.rows) != 0 {
		t.Fatalf("after 300 changes: shared base %v, %d dead, %d extra; want a full reload", sameBase(first, fourth), fourth.ndead, len(fourth.extra.rows))
	}
	if got, want := snapshot(fourth), fresh(t, path, e); !reflect.DeepEqual(got, want) {
		t.Fatalf("reloaded cache has %d vectors, a full load %d", len(got), len(want))
	}

	// A log trimmed past the cache also means a full reload.
	if err := ix.Upsert(ctx, "core", "f03.md", "h4", lorefile("f03c", 1, access.Player)); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.w.ExecContext(ctx, `DELETE FROM lore_vector_log WHERE seq < (SELECT MAX(seq) FROM lore_vector_log)`); err != nil {
		t.Fatal(err)
	}
	fifth := mustVectors(t, ix)
	if sameBase(fourth, fifth) {
		t.Fatal("a cache behind the trimmed log caught up instead of reloading")
	}
	if got, want := snapshot(fifth), fresh(t, path, e); !reflect.DeepEqual(got, want) {
		t.Fatalf("reloaded cache has %d vectors, a full load %d", len(got), len(want))
	}
}

// TestScanSkipsDeadAndReadsExtra checks the scan of a cache that caught
// up against brute force over what it holds.
func TestScanSkipsDeadAndReadsExtra(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim = 8
	vc := randomCache(rng, parallelFrom+500, dim)
	vc.dead = make([]uint64, (len(vc.base.rows)+63)/64)
	var allowed []int64
	for i := 0; i < len(vc.base.rows); i += 7 {
		vc.dead[i/64] |= 1 << (i % 64)
		vc.ndead++
		allowed = append(allowed, vc.base.rows[i], vc.base.rows[i+1])
	}
	for i := range 300 {
		n := int64(10_000_000 + i)
		vc.extra.add(n, int8(1+rng.IntN(4)), randomUnit(rng, dim))
		if i%3 == 0 {
			allowed = append(allowed, n)
		}
	}
	for _, role := range []int{1, 4} {
		for _, rows := range [][]int64{nil, allowed} {
			q := randomUnit(rng, dim)
			got, want := vc.scan(q, role, 25, rows), bruteForce(vc, q, role, 25, rows)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("role %d, %d allowed: scan %v, brute force %v", role, len(rows), got[:min(3, len(got))], want[:min(3, len(want))])
			}
			for _, h := range got {
				if i, ok := vc.base.slot[h.n]; ok && vc.isDead(int(i)) {
					t.Fatalf("role %d: dead row %d returned", role, h.n)
				}
			}
		}
	}
}
