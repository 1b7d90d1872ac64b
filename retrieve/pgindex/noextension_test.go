package pgindex_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/indextest"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
)

// TestConformanceWithoutExtension runs the suite where pgvector cannot be
// had, found out rather than told: a database of its own, without the
// extension, and a role that may not create it (as on a managed server
// whose administrator has not). The index must detect it, say so at
// start-up, and pass every test on the exact scan.
func TestConformanceWithoutExtension(t *testing.T) {
	base := pgtest.Skip(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var b [5]byte
	rand.Read(b[:])
	name := "novec_" + hex.EncodeToString(b[:])
	for _, q := range []string{
		`CREATE ROLE ` + name + ` LOGIN PASSWORD 'novec'`,
		`CREATE DATABASE ` + name,
		`REVOKE CREATE ON DATABASE ` + name + ` FROM PUBLIC`,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx)
		for _, q := range []string{`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`, `DROP ROLE IF EXISTS ` + name} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dbAdmin := u.String()                    // the server's superuser, in the new database
	u.User = url.UserPassword(name, "novec") // the tests connect as the role

	adm, err := pgx.Connect(ctx, dbAdmin)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close(ctx)
	var mu sync.Mutex
	n := 0
	// schema gives each test a schema the role owns in the new database.
	schema := func(t *testing.T) string {
		mu.Lock()
		n++
		s := name + "_" + hex.EncodeToString([]byte{byte(n >> 8), byte(n)})
		_, err := adm.Exec(ctx, `CREATE SCHEMA `+s+` AUTHORIZATION `+name)
		mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("search_path", s)
		uu := *u
		uu.RawQuery = q.Encode()
		return uu.String()
	}

	var logs bytes.Buffer
	var logMu sync.Mutex
	indextest.Run(t, func(t *testing.T, o indextest.Options) retrieve.Index {
		opts := []pgindex.Option{}
		var buf bytes.Buffer
		if o.Embedder != nil {
			opts = append(opts, pgindex.WithEmbedder(o.Embedder))
		}
		opts = append(opts, pgindex.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
		ix, err := pgindex.Open(ctx, schema(t), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		logMu.Lock()
		logs.Write(buf.Bytes())
		logMu.Unlock()
		if o.Embedder != nil {
			if ix.Mode() != pgindex.VectorsExact {
				t.Fatalf("vector mode %s without the extension, want %s", ix.Mode(), pgindex.VectorsExact)
			}
			if !strings.Contains(buf.String(), "mode=exact") {
				t.Errorf("start-up does not report the exact scan:\n%s", buf.String())
			}
		}
		return ix
	})
	var ext int
	if err := adm.QueryRow(ctx, `SELECT count(*) FROM pg_extension WHERE extname = 'vector'`).Scan(&ext); err != nil || ext != 0 {
		t.Errorf("pgvector was created in the database (%d, %v): the suite did not run without it", ext, err)
	}
	if !strings.Contains(logs.String(), "could not be created") && !strings.Contains(logs.String(), "pgvector is not installed") {
		t.Errorf("no start-up line said pgvector was missing:\n%.2000s", logs.String())
	}
	t.Logf("start-up said: %s", firstLine(logs.String(), "vector search"))
}

func firstLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
