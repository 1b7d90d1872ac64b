package sqlitekeys_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
)

var cheap = auth.WithParams(authtest.Cheap)

func TestConformance(t *testing.T) {
	authtest.Run(t, func(t *testing.T) auth.Store {
		s, err := sqlitekeys.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSessionConformance(t *testing.T) {
	authtest.RunSessions(t, func(t *testing.T) authtest.SessionBackend {
		s, err := sqlitekeys.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func open(t testing.TB, path string, opts ...auth.Option) *auth.Keyring {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "hearth.db")
	}
	kr, err := sqlitekeys.OpenKeyring(context.Background(), path, append([]auth.Option{cheap}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	return kr
}

// userWithKey adds a user and issues them a key.
func userWithKey(t testing.TB, kr *auth.Keyring, name string, role access.Level) (string, auth.KeyInfo) {
	t.Helper()
	ctx := context.Background()
	if _, err := kr.AddUser(ctx, name, role); err != nil {
		t.Fatal(err)
	}
	key, info, err := kr.IssueKey(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return key, info
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestHashIsNotKey reads the database back: the key is stored only as an
// argon2id hash with its parameters, and neither the key nor its secret is
// anywhere in the files.
func TestHashIsNotKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.db")
	kr, err := sqlitekeys.OpenKeyring(ctx, path) // the default, real cost
	if err != nil {
		t.Fatal(err)
	}
	key, info := userWithKey(t, kr, "alice", access.GM)
	if _, err := kr.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := kr.Close(); err != nil {
		t.Fatal(err)
	}
	secret := key[strings.LastIndex(key, "_")+1:]

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var hash string
	err = db.QueryRow(`SELECT hash FROM auth_keys WHERE id = ?`, info.ID).Scan(&hash)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=65536,t=3,p=4$") || strings.Contains(hash, secret) {
		t.Errorf("stored hash %q", hash)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte(info.ID)) {
		t.Fatal("the key id is not in the database files: the test reads the wrong files")
	}
	for _, s := range []string{key, secret, secret[:16]} {
		if bytes.Contains(all, []byte(s)) {
			t.Errorf("%q is in the database files", s)
		}
	}
}

// TestLastUsed checks that last use is visible at once but written to the
// database only in batches (here on Close), never once per request.
func TestLastUsed(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	path := filepath.Join(t.TempDir(), "hearth.db")
	kr, err := sqlitekeys.OpenKeyring(ctx, path, cheap, auth.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	key, info := userWithKey(t, kr, "alice", access.GM)
	if ks, _ := kr.Keys(ctx, "alice"); !ks[0].LastUsed.IsZero() || !ks[0].Created.Equal(clk.Now()) {
		t.Fatalf("new key: %+v", ks[0])
	}
	for range 3 {
		clk.Add(time.Second)
		if _, err := kr.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	used := clk.Now()
	if ks, _ := kr.Keys(ctx, "alice"); !ks[0].LastUsed.Equal(used) {
		t.Errorf("last used %v, want %v", ks[0].LastUsed, used)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stored sql.NullInt64
	if err := db.QueryRow(`SELECT last_used_at FROM auth_keys WHERE id = ?`, info.ID).Scan(&stored); err != nil || stored.Valid {
		t.Errorf("last_used_at written per request: %v, %v", stored, err)
	}
	if err := kr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT last_used_at FROM auth_keys WHERE id = ?`, info.ID).Scan(&stored); err != nil || stored.Int64 != used.UnixNano() {
		t.Errorf("last_used_at after Close: %v, %v; want %d", stored, err, used.UnixNano())
	}
	kr = open(t, path)
	if ks, _ := kr.Keys(ctx, "alice"); !ks[0].LastUsed.Equal(used) {
		t.Errorf("reopened: last used %v, want %v", ks[0].LastUsed, used)
	}
}

func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlitekeys.OpenKeyring(context.Background(), path, cheap)
	if err == nil || !strings.Contains(err.Error(), "not a Hearth database") {
		t.Errorf("Open on a text file: %v", err)
	}
}

// TestSessionTokenIsNotStored reads the database files back: a session is
// kept under its token's SHA-256, so a copy of the database signs no one
// in; the CSRF token, no credential by itself, is kept as it is.
func TestSessionTokenIsNotStored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	kr := open(t, filepath.Join(dir, "hearth.db"))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	ss, err := kr.Sessions(auth.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ss.SignIn(ctx, key, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte(s.Hash)) || !bytes.Contains(all, []byte(s.CSRF)) {
		t.Fatal("the session's hash and CSRF token are not in the database files: the test reads the wrong files")
	}
	for _, x := range []string{s.Token, s.Token[:20], key} {
		if bytes.Contains(all, []byte(x)) {
			t.Errorf("%q is in the database files", x)
		}
	}
}

// BenchmarkAuthenticate is a request's key check against the SQLite file,
// with a request's cancellable context: the read every API request makes.
func BenchmarkAuthenticate(b *testing.B) {
	kr := open(b, "")
	key, _ := userWithKey(b, kr, "ann", access.GM)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kr.Authenticate(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
}
