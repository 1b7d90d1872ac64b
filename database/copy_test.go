package database

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// TestCopyCoversEverySchemaTable compares Copy's table list with the
// tables the migrations make on each backend: a table or column a new
// migration adds, and Copy does not move, fails here rather than being
// lost in a copy.
func TestCopyCoversEverySchemaTable(t *testing.T) {
	ctx := context.Background()
	specs := map[string]*table{}
	for _, tb := range tables() {
		specs[tb.name] = tb
	}
	check := func(t *testing.T, backend string, cols map[string][]string, derived func(table, col string) bool) {
		t.Helper()
		for name, have := range cols {
			tb := specs[name]
			if tb == nil {
				if !derived(name, "") {
					t.Errorf("%s: table %s is not copied: add it to tables() in database/tables.go", backend, name)
				}
				continue
			}
			var want []string
			for _, c := range tb.cols {
				want = append(want, map[bool]string{true: c.pg, false: c.sqlite}[backend == Postgres])
			}
			for _, c := range have {
				if !slices.Contains(want, c) && !derived(name, c) {
					t.Errorf("%s: column %s.%s is not copied", backend, name, c)
				}
			}
			for _, c := range want {
				if !slices.Contains(have, c) {
					t.Errorf("%s: column %s.%s is copied but not in the schema", backend, name, c)
				}
			}
		}
		for name := range specs {
			if _, ok := cols[name]; !ok {
				t.Errorf("%s: table %s is copied but not in the schema", backend, name)
			}
		}
	}

	t.Run("sqlite", func(t *testing.T) {
		db, err := Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		r := db.Handle().Reader()
		rows, err := r.QueryContext(ctx, `SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p
			WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols := map[string][]string{}
		for rows.Next() {
			var tb, c string
			rows.Scan(&tb, &c)
			cols[tb] = append(cols[tb], c)
		}
		check(t, SQLite, cols, func(tb, _ string) bool { return derivedSQLite(tb) })
	})

	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		db, err := Open(ctx, t.TempDir(), WithURL(url))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols := map[string][]string{}
		for rows.Next() {
			var tb, c string
			rows.Scan(&tb, &c)
			cols[tb] = append(cols[tb], c)
		}
		// Derived on PostgreSQL: the schema table, the chunks' tsvector
		// (computed by the copy's INSERT), the images' generated search
		// column, the branches' creation sequence and the memory events'
		// numbers per playthrough (a trigger numbers them as they are
		// inserted, in id order), and what triggers write: the keys'
		// generation and the lore index's change log and its generations'
		// stamps. The servers' coordination tables
		// (leases, fanned-out events, forwarded calls) live only while
		// servers run and are not data.
		check(t, Postgres, cols, func(tb, c string) bool {
			return tb == "hearth_schema" || strings.HasPrefix(tb, "live_") || tb == "lore_chunks" && c == "tsv" || tb == "library_images" && c == "search" || tb == "branches" && c == "seq" ||
				tb == "narrative_events" && c == "seq" || tb == "narrative_event_seq" || tb == "auth_generation" || tb == "lore_changes" || tb == "lore_stamps"
		})
	})
}

func TestParseEndpoint(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		in, want, err string
	}{
		{"sqlite:" + dir, "sqlite:" + filepath.Join(dir, "hearth.db"), ""},
		{"sqlite:" + filepath.Join(dir, "new"), "sqlite:" + filepath.Join(dir, "new", "hearth.db"), ""},
		{"sqlite:" + filepath.Join(dir, "x.db"), "sqlite:" + filepath.Join(dir, "x.db"), ""},
		{"postgres://u:secret@h:5432/db", "postgres://u:***@h:5432/db", ""},
		{"sqlite:", "", "needs a path"},
		{"mysql://u:secret@h/db", "", "neither"},
	} {
		e, err := ParseEndpoint(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: error %v, want one saying %q without the password", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || e.String() != tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.in, e, err, tt.want)
		}
	}
}

// TestMigrateAndStatus: a new SQLite file has every migration pending,
// Migrate applies them all and says which, and then none is pending.
func TestMigrateAndStatus(t *testing.T) {
	ctx := context.Background()
	e := Endpoint{SQLite: filepath.Join(t.TempDir(), "d", "hearth.db")}
	st, err := ReadStatus(ctx, e)
	if err != nil || st.Exists {
		t.Fatalf("status of a missing file: %+v %v", st, err)
	}
	before, after, err := Migrate(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range after.Components {
		b := before.Components[i]
		if len(b.Pending) == 0 || b.Applied != 0 || len(c.Pending) != 0 || c.Applied != c.Latest || c.Latest == 0 {
			t.Errorf("%s: before %+v, after %+v", c.Name, b, c)
		}
	}
	for _, tb := range after.Tables {
		if tb.Rows != 0 {
			t.Errorf("%s: %d rows in a new database", tb.Table, tb.Rows)
		}
	}
}

// FuzzParseEndpoint: any text is parsed or refused without a panic, and
// neither the endpoint's name nor the error shows a URL's password.
func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{"sqlite:/tmp/x", "sqlite:a.db", "postgres://u:pw@h/db", "postgresql://u:p@w@h:1/db?x=y", "sqlite:", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const pw = "Pw0rdQ"
		in := strings.Replace(s, "PW", pw, 1)
		e, err := ParseEndpoint(in)
		if strings.HasPrefix(in, "postgres") && strings.Contains(in, ":"+pw+"@") {
			if err != nil && strings.Contains(err.Error(), pw) {
				t.Fatalf("%q: the error shows the password: %v", in, err)
			}
			if err == nil && strings.Contains(e.String(), ":"+pw+"@") {
				t.Fatalf("%q: the name shows the password: %s", in, e)
			}
		}
	})
}
