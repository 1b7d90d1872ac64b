package sqliteindex

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/retrieve/bm25"
)

// FuzzTokensMatchFTS5 compares the Go tokenizer with FTS5's 'porter
// unicode61' on the same text, token for token. Outside ASCII and the
// Latin letters the corpus holds, SQLite's Unicode tables are older than
// Go's, so only text of those is compared (the lore index checks every
// row's length against FTS5 when it builds, and stands aside on a
// difference).
func FuzzTokensMatchFTS5(f *testing.F) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`,
	} {
		if _, err := db.Exec(s); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"Hit Points", "caresses ponies", "généralisation  Élan", "x-ray 5th DC15", "sky flying happily", "agreed", "Œuvre naïve café\u0301s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 2000 {
			return
		}
		for _, r := range s {
			if r >= 0x250 && r != '’' && r != '—' && r != '…' || r == 0 {
				return // beyond Latin: the tables may differ
			}
		}
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `DELETE FROM t`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO t (rowid, x) VALUES (1, ?)`, s); err != nil {
			t.Fatal(err)
		}
		rows, err := db.QueryContext(ctx, `SELECT term FROM v ORDER BY offset`)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				t.Fatal(err)
			}
			want = append(want, term)
		}
		rows.Close()
		if got := bm25.Tokens(s); !slices.Equal(got, want) {
			t.Fatalf("%q: Go %q, FTS5 %q", s, got, want)
		}
	})
}
