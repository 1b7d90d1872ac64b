package auth_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
)

// cheap keeps tests fast; the default cost is exercised by
// TestHashIsNotKey and the benchmarks.
var cheap = auth.WithParams(auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})

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

func TestUsersAndKeys(t *testing.T) {
	ctx := context.Background()
	kr := open(t, "")
	alice, err := kr.AddUser(ctx, "alice", access.GM)
	if err != nil {
		t.Fatal(err)
	}
	key1, info1, err := kr.IssueKey(ctx, "Alice") // names match without case
	if err != nil {
		t.Fatal(err)
	}
	key2, _, err := kr.IssueKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if key1 == key2 || !strings.HasPrefix(key1, "hth_"+info1.ID+"_") {
		t.Fatalf("keys %q and %q (id %s)", key1, key2, info1.ID)
	}
	got, err := kr.Authenticate(ctx, key1)
	if err != nil || got != alice {
		t.Fatalf("Authenticate = %+v, %v; want %+v", got, err, alice)
	}
	if _, err := kr.AddUser(ctx, "bob", access.Player); err != nil {
		t.Fatal(err)
	}
	us, err := kr.Users(ctx)
	if err != nil || len(us) != 2 || us[0].Name != "alice" || us[1].Name != "bob" || us[1].Role != access.Player {
		t.Fatalf("Users = %+v, %v", us, err)
	}
	ks, err := kr.Keys(ctx, "alice")
	if err != nil || len(ks) != 2 || ks[0].ID != info1.ID || !ks[0].Active() || ks[0].User != "alice" {
		t.Fatalf("Keys = %+v, %v", ks, err)
	}
	if ks, err := kr.Keys(ctx, "bob"); err != nil || len(ks) != 0 {
		t.Fatalf("Keys(bob) = %+v, %v", ks, err)
	}

	errs := []struct {
		name string
		err  error
		want error
	}{
		{"same name", second(kr.AddUser(ctx, "alice", access.Player)), auth.ErrUserExists},
		{"same name other case", second(kr.AddUser(ctx, "ALICE", access.Player)), auth.ErrUserExists},
		{"empty name", second(kr.AddUser(ctx, "", access.Player)), auth.ErrInvalidName},
		{"space in name", second(kr.AddUser(ctx, "a b", access.Player)), auth.ErrInvalidName},
		{"leading dash", second(kr.AddUser(ctx, "-x", access.Player)), auth.ErrInvalidName},
		{"long name", second(kr.AddUser(ctx, strings.Repeat("x", 65), access.Player)), auth.ErrInvalidName},
		{"role 0", second(kr.AddUser(ctx, "carol", 0)), auth.ErrInvalidRole},
		{"role 5", second(kr.AddUser(ctx, "carol", 5)), auth.ErrInvalidRole},
		{"key for nobody", third(kr.IssueKey(ctx, "nobody")), auth.ErrNoUser},
		{"keys of nobody", second(kr.Keys(ctx, "nobody")), auth.ErrNoUser},
		{"revoke unknown", kr.Revoke(ctx, "aaaaaaaaaaaaaaaa"), auth.ErrNoKey},
		{"revoke malformed", kr.Revoke(ctx, "'; DROP TABLE auth_keys"), auth.ErrNoKey},
		{"remove nobody", kr.RemoveUser(ctx, "nobody"), auth.ErrNoUser},
	}
	for _, tt := range errs {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if u, err := kr.AddUser(ctx, "Jörg_2.b-c", access.Trusted); err != nil || u.Name != "Jörg_2.b-c" {
		t.Errorf("unicode name: %+v, %v", u, err)
	}

	if err := kr.Revoke(ctx, info1.ID); err != nil {
		t.Fatal(err)
	}
	if err := kr.Revoke(ctx, info1.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if _, err := kr.Authenticate(ctx, key1); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("revoked key: %v", err)
	}
	if ks, _ := kr.Keys(ctx, "alice"); ks[0].Active() || !ks[1].Active() {
		t.Errorf("after revoke: %+v", ks)
	}
	if err := kr.RemoveUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Authenticate(ctx, key2); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("key of a removed user: %v", err)
	}
	if _, err := kr.AddUser(ctx, "alice", access.Player); err != nil {
		t.Errorf("re-adding a removed user: %v", err)
	}
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }

// TestCache checks that a verification is cached, that failures never
// are, and that neither revocation nor removal can be outrun by the cache,
// in this process or from another one (the CLI beside a server).
func TestCache(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	server := open(t, path)
	cli := open(t, path)
	key1, info1 := userWithKey(t, server, "alice", access.GM)
	key2, info2, err := server.IssueKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	key3, _ := userWithKey(t, server, "bob", access.Player)
	wrong := key1[:len(key1)-4] + "aaaa"
	if wrong == key1 {
		wrong = key1[:len(key1)-4] + "bbbb"
	}

	check := func(name, key string, want error, verifications int64) {
		t.Helper()
		_, err := server.Authenticate(ctx, key)
		if !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("%s: Authenticate = %v, want %v", name, err, want)
		}
		if n := auth.Verifications(server); n != verifications {
			t.Errorf("%s: %d argon2id runs so far, want %d", name, n, verifications)
		}
	}
	check("first use", key1, nil, 1)
	check("cached", key1, nil, 1)
	check("wrong secret", wrong, auth.ErrWrongSecret, 2)
	check("wrong secret again is not cached", wrong, auth.ErrWrongSecret, 3)
	check("right key after a wrong one", key1, nil, 3)
	check("second key", key2, nil, 4)
	check("other user", key3, nil, 5)
	if err := server.Revoke(ctx, info1.ID); err != nil {
		t.Fatal(err)
	}
	// Refusing a revoked or unknown key costs the hash a wrong secret does.
	check("revoked here", key1, auth.ErrRevoked, 6)
	if err := cli.Revoke(ctx, info2.ID); err != nil {
		t.Fatal(err)
	}
	check("revoked by another process, still cached here", key2, auth.ErrRevoked, 6)
	check("still cached", key3, nil, 6)
	if err := cli.RemoveUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	check("removed by another process", key3, auth.ErrUnknownKey, 7)
}

func TestCacheExpires(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	kr := open(t, "", auth.WithClock(clk.Now), auth.WithCacheTTL(5*time.Minute))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	for _, step := range []struct {
		advance time.Duration
		want    int64
	}{{0, 1}, {4 * time.Minute, 1}, {time.Minute, 2}, {time.Second, 2}} {
		clk.Add(step.advance)
		if _, err := kr.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
		if n := auth.Verifications(kr); n != step.want {
			t.Errorf("after %v more: %d argon2id runs, want %d", step.advance, n, step.want)
		}
	}

	off := open(t, "", auth.WithCacheTTL(0))
	key, _ = userWithKey(t, off, "alice", access.GM)
	for range 2 {
		if _, err := off.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if n := auth.Verifications(off); n != 2 {
		t.Errorf("cache off: %d argon2id runs, want 2", n)
	}
}

func TestParamsChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	kr := open(t, path)
	old, _ := userWithKey(t, kr, "alice", access.GM)
	kr.Close()
	kr = open(t, path, auth.WithParams(auth.Params{Memory: 128, Time: 2, Threads: 2, SaltLen: 24, KeyLen: 24}))
	if _, err := kr.Authenticate(ctx, old); err != nil {
		t.Errorf("a key hashed with the old parameters: %v", err)
	}
	fresh, _, err := kr.IssueKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Authenticate(ctx, fresh); err != nil {
		t.Errorf("a key hashed with the new parameters: %v", err)
	}
	if _, err := sqlitekeys.OpenKeyring(ctx, path+"2", auth.WithParams(auth.Params{Memory: 64, Time: 0, Threads: 1, SaltLen: 16, KeyLen: 32})); err == nil {
		t.Error("Open accepted zero passes")
	}
}

func TestConcurrentAuthenticate(t *testing.T) {
	ctx := context.Background()
	kr := open(t, "")
	var keys []string
	for _, n := range []string{"a", "b", "c"} {
		k, _ := userWithKey(t, kr, n, access.Player)
		keys = append(keys, k)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 60 {
		wg.Go(func() {
			u, err := kr.Authenticate(ctx, keys[i%3])
			if err == nil && u.Name != []string{"a", "b", "c"}[i%3] {
				err = errors.New("wrong user " + u.Name)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		ttl  time.Duration
	}{{"cached", auth.DefaultCacheTTL}, {"uncached", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			kr, err := sqlitekeys.OpenKeyring(ctx, filepath.Join(b.TempDir(), "hearth.db"), auth.WithCacheTTL(bc.ttl))
			if err != nil {
				b.Fatal(err)
			}
			defer kr.Close()
			key, _ := userWithKey(b, kr, "alice", access.GM)
			if _, err := kr.Authenticate(ctx, key); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kr.Authenticate(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Past the budget, wrong secrets for a key id cost no hash and are told
// they are throttled, not that the key is bad; the right key, cached or
// not, is accepted all along; the budget refills with time.
func TestWrongSecretsStopCostingHashes(t *testing.T) {
	ctx := auth.WithClient(context.Background(), "203.0.113.9")
	clk := newClock()
	kr := open(t, "", auth.WithClock(clk.Now), auth.WithCacheTTL(0))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	wrong := authtest.WrongSecrets(t, key, 30)
	for i := range auth.FailureBurst {
		if _, err := kr.Authenticate(ctx, wrong[i]); !errors.Is(err, auth.ErrWrongSecret) {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	hashed := auth.Verifications(kr)
	for _, w := range wrong[auth.FailureBurst:] {
		_, err := kr.Authenticate(ctx, w)
		var te *auth.ThrottledError
		if !errors.As(err, &te) || !errors.Is(err, auth.ErrTooManyFailures) || errors.Is(err, auth.ErrInvalidKey) || te.RetryAfter < time.Second {
			t.Fatalf("after the budget: %v; want a *ThrottledError that does not claim the key is invalid", err)
		}
	}
	if n := auth.Verifications(kr); n != hashed {
		t.Errorf("%d argon2id runs for throttled attempts, want 0", n-hashed)
	}
	if u, err := kr.Authenticate(ctx, key); err != nil || u.Name != "alice" {
		t.Fatalf("the real key, not cached, from the attacker's address: %+v, %v", u, err)
	}
	if n := auth.Verifications(kr); n != hashed+1 {
		t.Errorf("the real key while throttled: %d argon2id runs, want 1", n-hashed)
	}
	clk.Add(time.Minute)
	if _, err := kr.Authenticate(ctx, wrong[0]); !errors.Is(err, auth.ErrWrongSecret) {
		t.Fatalf("a minute later: %v", err)
	}
}

// The budget is per key id and client: an attacker's failures do not
// throttle the same key id from another address, nor another key id.
func TestWrongSecretsThrottleOnlyTheirClient(t *testing.T) {
	kr := open(t, "", auth.WithCacheTTL(0))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	other, _ := userWithKey(t, kr, "bob", access.Player)
	attacker := auth.WithClient(context.Background(), "203.0.113.9")
	owner := auth.WithClient(context.Background(), "198.51.100.7")
	wrong := authtest.WrongSecrets(t, key, auth.FailureBurst+1)
	for _, w := range wrong[:auth.FailureBurst] {
		kr.Authenticate(attacker, w)
	}
	if _, err := kr.Authenticate(attacker, wrong[auth.FailureBurst]); !errors.Is(err, auth.ErrTooManyFailures) {
		t.Fatalf("the attacker's address after the budget: %v", err)
	}
	if _, err := kr.Authenticate(owner, authtest.WrongSecrets(t, key, 1)[0]); !errors.Is(err, auth.ErrWrongSecret) {
		t.Errorf("a wrong secret from another address: %v; want it checked", err)
	}
	if _, err := kr.Authenticate(attacker, authtest.WrongSecrets(t, other, 1)[0]); !errors.Is(err, auth.ErrWrongSecret) {
		t.Errorf("another key id from the attacker's address: %v; want it checked", err)
	}
	for name, ctx := range map[string]context.Context{"owner": owner, "attacker": attacker} {
		if _, err := kr.Authenticate(ctx, key); err != nil {
			t.Errorf("the real key from the %s's address: %v", name, err)
		}
	}
}

// Wrong secrets from many addresses and made-up key ids share one budget,
// so they cannot buy unlimited hashes; the right key still gets in.
func TestGlobalFailureBudget(t *testing.T) {
	kr := open(t, "", auth.WithCacheTTL(0), auth.WithClock(newClock().Now))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	i := strings.LastIndex(key, "_")
	madeUp := func(n int) string {
		id := []byte("aaaaaaaaaaaaaaaa")
		for k, c := range fmt.Sprintf("%08d", n) {
			id[8+k] = byte('a' + c - '0')
		}
		return "hth_" + string(id) + key[i:]
	}
	for n := range auth.GlobalFailureBurst {
		ctx := auth.WithClient(context.Background(), fmt.Sprintf("192.0.2.%d", n))
		if _, err := kr.Authenticate(ctx, madeUp(n)); !errors.Is(err, auth.ErrUnknownKey) {
			t.Fatalf("attempt %d: %v", n+1, err)
		}
	}
	hashed := auth.Verifications(kr)
	throttled := 0
	for n := range 50 {
		ctx := auth.WithClient(context.Background(), fmt.Sprintf("198.51.100.%d", n))
		if _, err := kr.Authenticate(ctx, madeUp(1000+n)); errors.Is(err, auth.ErrTooManyFailures) {
			throttled++
		}
	}
	// A made-up secret passes the dummy's quick check once in 65,536.
	if extra := auth.Verifications(kr) - hashed; throttled < 49 || extra > 1 {
		t.Errorf("past the global budget: %d of 50 throttled, %d argon2id runs", throttled, extra)
	}
	if _, err := kr.Authenticate(auth.WithClient(context.Background(), "192.0.2.1"), key); err != nil {
		t.Errorf("the real key past the global budget: %v", err)
	}
}

// Rejecting an unknown key id costs what rejecting a known one's wrong
// secret does: one argon2id run, and the same throttling after.
func TestUnknownKeyIDCostsAHash(t *testing.T) {
	kr := open(t, "", auth.WithCacheTTL(0))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	i := strings.LastIndex(key, "_")
	unknown := "hth_" + strings.Repeat("a", 16) + key[i:]
	if unknown[:i] == key[:i] {
		t.Fatal("the made-up key id is the real one")
	}
	for _, tt := range []struct {
		name, key string
		want      error
	}{
		{"known id, wrong secret", authtest.WrongSecrets(t, key, 1)[0], auth.ErrWrongSecret},
		{"unknown id", unknown, auth.ErrUnknownKey},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := auth.WithClient(context.Background(), "203.0.113.9")
			var runs []int64
			for range auth.FailureBurst {
				before := auth.Verifications(kr)
				if _, err := kr.Authenticate(ctx, tt.key); !errors.Is(err, tt.want) {
					t.Fatalf("%v, want %v", err, tt.want)
				}
				runs = append(runs, auth.Verifications(kr)-before)
			}
			if !slices.Equal(runs, slices.Repeat([]int64{1}, auth.FailureBurst)) {
				t.Errorf("argon2id runs per refusal: %v, want 1 each", runs)
			}
		})
	}
	// The dummy hash costs what a key's does: the same parameters.
	var params []string
	auth.SetIDKey(kr, func(secret, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		params = append(params, fmt.Sprint(time, memory, threads, keyLen, len(salt)))
		return argon2.IDKey(secret, salt, time, memory, threads, keyLen)
	})
	ctx := auth.WithClient(context.Background(), "198.51.100.7")
	kr.Authenticate(ctx, unknown)
	kr.Authenticate(ctx, key)
	if len(params) != 2 || params[0] != params[1] {
		t.Errorf("argon2id parameters, unknown id then known: %q", params)
	}
}

// A flood of uncached attempts runs at most the allowed number of
// argon2id hashes at once, and a right key queued among them gets in.
func TestHashConcurrencyBounded(t *testing.T) {
	const limit = 1
	kr := open(t, "", auth.WithCacheTTL(0), auth.WithHashConcurrency(limit))
	key, _ := userWithKey(t, kr, "alice", access.GM)
	var mu sync.Mutex
	running, peak := 0, 0
	auth.SetIDKey(kr, func(secret, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		runtime.Gosched() // room for another hash to start, were it allowed
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		return argon2.IDKey(secret, salt, time, memory, threads, keyLen)
	})
	i := strings.LastIndex(key, "_")
	var wg sync.WaitGroup
	for n := range 40 {
		wg.Go(func() {
			ctx := auth.WithClient(context.Background(), fmt.Sprintf("192.0.2.%d", n))
			kr.Authenticate(ctx, "hth_aaaaaaaacccccccc"+key[i:])
		})
	}
	var rightErr error
	wg.Go(func() { _, rightErr = kr.Authenticate(context.Background(), key) })
	wg.Wait()
	if rightErr != nil {
		t.Errorf("the right key among the flood: %v", rightErr)
	}
	if peak != limit {
		t.Errorf("%d argon2id hashes at once, want %d", peak, limit)
	}
}
