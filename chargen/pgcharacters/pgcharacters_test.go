package pgcharacters_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/chargen/charactertest"
	"github.com/hearth-rpg/hearth/chargen/pgcharacters"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	charactertest.Run(t, func(t *testing.T) chargen.Store {
		db, err := pgcharacters.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
