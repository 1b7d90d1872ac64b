package sqliteindex

import (
	"context"
	"fmt"
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
	rows, acc, vecs := vc.Live()
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
	return a.SharesBase(b.Set)
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
	if first.Len() != 400 || first.Dead() != 0 || first.Extra() != 0 {
		t.Fatalf("first load: %d vectors, %d dead, %d extra", first.Len(), first.Dead(), first.Extra())
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
	if !sameBase(first, second) || second.Dead() != 20 || second.Extra() != 15 {
		t.Fatalf("after 3 writes: shared base %v, %d dead, %d extra; want a delta of 20 dead and 15 extra",
			sameBase(first, second), second.Dead(), second.Extra())
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
	if !sameBase(first, third) || third.Extra() != 14 {
		t.Fatalf("after another handle's write: shared base %v, %d extra; want 14", sameBase(first, third), third.Extra())
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
	if sameBase(first, fourth) || fourth.Dead() != 0 || fourth.Extra() != 0 {
		t.Fatalf("after 300 changes: shared base %v, %d dead, %d extra; want a full reload", sameBase(first, fourth), fourth.Dead(), fourth.Extra())
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
