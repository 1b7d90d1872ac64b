package pglibrary_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/librarytest"
	"github.com/hearth-rpg/hearth/ingest/library/pglibrary"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

func openStore(t testing.TB) (*pglibrary.Store, *pgindex.Index) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.URL(t)
	ix, err := pgindex.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := pglibrary.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ix
}

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	librarytest.Run(t, func(t *testing.T) (library.Store, retrieve.Index) { return openStore(t) })
}

// FuzzSearchImages: no text a user types makes the image search fail;
// whatever it finds, it finds only what the role may see.
func FuzzSearchImages(f *testing.F) {
	for _, s := range []string{"dragon", `"*" OR -`, `a & !b | c:*`, "ünïcödé map", "a:b ^c <-> d", "", "the of"} {
		f.Add(s)
	}
	st, ix := openStore(f)
	l := library.New(st, ix)
	librarytest.Illustrated(f, l, "pub", access.Player, [2]string{"A green dragon.", "near text"})
	librarytest.Illustrated(f, l, "gm", access.GM, [2]string{"A green dragon.", "secret text"})
	f.Fuzz(func(t *testing.T, text string) {
		ims, err := l.SearchImages(context.Background(), library.ImageQuery{Text: text, Role: access.Player})
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
		for _, im := range ims {
			if im.Document != "pub" {
				t.Fatalf("search %q found %s's image as a player", text, im.Document)
			}
		}
	})
}
