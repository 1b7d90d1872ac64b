package pgimages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/imagestest"
	"github.com/hearth-rpg/hearth/imagegen/pgimages"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/store"
)

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	imagestest.Run(t, func(t *testing.T) (imagegen.Store, store.Store) {
		db, err := pgimages.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		return db, db.Games()
	})
}

// Images survive closing the pool and connecting again.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	db, err := pgimages.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Games().CreateSession(ctx, &store.Session{ID: "g", Name: "G", Campaign: "test", Seed: 1},
		store.Snapshot{State: json.RawMessage(`{"turn":0}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := db.Add(ctx, imagegen.Record{Session: "g", Branch: "main", Turn: 2, Prompt: "p", Provider: "gemini", Model: "imagen",
		Mode: imagegen.ModeSpecific}, imagestest.PNG("lasting"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = pgimages.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, png, err := db.Get(ctx, "g", r.ID)
	if err != nil || got != r || !bytes.Equal(png, imagestest.PNG("lasting")) {
		t.Fatalf("after reopening: %+v %v, want %+v", got, err, r)
	}
}
