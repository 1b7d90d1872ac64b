package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/narrative"
)

const halberdsPDF = "../../../shared/testdata/pdf/Halberds-and-Helmets-Ref-Guide.pdf"

// TestDBCopyRoundTrip fills a data directory through the real binary and
// the stores (games with a fork and a flag, a real PDF ingested with its
// pages and images, users, keys, a browser session, scene images, memory
// with embeddings, standing, stats, a conversation, a character, lore
// vectors), copies it SQLite → PostgreSQL → SQLite with `hearth db copy`,
// and checks the result: `hearth verify` passes on every copy, `hearth db
// status` counts the same rows, and a hash over every table of the two
// SQLite files, read independently of the copy's own table list, is
// equal.
func TestDBCopyRoundTrip(t *testing.T) {
	pgURL := pgtest.URL(t)
	pdf := needFile(t, halberdsPDF)
	ctx := context.Background()
	dir := t.TempDir()

	// Games: one with a fork and a flag, one plain.
	run(t, strings.NewReader("look\n/fork side\nlook\nwait\n/flag too dark\n"), "play", "--new", "--seed", "3", "--data", dir)
	run(t, strings.NewReader("look\n"), "play", "--new", "--seed", "9", "--data", dir)
	// A real PDF: pages, images, chunks.
	if out, errOut, err := hearthCmd(t, nil, "ingest", pdf, "--data", dir, "--tags", "srd,halberds"); err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, errOut)
	}
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	if key == "" {
		t.Fatal("no key printed")
	}
	fillStores(t, ctx, dir, key)

	// SQLite → PostgreSQL → SQLite.
	back := filepath.Join(t.TempDir(), "back")
	out := run(t, nil, "db", "copy", "--from", "sqlite:"+dir, "--to", pgURL)
	if !strings.Contains(out, "content hashes match") {
		t.Fatalf("copy to PostgreSQL: %s", out)
	}
	out = run(t, nil, "db", "copy", "--from", pgURL, "--to", "sqlite:"+back)
	if !strings.Contains(out, "content hashes match") {
		t.Fatalf("copy back: %s", out)
	}

	// Every game replays identically on each copy.
	pgEnv := []string{"HEARTH__DATABASE__URL=" + pgURL}
	for name, v := range map[string]string{
		"source":     run(t, nil, "verify", "--data", dir),
		"PostgreSQL": runEnv(t, pgEnv, nil, "verify", "--data", t.TempDir()),
		"copy back":  run(t, nil, "verify", "--data", back),
	} {
		if strings.Count(v, " ok ") != 2 || strings.Contains(v, "FAIL") {
			t.Errorf("hearth verify on the %s:\n%s", name, v)
		}
	}

	// Row counts per table, as `hearth db status` reports them.
	want := statusRows(t, run(t, nil, "db", "status", "--data", dir))
	for name, got := range map[string]map[string]string{
		"PostgreSQL": statusRows(t, runEnv(t, pgEnv, nil, "db", "status", "--data", t.TempDir())),
		"copy back":  statusRows(t, run(t, nil, "db", "status", "--data", back)),
	} {
		for table, n := range want {
			if got[table] != n {
				t.Errorf("%s: %s has %s rows, want %s", name, table, got[table], n)
			}
		}
	}
	for _, table := range []string{"sessions", "branches", "turns", "turn_flags", "library_pages", "library_images", "lore_chunks",
		"lore_vectors", "scene_images", "narrative_events", "narrative_standing_history", "auth_keys", "auth_sessions",
		"assistant_conversations", "characters", "library_jobs"} {
		if want[table] == "0" || want[table] == "" {
			t.Errorf("the fixture has no rows in %s: the test would not see it lost", table)
		}
	}

	// Every table's content, read straight from the two files.
	a, b := sqliteContent(t, database.Endpoint{SQLite: filepath.Join(dir, "hearth.db")}), sqliteContent(t, database.Endpoint{SQLite: filepath.Join(back, "hearth.db")})
	for table, h := range a {
		if b[table] != h {
			t.Errorf("table %s differs after SQLite → PostgreSQL → SQLite", table)
		}
	}
	if len(a) != len(b) {
		t.Errorf("%d tables in the source, %d in the copy", len(a), len(b))
	}

	// The copy back works as a data directory: searched, and the key
	// still signs in (its hash copied as it was).
	if s := run(t, nil, "search", "halberd", "--data", back); !strings.Contains(strings.ToLower(s), "halberd") {
		t.Errorf("search on the copy:\n%s", s)
	}
	db, err := database.Open(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Keys.Authenticate(ctx, key); err != nil {
		t.Errorf("the key does not sign in on the copy: %v", err)
	}
	db.Close()

	// The target must be empty: a second copy into it is refused.
	cmd := exec.Command(hearthBin, "db", "copy", "--from", "sqlite:"+dir, "--to", "sqlite:"+back)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "is not empty") {
		t.Errorf("a copy into a full database: %v\n%s", err, errb.String())
	}
}

// fillStores writes, through the stores, what the CLI does not: scene
// images, memory, standing, stats, a conversation, a character, a browser
// session, an ingest job, and lore vectors (opened with an embedder).
func fillStores(t *testing.T, ctx context.Context, dir, key string) {
	t.Helper()
	db, err := database.Open(ctx, dir, database.WithIndexEmbedder(embedding.NewHashing(64)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	games, err := db.Games.Sessions(ctx)
	if err != nil || len(games) != 2 {
		t.Fatalf("games: %v %v", games, err)
	}
	g := games[0].ID
	var pngb bytes.Buffer
	png.Encode(&pngb, image.NewGray(image.Rect(0, 0, 3, 2)))
	for i := range 2 {
		if _, err := db.Images.Add(ctx, imagegen.Record{Session: g, Branch: "main", Turn: i + 1, Prompt: "a lighthouse <at> dusk & rain",
			Provider: "test", Model: "m", Mode: imagegen.ModeCurrent, By: "gm"}, pngb.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
	if _, err := db.Memories.Remember(ctx,
		narrative.Event{Playthrough: g, Session: "s1", Turn: 1, At: 90, Wall: wall, Summary: "Owen lit the lamp.",
			Characters: []string{"Owen", "Mara"}, Location: "Gull Rock", Action: "talk", Significance: 6, Tags: []string{"lamp"},
			Embedding: []float32{0.1, -0.25, 1e-7, 3.4028235e38}},
		narrative.Event{Playthrough: g, Turn: 2, At: 95, Wall: wall, Summary: "No tags, no vector.", Significance: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memories.ChangeReputation(ctx, g, narrative.Change{Subject: "smugglers", At: 100, Wall: wall, Turn: 2, Delta: 1.25, Reason: "kept quiet"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memories.ChangePerception(ctx, g, narrative.Change{Subject: "owen", At: 100, Wall: wall, Delta: -0.5, Reason: "rude"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memories.SetStats(ctx, g, []narrative.StatDef{{ID: "health", Default: 10, Min: 0, Max: 20}}, map[string]int{"health": -3}); err != nil {
		t.Fatal(err)
	}
	if err := db.Conversations.Save(ctx, assistant.Conversation{ID: "conv1", UserID: "u1", Created: wall, Updated: wall.Add(time.Second),
		Messages: []llm.Message{{Role: llm.User, Content: "hello ünïcode"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Characters.Create(ctx, "u1", &chargen.Character{Choices: chargen.Choices{Name: "Brin", Race: "human", Class: "fighter"}}); err != nil {
		t.Fatal(err)
	}
	ss, err := db.Keys.Sessions(auth.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.SignIn(ctx, key, "gm"); err != nil {
		t.Fatal(err)
	}
	fin := wall.Add(90 * time.Second)
	for _, j := range []library.Job{
		{ID: "job1", File: "notes.md", Tags: []string{"notes"}, Access: access.GM, Hash: "abc", DocumentID: "doc1",
			Status: library.JobDone, Started: wall, Finished: &fin},
		{ID: "job2", File: "later.pdf", Access: access.Player, Hash: "def", DocumentID: "doc2", Status: library.JobQueued, Started: fin},
	} {
		if err := db.Library.SaveJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
}

// statusRows reads the row counts of `hearth db status`.
func statusRows(t *testing.T, out string) map[string]string {
	t.Helper()
	_, rows, ok := strings.Cut(out, "\nrows\n")
	if !ok {
		t.Fatalf("no rows in the status:\n%s", out)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(rows), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 {
			m[f[0]] = f[1]
		}
	}
	if len(m) < 20 {
		t.Fatalf("status lists %d tables:\n%s", len(m), out)
	}
	return m
}

// sqliteContent hashes every table of a SQLite file, with each value's
// type, in rowid order (primary key order for WITHOUT ROWID tables): the
// tables are found in the file itself, so a table or column the copy
// forgot shows. Only what the database derives itself is left out: the
// full-text tables, the change logs, SQLite's own tables, the index's
// generation counter and the migrations' times.
func sqliteContent(t *testing.T, e database.Endpoint) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.SQLite+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		// Derived: the lore index's change logs (each entry with a
		// random stamp), and the keys' generation (a new random value
		// with each write of a user or key, the copy's own included).
		if strings.HasPrefix(n, "sqlite_") || strings.Contains(n, "_fts") || n == "lore_vector_log" || n == "lore_chunk_log" || n == "auth_generation" {
			continue
		}
		names = append(names, n)
	}
	rows.Close()
	out := map[string]string{}
	for _, n := range names {
		var cols []string
		crows, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, n)
		if err != nil {
			t.Fatal(err)
		}
		for crows.Next() {
			var c string
			crows.Scan(&c)
			if n == "hearth_schema" && c == "applied_at" {
				continue
			}
			cols = append(cols, c)
		}
		crows.Close()
		sel := make([]string, 0, 2*len(cols))
		for _, c := range cols {
			sel = append(sel, "typeof("+c+")", c)
		}
		cond := ""
		if n == "lore_meta" {
			cond = " WHERE key <> 'generation'"
		}
		order := " ORDER BY rowid"
		var withoutRowid int
		db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'`, n).Scan(&withoutRowid)
		if withoutRowid > 0 {
			var idx []string
			for i := range cols {
				idx = append(idx, fmt.Sprint(2*i+2))
			}
			order = " ORDER BY " + strings.Join(idx, ", ")
		}
		r, err := db.Query(`SELECT ` + strings.Join(sel, ", ") + ` FROM ` + n + cond + order)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		h := sha256.New()
		vals := make([]any, len(sel))
		ptrs := make([]any, len(sel))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		rowsN := 0
		for r.Next() {
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			rowsN++
			for _, v := range vals {
				fmt.Fprintf(h, "%T:%q|", v, fmt.Sprint(v))
			}
			h.Write([]byte{'\n'})
		}
		r.Close()
		out[n] = fmt.Sprintf("%d rows %s", rowsN, hex.EncodeToString(h.Sum(nil)))
	}
	if !slices.Contains(names, "lore_keys") || len(out) < 25 {
		t.Fatalf("tables found: %v", names)
	}
	return out
}

// TestDBHelp: every db command explains itself.
func TestDBHelp(t *testing.T) {
	for args, want := range map[string]string{
		"db --help":         "hearth db copy",
		"db status --help":  "pending migrations",
		"db migrate --help": "newer",
		"db copy --help":    "must be empty",
	} {
		if out := run(t, nil, strings.Fields(args)...); !strings.Contains(out, want) {
			t.Errorf("hearth %s lacks %q:\n%s", args, want, out)
		}
	}
	cmd := exec.Command(hearthBin, "db", "copy", "--from", "mysql://x")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "--to") {
		t.Errorf("db copy without --to: %v %s", err, errb.String())
	}
}
