package database_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/imagestest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/store"
)

// A database.url Open cannot serve fails with what to do, never the
// password, and nothing falls back to SQLite in the data directory.
func TestOpenPostgresErrors(t *testing.T) {
	const pw = "pg-pw-3f8e"
	tests := []struct {
		name, url string
		code      hearth.Code
		says      []string
	}{
		{"unreachable", "postgres://hearth:" + pw + "@127.0.0.1:1/hearth?connect_timeout=5", hearth.Unavailable,
			[]string{"cannot reach PostgreSQL at 127.0.0.1:1", "is it running? check database.url"}},
		{"postgresql scheme", "postgresql://hearth@127.0.0.1:1/hearth?password=" + pw + "&connect_timeout=5", hearth.Unavailable,
			[]string{"cannot reach PostgreSQL at 127.0.0.1:1"}},
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
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
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

// Open on a postgres:// URL serves every store from one pool, leaves the
// data directory empty, and what it stored is there after reopening.
func TestOpenPostgres(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	dir := t.TempDir()
	open := func() *database.DB {
		t.Helper()
		db, err := database.Open(ctx, dir, database.WithURL(url))
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	if db.Backend() != database.Postgres || db.Path() != "" || db.Handle() != nil || !strings.Contains(db.Where(), "127.0.0.1") {
		t.Errorf("backend %q, path %q, where %q", db.Backend(), db.Path(), db.Where())
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Games.CreateSession(ctx, &store.Session{ID: "g1", Name: "G", Campaign: "c", Seed: 3},
		store.Snapshot{State: json.RawMessage(`{"turn":0}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memories.Remember(ctx, narrative.Event{Playthrough: "g1", Summary: "The mayor lied about the well.", Significance: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memories.ChangeReputation(ctx, "g1", narrative.Change{Subject: "guard", Delta: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Keys.AddUser(ctx, "morgan", access.GM); err != nil {
		t.Fatal(err)
	}
	d := library.Document{ID: "d1", Title: "Wells", Format: "md", Source: "wells.md", Hash: "h1", Access: access.Player}
	if err := db.Library.Put(ctx, d, []library.Page{{Number: 1, Text: "Wells run deep."}}, nil,
		[]chunk.Chunk{{Page: 1, Text: "The old wells of Ost run deep under the market.", SourceType: chunk.Prose}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Images.Add(ctx, imagegen.Record{Session: "g1", Branch: "main", Turn: 1, Prompt: "p", Provider: "x", Model: "m",
		Mode: imagegen.ModeCurrent}, imagestest.PNG("well")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the data directory holds %d entries on PostgreSQL", len(es))
	}

	db = open()
	defer db.Close()
	if s, err := db.Games.Session(ctx, "g1"); err != nil || s.Name != "G" {
		t.Errorf("session after reopening: %+v, %v", s, err)
	}
	if ms, err := db.Memories.Recall(ctx, narrative.Query{Playthrough: "g1", Text: "mayor well", Limit: 5}); err != nil || len(ms) != 1 {
		t.Errorf("recall after reopening: %d, %v", len(ms), err)
	}
	if r, err := db.Memories.Reputation(ctx, "g1", "guard", 0); err != nil || r.Value != 7 {
		t.Errorf("reputation after reopening: %+v, %v", r, err)
	}
	if us, err := db.Keys.Users(ctx); err != nil || len(us) != 1 {
		t.Errorf("users after reopening: %+v, %v", us, err)
	}
	res, err := db.Index.Search(ctx, retrieve.Query{Text: "wells market", Role: access.Player, Limit: 5})
	if err != nil || len(res.Passages) == 0 {
		t.Errorf("document search after reopening: %+v, %v", res.Passages, err)
	}
	if ims, err := db.Images.List(ctx, "g1"); err != nil || len(ims) != 1 {
		t.Errorf("images after reopening: %+v, %v", ims, err)
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
