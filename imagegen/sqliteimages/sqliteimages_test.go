package sqliteimages_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/imagestest"
	"github.com/hearth-rpg/hearth/imagegen/sqliteimages"
	"github.com/hearth-rpg/hearth/store"
)

func TestConformance(t *testing.T) {
	imagestest.Run(t, func(t *testing.T) (imagegen.Store, store.Store) {
		db, err := sqliteimages.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db, db.Games()
	})
}

// Images survive closing and reopening the file.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	db, err := sqliteimages.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	imagestestGame(t, db.Games())
	r, err := db.Add(ctx, imagegen.Record{Session: "g", Branch: "main", Turn: 2, Prompt: "p", Provider: "gemini", Model: "imagen", Mode: imagegen.ModeSpecific}, imagestest.PNG("lasting"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqliteimages.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, png, err := db.Get(ctx, "g", r.ID)
	if err != nil || got.Turn != 2 || got.Mode != imagegen.ModeSpecific || !bytes.Equal(png, imagestest.PNG("lasting")) {
		t.Fatalf("after reopening: %+v %v", got, err)
	}
}
