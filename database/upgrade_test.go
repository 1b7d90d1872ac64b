package database_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/chargen/charactertest"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store"
)

// round1Tables are the version tables round 1 kept, one per store.
var round1Tables = []string{"schema_migrations", "narrative_schema", "lore_schema", "library_migrations", "assistant_schema", "auth_schema"}

// testdata/round1.db was written by the stores of round 1 (commit 7bfb3b2,
// testdata/mkround1.go.txt), each opening the file on its own with its own
// version table: a session with three turns, a memory event per turn, a
// lore chunk, a document, a conversation and a user.
func copyRound1(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "round1.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, database.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestUpgradeRound1InPlace(t *testing.T) {
	ctx := context.Background()
	dir := copyRound1(t)
	db, err := database.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()

	// Everything round 1 wrote is readable through the new stores.
	s, err := db.Games.Session(ctx, "round1")
	if err != nil {
		t.Fatal(err)
	}
	turns, err := db.Games.Turns(ctx, s.Branch, 1, 10)
	if err != nil || len(turns) != 3 || !strings.Contains(turns[2].Narrative, "turn 3") {
		t.Errorf("turns: %d %v", len(turns), err)
	}
	ms, err := db.Memories.Recall(ctx, narrative.Query{Playthrough: "round1", Limit: 10})
	if err != nil || len(ms) != 3 {
		t.Errorf("memories: %d %v", len(ms), err)
	}
	if cs, err := db.Index.(*sqliteindex.Index).Chunks(ctx, "core", "gates.md"); err != nil || len(cs) != 1 || !strings.Contains(cs[0].Text, "Griffon") {
		t.Errorf("lore chunks: %+v %v", cs, err)
	}
	if d, err := db.Library.Document(ctx, "doc1", access.GM); err != nil || d.Title != "Bestiary" {
		t.Errorf("document: %+v %v", d, err)
	}
	if p, err := db.Library.Get(ctx, "doc1", 1, access.Player); err != nil || !strings.Contains(p.Text, "owlbear") {
		t.Errorf("page: %+v %v", p, err)
	}
	if c, err := db.Conversations.Get(ctx, "u1", "conv_round1"); err != nil || len(c.Messages) != 1 {
		t.Errorf("conversation: %+v %v", c, err)
	}
	if us, err := db.Keys.Users(ctx); err != nil || len(us) != 1 || us[0].Name != "gm" || us[0].Role != access.GM {
		t.Errorf("users: %+v %v", us, err)
	}

	// The character library, added after round 1, shares the handle.
	saved, err := db.Characters.Create(ctx, "u1", charactertest.Character(t, "Upgraded"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := db.Characters.Get(ctx, chargen.Viewer{UserID: "u1"}, saved.ID); err != nil || c.Character.Name != "Upgraded" {
		t.Errorf("character: %+v %v", c, err)
	}

	// One version table, holding every component's versions.
	want := map[string][]int{}
	for _, m := range database.Migrations() {
		files, _ := fs.Glob(m.FS, path.Join(m.Dir, "*.sql"))
		for i := range files {
			want[m.Component] = append(want[m.Component], i+1)
		}
	}
	got := map[string][]int{}
	rows, err := db.Handle().Reader().QueryContext(ctx, `SELECT component, version FROM hearth_schema ORDER BY component, version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		var v int
		rows.Scan(&c, &v)
		got[c] = append(got[c], v)
	}
	rows.Close()
	if len(got) != len(database.Migrations()) || !mapsEqual(got, want) {
		t.Errorf("hearth_schema %v, want %v", got, want)
	}
	for _, name := range round1Tables {
		var n int
		db.Handle().Reader().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = ?`, name).Scan(&n)
		if n != 0 {
			t.Errorf("old version table %s is still there", name)
		}
	}

	// Play goes on: a new turn and its memory go in together.
	next := &store.Turn{BranchID: s.Branch, Number: 4, Actor: "pc", Input: "go", Effects: json.RawMessage(`[]`), Narrative: "On.",
		Memories: []narrative.Event{{Playthrough: "round1", Session: s.Branch, Turn: 4, Summary: "The party went on.", Significance: 3}}}
	if err := db.Games.AppendTurn(ctx, next, nil); err != nil {
		t.Fatal(err)
	}
	if ms, err := db.Memories.Recall(ctx, narrative.Query{Playthrough: "round1", Limit: 10}); err != nil || len(ms) != 4 {
		t.Errorf("memories after a new turn: %d %v", len(ms), err)
	}

	// Opening again is a no-op: same schema, same version rows.
	before := schemaOf(t, db)
	db.Close()
	db, err = database.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if after := schemaOf(t, db); !slices.Equal(before, after) {
		t.Errorf("reopening changed the schema:\n%q\n%q", before, after)
	}
}

// schemaOf lists every schema object's SQL and every version row.
func schemaOf(t *testing.T, db *database.DB) []string {
	t.Helper()
	rows, err := db.Handle().Reader().Query(`SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_schema
		UNION ALL SELECT component || ' ' || version || ' ' || applied_at FROM hearth_schema ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

func mapsEqual(a, b map[string][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
