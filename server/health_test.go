package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/hearth-rpg/hearth/database"
)

// /health names the database's backend and answers 503 once the
// database stops answering.
func TestHealthReportsTheDatabase(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	db, err := database.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.opts.Database = db
	f.serve()
	resp := f.do("GET", "/health", "", nil)
	h := decode[map[string]any](t, resp)
	if d, _ := h["database"].(map[string]any); resp.StatusCode != http.StatusOK || h["status"] != "healthy" ||
		d["backend"] != database.SQLite || d["ok"] != true {
		t.Errorf("health %d %v", resp.StatusCode, h)
	}
	db.Close()
	resp = f.do("GET", "/health", "", nil)
	h = decode[map[string]any](t, resp)
	if d, _ := h["database"].(map[string]any); resp.StatusCode != http.StatusServiceUnavailable || h["status"] != "unhealthy" ||
		d["ok"] != false {
		t.Errorf("health with the database closed: %d %v", resp.StatusCode, h)
	}
}
