package sqlitekeys_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
)

// TestKeptKeyFollowsOtherWriters changes a key or its user behind a store
// that has read it, from another connection (raw SQL, as the sqlite3
// shell would) and from another process, and checks that the store's next
// lookup returns the change: the kept lookup must never outlive a write.
// It also checks that an unchanged key is not read again, so the test
// would notice a store that keeps nothing.
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
		sql    string // run by another writer after the first lookup
		want   want
	}{
		{"revoked", `UPDATE auth_keys SET revoked_at = NULL`, `UPDATE auth_keys SET revoked_at = 1 WHERE id = 'kkkkkkkkkkkkkkkk'`, want{role: access.GM, revoked: true, hash: "h1"}},
		{"removed", other + `DELETE FROM auth_keys WHERE id = 'k2'`, `DELETE FROM auth_keys WHERE id = 'kkkkkkkkkkkkkkkk'`, want{err: auth.ErrNoKey}},
		{"user removed", other + `DELETE FROM auth_users WHERE id = 'u2'`, `DELETE FROM auth_users`, want{err: auth.ErrNoKey}},
		{"role lowered", `UPDATE auth_users SET role = role`, `UPDATE auth_users SET role = 1`, want{role: access.Player, hash: "h1"}},
		{"hash replaced", `UPDATE auth_keys SET hash = hash`, `UPDATE auth_keys SET hash = 'h2'`, want{role: access.GM, hash: "h2"}},
		{"check bits filled", `UPDATE auth_keys SET check_bits = NULL`, `UPDATE auth_keys SET check_bits = 7`, want{role: access.GM, hash: "h1", check: true}},
		{"rolled back", `UPDATE auth_keys SET revoked_at = NULL`, `BEGIN; UPDATE auth_keys SET revoked_at = 1; ROLLBACK`, want{role: access.GM, hash: "h1"}},
	}
	for _, how := range []string{"connection", "process"} {
		for _, c := range cases {
			t.Run(how+"/"+c.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "hearth.db")
				s, err := sqlitekeys.Open(ctx, path)
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
				execRaw(t, path, c.before)
				for range 2 {
					if _, _, err := s.Key(ctx, "kkkkkkkkkkkkkkkk"); err != nil {
						t.Fatal(err)
					}
				}
				if n := sqlitekeys.Reads(s); n != 1 {
					t.Fatalf("an unchanged key's row was read %d times in two lookups, want 1", n)
				}

				if how == "process" {
					cmd := exec.Command(os.Args[0], "-test.run", "^TestWriterProcess$")
					cmd.Env = append(os.Environ(), "HEARTH_SQLITEKEYS_DB="+path, "HEARTH_SQLITEKEYS_SQL="+c.sql)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("writer process: %v\n%s", err, out)
					}
				} else {
					execRaw(t, path, c.sql)
				}

				k, u, err := s.Key(ctx, "kkkkkkkkkkkkkkkk")
				if c.want.err != nil {
					if !errors.Is(err, c.want.err) {
						t.Fatalf("after %q: err = %v, want %v", c.sql, err, c.want.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if u.Role != c.want.role || !k.Revoked.IsZero() != c.want.revoked || k.Hash != c.want.hash || k.HasCheck != c.want.check {
					t.Errorf("after %q: role %v, revoked %v, hash %q, check bits %v; want %+v",
						c.sql, u.Role, k.Revoked, k.Hash, k.HasCheck, c.want)
				}
			})
		}
	}
}

// TestWriterProcess is the other process of TestKeptKeyFollowsOtherWriters.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv("HEARTH_SQLITEKEYS_DB")
	if path == "" {
		t.Skip("run by TestKeptKeyFollowsOtherWriters")
	}
	execRaw(t, path, os.Getenv("HEARTH_SQLITEKEYS_SQL"))
}

func execRaw(t *testing.T, path, stmts string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // BEGIN and ROLLBACK on one connection
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}

// TestLastUseKeepsKey checks that recording when keys were used, once a
// minute, does not make every server read its keys again.
func TestLastUseKeepsKey(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitekeys.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"))
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
	if n := sqlitekeys.Reads(s); n != 1 {
		t.Errorf("the key's row was read %d times, want 1: a last-use time changed the generation", n)
	}
}

// TestKeyReadsConcurrentlyAndClose checks the readers Key's reads run on:
// many requests at once each get their own key, and after Close a lookup
// fails with an error (it neither hangs nor panics) and no reader is left.
func TestKeyReadsConcurrentlyAndClose(t *testing.T) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	s, err := sqlitekeys.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	const users = 8
	for i := range users {
		id := fmt.Sprintf("u%d", i)
		if err := s.AddUser(ctx, auth.User{ID: id, Name: "user" + id, Role: access.Player}, now); err != nil {
			t.Fatal(err)
		}
		if err := s.AddKey(ctx, auth.StoredKey{ID: fmt.Sprintf("key%013d", i), UserID: id, Hash: "h" + id, Created: now}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for j := range 50 {
				i := (g + j) % users
				k, u, err := s.Key(ctx, fmt.Sprintf("key%013d", i))
				if err != nil {
					t.Error(err)
					return
				}
				if want := fmt.Sprintf("u%d", i); u.ID != want || k.UserID != want || k.Hash != "h"+want {
					t.Errorf("key %d read as user %s, key %+v", i, u.ID, k)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Key(ctx, "key0000000000000"); err == nil {
		t.Error("Key after Close: no error")
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before Open", n, before)
	}
}
