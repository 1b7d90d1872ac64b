package pgkeys_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/pgkeys"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// TestKeptKeyFollowsOtherWriters changes a key or its user behind a store
// that has read it, from another connection, from another process and
// from psql, and checks that the store's next lookup returns the change:
// the kept lookup must never outlive a committed write. It also checks
// that an unchanged key is not read again, so the test would notice a
// store that keeps nothing.
func TestKeptKeyFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	created := time.Unix(1_700_000_000, 0)
	type want struct {
		err     error
		role    access.Level
		revoked bool
		hash    string
		check   bool
	}
	const other = `INSERT INTO auth_users VALUES ('u2', 'bo', 1, 0); INSERT INTO auth_keys (id, user_id, hash, created_at) VALUES ('k2', 'u2', 'x', 0);`
	cases := []struct {
		name string
		// before is a write of the same kind, before the first lookup:
		// a generation that came back to a value it had would let the
		// case's write pass unnoticed.
		before string
		// sql is run by another writer after the first lookup; {schema}
		// is the test's schema.
		sql  string
		want want
	}{
		{"revoked", `UPDATE auth_keys SET revoked_at = NULL`, `UPDATE auth_keys SET revoked_at = 1 WHERE id = 'kkkkkkkkkkkkkkkk'`, want{role: access.GM, revoked: true, hash: "h1"}},
		{"removed", other + `DELETE FROM auth_keys WHERE id = 'k2'`, `DELETE FROM auth_keys WHERE id = 'kkkkkkkkkkkkkkkk'`, want{err: auth.ErrNoKey}},
		{"user removed", other + `DELETE FROM auth_users WHERE id = 'u2'`, `DELETE FROM auth_users`, want{err: auth.ErrNoKey}},
		{"keys truncated", other + `DELETE FROM auth_keys WHERE id = 'k2'`, `TRUNCATE auth_keys CASCADE`, want{err: auth.ErrNoKey}},
		{"role lowered", `UPDATE auth_users SET role = role`, `UPDATE auth_users SET role = 1`, want{role: access.Player, hash: "h1"}},
		{"hash replaced", `UPDATE auth_keys SET hash = hash`, `UPDATE auth_keys SET hash = 'h2'`, want{role: access.GM, hash: "h2"}},
		{"check bits filled", `UPDATE auth_keys SET check_bits = NULL`, `UPDATE auth_keys SET check_bits = 7`, want{role: access.GM, hash: "h1", check: true}},
		{"rolled back", `UPDATE auth_keys SET revoked_at = NULL`, `BEGIN; UPDATE auth_keys SET revoked_at = 1; ROLLBACK`, want{role: access.GM, hash: "h1"}},
		// A writer whose search_path does not name the schema: the
		// triggers must move the stamp beside the table written.
		{"revoked by qualified name", `UPDATE auth_keys SET revoked_at = NULL`, `SET search_path TO public; UPDATE {schema}.auth_keys SET revoked_at = 1`, want{role: access.GM, revoked: true, hash: "h1"}},
	}
	hows := []string{"connection", "process"}
	if _, err := exec.LookPath("psql"); err == nil {
		hows = append(hows, "psql")
	}
	for _, how := range hows {
		for _, c := range cases {
			t.Run(how+"/"+c.name, func(t *testing.T) {
				u := pgtest.URL(t)
				s, err := pgkeys.Open(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if err := s.AddUser(ctx, auth.User{ID: "u1", Name: "ann", Role: access.GM}, created); err != nil {
					t.Fatal(err)
				}
				if err := s.AddKey(ctx, auth.StoredKey{ID: "kkkkkkkkkkkkkkkk", UserID: "u1", Hash: "h1", Created: created}); err != nil {
					t.Fatal(err)
				}
				execRaw(t, u, c.before)
				for range 2 {
					if _, _, err := s.Key(ctx, "kkkkkkkkkkkkkkkk"); err != nil {
						t.Fatal(err)
					}
				}
				if n := pgkeys.Reads(s); n != 1 {
					t.Fatalf("an unchanged key's row was read %d times in two lookups, want 1", n)
				}

				stmts := strings.ReplaceAll(c.sql, "{schema}", schemaOf(t, u))
				switch how {
				case "process":
					cmd := exec.Command(os.Args[0], "-test.run", "^TestWriterProcess$")
					cmd.Env = append(os.Environ(), "HEARTH_PGKEYS_URL="+u, "HEARTH_PGKEYS_SQL="+stmts)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("writer process: %v\n%s", err, out)
					}
				case "psql":
					cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", stmts, os.Getenv(pgtest.Env))
					cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+schemaOf(t, u)+",public")
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("psql: %v\n%s", err, out)
					}
				default:
					execRaw(t, u, stmts)
				}

				k, usr, err := s.Key(ctx, "kkkkkkkkkkkkkkkk")
				if c.want.err != nil {
					if !errors.Is(err, c.want.err) {
						t.Fatalf("after %q: err = %v, want %v", stmts, err, c.want.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if usr.Role != c.want.role || !k.Revoked.IsZero() != c.want.revoked || k.Hash != c.want.hash || k.HasCheck != c.want.check {
					t.Errorf("after %q: role %v, revoked %v, hash %q, check bits %v; want %+v",
						stmts, usr.Role, k.Revoked, k.Hash, k.HasCheck, c.want)
				}
			})
		}
	}
}

// TestWriterProcess is the other process of TestKeptKeyFollowsOtherWriters.
func TestWriterProcess(t *testing.T) {
	u := os.Getenv("HEARTH_PGKEYS_URL")
	if u == "" {
		t.Skip("run by TestKeptKeyFollowsOtherWriters")
	}
	execRaw(t, u, os.Getenv("HEARTH_PGKEYS_SQL"))
}

// execRaw runs stmts on a connection of its own, as one simple-protocol
// string (BEGIN and ROLLBACK included).
func execRaw(t *testing.T, u, stmts string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmts); err != nil {
		t.Fatalf("%s: %v", stmts, err)
	}
}

// schemaOf is the test's own schema, first on u's search_path.
func schemaOf(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(p.Query().Get("search_path"), ",")[0]
}

// TestLastUseKeepsKey checks that recording when keys were used, once a
// minute, does not make every server read its keys again.
func TestLastUseKeepsKey(t *testing.T) {
	ctx := context.Background()
	s, err := pgkeys.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Unix(1_700_000_000, 0)
	if err := s.AddUser(ctx, auth.User{ID: "u1", Name: "ann", Role: access.GM}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.AddKey(ctx, auth.StoredKey{ID: "kkkkkkkkkkkkkkkk", UserID: "u1", Hash: "h1", Created: now}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Key(ctx, "kkkkkkkkkkkkkkkk"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordUse(ctx, map[string]time.Time{"kkkkkkkkkkkkkkkk": now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Key(ctx, "kkkkkkkkkkkkkkkk"); err != nil {
		t.Fatal(err)
	}
	if n := pgkeys.Reads(s); n != 1 {
		t.Errorf("the key's row was read %d times, want 1: a last-use time changed the generation", n)
	}
}
