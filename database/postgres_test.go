package database_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

// A postgres:// database.url is refused while stores are missing from
// the PostgreSQL backend, naming them, and nothing falls back to SQLite.
func TestOpenRefusesPostgresUntilEveryStoreIsPorted(t *testing.T) {
	const pw = "pg-pw-3f8e"
	tests := []struct {
		name, url string
		code      hearth.Code
		says      []string
	}{
		{"postgres", "postgres://hearth:" + pw + "@127.0.0.1:5432/hearth", hearth.Unavailable,
			[]string{"narrative memory", "the document library", "sessions and turns", "leave database.url empty"}},
		{"postgresql", "postgresql://hearth@db.lan/hearth?password=" + pw, hearth.Unavailable, []string{"the document library"}},
		{"another database", "mysql://hearth:" + pw + "@db/hearth", hearth.Invalid, []string{"postgres://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := database.Open(context.Background(), dir, database.WithURL(tt.url))
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if got := hearth.ErrorCode(err); got != tt.code {
				t.Errorf("code %v, want %v: %v", got, tt.code, err)
			}
			for _, s := range tt.says {
				if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s)) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			// The lore index is ported (retrieve/pgindex): named as such,
			// never among the missing.
			if missing, done, ok := strings.Cut(err.Error(), "ported so far"); tt.code == hearth.Unavailable &&
				(!ok || strings.Contains(missing, "lore index") || !strings.Contains(done, "the lore index")) {
				t.Errorf("the lore index is not reported as ported: %v", err)
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("the error shows the password: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, database.FileName)); !os.IsNotExist(err) {
				t.Errorf("a SQLite file was made in the data directory: %v", err)
			}
		})
	}
}

// Every ported store's migrations apply together to one PostgreSQL
// schema, and the lore index serves from that shared handle, reporting
// its vector search at start-up.
func TestPostgresMigrationsTogether(t *testing.T) {
	ctx := context.Background()
	h, err := pgdb.Open(ctx, pgtest.URL(t), pgdb.Options{Migrations: database.PostgresMigrations()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var logged bytes.Buffer
	ix, err := pgindex.New(ctx, h, pgindex.WithEmbedder(embedding.NewHashing(16)), pgindex.WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Upsert(ctx, "core", "a.md", "h", []chunk.Chunk{{Text: "The lighthouse keeper trims the wicks."}}); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Search(ctx, retrieve.Query{Text: "lighthouse keeper"})
	if err != nil || len(r.Passages) != 1 {
		t.Fatalf("search on the shared handle: %+v, %v", r.Passages, err)
	}
	if !strings.Contains(logged.String(), "lore index: vector search") || !strings.Contains(logged.String(), string(ix.Mode())) {
		t.Errorf("start-up log: %q", logged.String())
	}
}
