// Package authtest is the conformance suite of auth.Store: every backend
// (auth/sqlitekeys, a later PostgreSQL one) runs Run from its tests, so a
// Keyring behaves the same over any of them.
package authtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/internal/keycheck"
)

// Run runs the suite; open must return a new, empty store each call and
// release it when t ends. A store that is an io.Closer is closed by the
// Keyring tests' Close, so open should tolerate a second Close.
func Run(t *testing.T, open func(t *testing.T) auth.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, auth.Store)
	}{
		{"Users", testUsers},
		{"Keys", testKeys},
		{"CheckBits", testCheckBits},
		{"RecordUse", testRecordUse},
		{"Revoke", testRevoke},
		{"RemoveUser", testRemoveUser},
		{"Keyring", testKeyring},
		{"KeyringFillsMissingCheckBits", testLegacyKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

var (
	ctx = context.Background()
	t0  = time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
)

// Cheap are argon2id parameters that keep Keyring tests fast.
var Cheap = auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func addUser(t *testing.T, s auth.Store, id, name string, role access.Level) auth.User {
	t.Helper()
	u := auth.User{ID: id, Name: name, Role: role}
	if err := s.AddUser(ctx, u, t0); err != nil {
		t.Fatalf("AddUser(%s): %v", name, err)
	}
	return u
}

func addKey(t *testing.T, s auth.Store, k auth.StoredKey) {
	t.Helper()
	if err := s.AddKey(ctx, k); err != nil {
		t.Fatalf("AddKey(%s): %v", k.ID, err)
	}
}

// keyID is a valid key id made of n.
func keyID(n int) string { return fmt.Sprintf("key%013d", n) }

func testUsers(t *testing.T, s auth.Store) {
	bob := addUser(t, s, "u2", "bob", access.Player)
	alice := addUser(t, s, "u1", "Alice", access.GM)
	jorg := addUser(t, s, "u3", "Jörg_2.b-c", access.Trusted)
	for _, name := range []string{"bob", "BOB", "alice"} {
		if err := s.AddUser(ctx, auth.User{ID: "u9", Name: name, Role: access.Player}, t0); !errors.Is(err, auth.ErrUserExists) {
			t.Errorf("AddUser(%q) again: %v, want ErrUserExists", name, err)
		}
	}
	for name, want := range map[string]auth.User{"bob": bob, "Bob": bob, "ALICE": alice, "Jörg_2.b-c": jorg} {
		if got, err := s.User(ctx, name); err != nil || got != want {
			t.Errorf("User(%q) = %+v, %v; want %+v", name, got, err, want)
		}
	}
	if _, err := s.User(ctx, "nobody"); !errors.Is(err, auth.ErrNoUser) {
		t.Errorf("User(nobody): %v, want ErrNoUser", err)
	}
	us, err := s.Users(ctx)
	if err != nil || !slices.Equal(us, []auth.User{alice, bob, jorg}) {
		t.Errorf("Users = %+v, %v; want by name", us, err)
	}
}

func testKeys(t *testing.T, s auth.Store) {
	alice := addUser(t, s, "u1", "alice", access.GM)
	addUser(t, s, "u2", "bob", access.Player)
	if ks, err := s.Keys(ctx, alice.ID); err != nil || len(ks) != 0 {
		t.Errorf("Keys with none: %+v, %v", ks, err)
	}
	second := auth.StoredKey{ID: keyID(1), UserID: alice.ID, Hash: "$argon2id$second", Check: 65535, HasCheck: true, Created: t0.Add(time.Second)}
	first := auth.StoredKey{ID: keyID(2), UserID: alice.ID, Hash: "$argon2id$first", Check: 0, HasCheck: true, Created: t0}
	addKey(t, s, second)
	addKey(t, s, first)
	addKey(t, s, auth.StoredKey{ID: keyID(3), UserID: "u2", Hash: "$argon2id$bob", Created: t0})
	k, u, err := s.Key(ctx, second.ID)
	if err != nil || u != alice || k.ID != second.ID || k.UserID != alice.ID || k.Hash != second.Hash ||
		k.Check != 65535 || !k.HasCheck || !k.Created.Equal(second.Created) || !k.Revoked.IsZero() {
		t.Errorf("Key = %+v, %+v, %v; want %+v of %+v", k, u, err, second, alice)
	}
	if k, _, err := s.Key(ctx, first.ID); err != nil || k.Check != 0 || !k.HasCheck {
		t.Errorf("check bits 0 read back as %d (set %v), %v", k.Check, k.HasCheck, err)
	}
	if _, _, err := s.Key(ctx, keyID(99)); !errors.Is(err, auth.ErrNoKey) {
		t.Errorf("Key(unknown): %v, want ErrNoKey", err)
	}
	if err := s.AddKey(ctx, auth.StoredKey{ID: keyID(4), UserID: "gone", Hash: "h", Created: t0}); !errors.Is(err, auth.ErrNoUser) {
		t.Errorf("AddKey for no user: %v, want ErrNoUser", err)
	}
	if _, _, err := s.Key(ctx, keyID(4)); !errors.Is(err, auth.ErrNoKey) {
		t.Errorf("a key refused for no user was stored: %v", err)
	}
	ks, err := s.Keys(ctx, alice.ID)
	if err != nil || len(ks) != 2 || ks[0].ID != first.ID || ks[1].ID != second.ID ||
		!ks[0].Created.Equal(t0) || !ks[0].LastUsed.IsZero() || !ks[0].Active() {
		t.Errorf("Keys = %+v, %v; want oldest first, never used, active", ks, err)
	}
}

func testCheckBits(t *testing.T, s auth.Store) {
	addUser(t, s, "u1", "alice", access.GM)
	id := keyID(1)
	addKey(t, s, auth.StoredKey{ID: id, UserID: "u1", Hash: "old", Created: t0})
	check := func(want int64, has bool) {
		t.Helper()
		k, _, err := s.Key(ctx, id)
		if err != nil || k.HasCheck != has || (has && k.Check != want) {
			t.Errorf("check bits %d (set %v), %v; want %d (set %v)", k.Check, k.HasCheck, err, want, has)
		}
	}
	check(0, false)
	if err := s.SetCheck(ctx, id, "other hash", 7); err != nil {
		t.Fatal(err)
	}
	check(0, false) // the key changed since its secret was seen
	if err := s.SetCheck(ctx, id, "old", 7); err != nil {
		t.Fatal(err)
	}
	check(7, true)
	if err := s.SetCheck(ctx, id, "old", 9); err != nil {
		t.Fatal(err)
	}
	check(7, true) // recorded bits are never replaced
}

func testRecordUse(t *testing.T, s auth.Store) {
	alice := addUser(t, s, "u1", "alice", access.GM)
	a, b := keyID(1), keyID(2)
	addKey(t, s, auth.StoredKey{ID: a, UserID: alice.ID, Hash: "h", Created: t0})
	addKey(t, s, auth.StoredKey{ID: b, UserID: alice.ID, Hash: "h", Created: t0.Add(time.Second)})
	used := func() []time.Time {
		t.Helper()
		ks, err := s.Keys(ctx, alice.ID)
		if err != nil || len(ks) != 2 {
			t.Fatalf("Keys = %+v, %v", ks, err)
		}
		return []time.Time{ks[0].LastUsed, ks[1].LastUsed}
	}
	if err := s.RecordUse(ctx, nil); err != nil {
		t.Errorf("RecordUse(nothing): %v", err)
	}
	late := t0.Add(time.Hour)
	if err := s.RecordUse(ctx, map[string]time.Time{a: late, b: t0, keyID(99): late}); err != nil {
		t.Fatalf("RecordUse with an unknown id: %v", err)
	}
	if got := used(); !got[0].Equal(late) || !got[1].Equal(t0) {
		t.Errorf("last used %v, want %v and %v", got, late, t0)
	}
	if err := s.RecordUse(ctx, map[string]time.Time{a: t0, b: late}); err != nil {
		t.Fatal(err)
	}
	if got := used(); !got[0].Equal(late) || !got[1].Equal(late) {
		t.Errorf("after an earlier time for a, a later for b: %v; want both %v", got, late)
	}
}

func testRevoke(t *testing.T, s auth.Store) {
	alice := addUser(t, s, "u1", "alice", access.GM)
	id := keyID(1)
	addKey(t, s, auth.StoredKey{ID: id, UserID: alice.ID, Hash: "h", Created: t0})
	at := t0.Add(time.Minute)
	if err := s.Revoke(ctx, id, at); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, id, at.Add(time.Hour)); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if k, _, err := s.Key(ctx, id); err != nil || !k.Revoked.Equal(at) {
		t.Errorf("revoked at %v, %v; want the first time, %v", k.Revoked, err, at)
	}
	if ks, err := s.Keys(ctx, alice.ID); err != nil || len(ks) != 1 || ks[0].Active() || !ks[0].Revoked.Equal(at) {
		t.Errorf("Keys after revoke: %+v, %v", ks, err)
	}
	if err := s.Revoke(ctx, keyID(99), at); !errors.Is(err, auth.ErrNoKey) {
		t.Errorf("revoking an unknown key: %v, want ErrNoKey", err)
	}
}

func testRemoveUser(t *testing.T, s auth.Store) {
	alice := addUser(t, s, "u1", "alice", access.GM)
	bob := addUser(t, s, "u2", "bob", access.Player)
	addKey(t, s, auth.StoredKey{ID: keyID(1), UserID: alice.ID, Hash: "h", Created: t0})
	addKey(t, s, auth.StoredKey{ID: keyID(2), UserID: bob.ID, Hash: "h", Created: t0})
	if u, err := s.RemoveUser(ctx, "ALICE"); err != nil || u != alice {
		t.Fatalf("RemoveUser = %+v, %v; want %+v", u, err, alice)
	}
	if _, _, err := s.Key(ctx, keyID(1)); !errors.Is(err, auth.ErrNoKey) {
		t.Errorf("a removed user's key: %v, want ErrNoKey", err)
	}
	if _, _, err := s.Key(ctx, keyID(2)); err != nil {
		t.Errorf("another user's key: %v", err)
	}
	if _, err := s.RemoveUser(ctx, "alice"); !errors.Is(err, auth.ErrNoUser) {
		t.Errorf("removing again: %v, want ErrNoUser", err)
	}
	if err := s.AddUser(ctx, auth.User{ID: "u3", Name: "alice", Role: access.Player}, t0); err != nil {
		t.Errorf("re-adding a removed name: %v", err)
	}
	if us, err := s.Users(ctx); err != nil || len(us) != 2 || us[0].ID != "u3" {
		t.Errorf("Users = %+v, %v", us, err)
	}
}

// testKeyring runs a Keyring over the store: what a server and the CLI do.
func testKeyring(t *testing.T, s auth.Store) {
	kr, err := auth.New(s, auth.WithParams(Cheap))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	alice, err := kr.AddUser(ctx, "alice", access.GM)
	if err != nil {
		t.Fatal(err)
	}
	key, info, err := kr.IssueKey(ctx, "Alice")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := kr.Authenticate(ctx, key); err != nil || u != alice {
		t.Fatalf("Authenticate = %+v, %v; want %+v", u, err, alice)
	}
	if _, err := kr.Authenticate(ctx, WrongSecrets(t, key, 1)[0]); !errors.Is(err, auth.ErrWrongSecret) {
		t.Errorf("wrong secret: %v", err)
	}
	if ks, err := kr.Keys(ctx, "alice"); err != nil || len(ks) != 1 || ks[0].ID != info.ID || ks[0].User != "alice" || ks[0].LastUsed.IsZero() {
		t.Errorf("Keys = %+v, %v; want the key, used", ks, err)
	}
	if err := kr.Revoke(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Authenticate(ctx, key); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("revoked key: %v", err)
	}
	if err := kr.RemoveUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Authenticate(ctx, key); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("key of a removed user: %v", err)
	}
}

// legacy issues keys as a store did before check bits existed.
type legacy struct{ auth.Store }

func (l legacy) AddKey(ctx context.Context, k auth.StoredKey) error {
	k.Check, k.HasCheck = 0, false
	return l.Store.AddKey(ctx, k)
}

// testLegacyKey: a key without check bits is hashed even while throttled,
// so its holder is never refused, and gets its bits on first use.
func testLegacyKey(t *testing.T, s auth.Store) {
	kr, err := auth.New(legacy{s}, auth.WithParams(Cheap), auth.WithCacheTTL(0))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	if _, err := kr.AddUser(ctx, "alice", access.GM); err != nil {
		t.Fatal(err)
	}
	key, info, err := kr.IssueKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if k, _, err := s.Key(ctx, info.ID); err != nil || k.HasCheck {
		t.Fatalf("the legacy key has check bits: %+v, %v", k, err)
	}
	attacker := auth.WithClient(ctx, "203.0.113.9")
	wrong := WrongSecrets(t, key, auth.FailureBurst+1)
	for _, w := range wrong {
		kr.Authenticate(attacker, w)
	}
	if _, err := kr.Authenticate(attacker, key); err != nil {
		t.Fatalf("the right key without check bits, throttled: %v", err)
	}
	if k, _, err := s.Key(ctx, info.ID); err != nil || !k.HasCheck {
		t.Fatalf("check bits after use: %+v, %v", k, err)
	}
	if _, err := kr.Authenticate(attacker, wrong[0]); !errors.Is(err, auth.ErrTooManyFailures) {
		t.Errorf("a wrong secret once the bits are filled: %v, want throttled", err)
	}
}

// WrongSecrets returns n keys with key's id and wrong secrets that also
// fail its check bits, so a test of throttling never depends on a 1 in
// 65,536 chance.
func WrongSecrets(t testing.TB, key string, n int) []string {
	t.Helper()
	i := strings.LastIndex(key, "_")
	if !strings.HasPrefix(key, "hth_") || i < 4 {
		t.Fatalf("%q is not an API key", key)
	}
	id, secret := key[4:i], key[i+1:]
	var out []string
	for j := 0; len(out) < n; j++ {
		w := []byte(secret)
		for k, c := range fmt.Sprintf("%08d", j) {
			w[k] = byte('a' + c - '0')
		}
		if string(w) != secret && keycheck.Bits(id, string(w)) != keycheck.Bits(id, secret) {
			out = append(out, key[:i+1]+string(w))
		}
	}
	return out
}
