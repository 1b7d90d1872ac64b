package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/server"
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

// On PostgreSQL, /health and the metrics show the connection pool; on
// SQLite, which has none, neither does.
func TestHealthShowsThePool(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{database.SQLite, database.Postgres} {
		t.Run(backend, func(t *testing.T) {
			var opts []database.Option
			if backend == database.Postgres {
				opts = append(opts, database.WithURL(pgtest.URL(t)))
			}
			db, err := database.Open(ctx, t.TempDir(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			f := newFixture(t, fixtureOpts{})
			m := server.NewMetrics(nil, nil)
			m.ObserveDatabase(db)
			f.opts.Database, f.opts.Metrics = db, m
			f.serve()
			resp := f.do("GET", "/health", "", nil)
			h := decode[map[string]any](t, resp)
			d, _ := h["database"].(map[string]any)
			pool, hasPool := d["pool"].(map[string]any)
			if resp.StatusCode != http.StatusOK || d["backend"] != backend || hasPool != (backend == database.Postgres) {
				t.Fatalf("health %d %v", resp.StatusCode, h)
			}
			if hasPool {
				if n, _ := pool["max_conns"].(float64); n <= 0 {
					t.Errorf("pool: %v", pool)
				}
				if n, _ := pool["acquire_count"].(float64); n <= 0 {
					t.Errorf("pool: %v", pool)
				}
			}
			families, err := m.Registry.Gather()
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, mf := range families {
				names[mf.GetName()] = true
			}
			if !names["hearth_database_info"] || names["hearth_db_pool_max_conns"] != (backend == database.Postgres) ||
				names["hearth_db_pool_acquires_total"] != (backend == database.Postgres) {
				t.Errorf("metrics: %v", names)
			}
		})
	}
}
