package sqliteimages_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-rpg/hearth/store"
)

func imagestestGame(t *testing.T, s store.Store) {
	t.Helper()
	if err := s.CreateSession(context.Background(), &store.Session{ID: "g", Name: "G", Campaign: "test", Seed: 1},
		store.Snapshot{State: json.RawMessage(`{"turn":0}`)}); err != nil {
		t.Fatal(err)
	}
}
