package sqlitecharacters_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/chargen/charactertest"
	"github.com/hearth-rpg/hearth/chargen/sqlitecharacters"
)

func TestConformance(t *testing.T) {
	charactertest.Run(t, func(t *testing.T) chargen.Store {
		db, err := sqlitecharacters.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

// The library survives closing and reopening its file.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	db, err := sqlitecharacters.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := db.Create(ctx, "alice", charactertest.Character(t, "Lasting"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlitecharacters.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Get(ctx, chargen.Viewer{UserID: "alice"}, saved.ID)
	if err != nil || got.Character.Name != "Lasting" || got.Character.MaxHP != 12 {
		t.Fatalf("after reopening: %+v %v", got, err)
	}
}
