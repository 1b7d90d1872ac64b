// Package pgtest gives each PostgreSQL test a schema of its own in the
// database named by HEARTH_TEST_POSTGRES_URL, so tests run in parallel
// against one server and leave nothing behind.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Env names the database the tests use.
const Env = "HEARTH_TEST_POSTGRES_URL"

// Skip ends the test with a message when no test database is configured.
func Skip(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skip(Env + " is unset: skipping the PostgreSQL tests (run them with scripts/postgres-test.sh run go test ./...)")
	}
	return u
}

// URL creates an empty schema in the test database and returns a URL
// whose connections work in it (search_path); the schema is dropped when
// the test ends. Without HEARTH_TEST_POSTGRES_URL the test is skipped.
func URL(t testing.TB) string {
	t.Helper()
	base := Skip(t)
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	schema := "test_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", Env, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	q := u.Query()
	// public stays on the path for extensions (pgvector) installed there.
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}
