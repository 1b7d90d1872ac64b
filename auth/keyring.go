package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
)

// Errors of Authenticate. Every one of them but ErrTooManyFailures wraps
// ErrInvalidKey, which is all a client should be told.
var (
	ErrInvalidKey  = &hearth.Error{Code: hearth.Unauthorized, Message: "invalid API key"}
	ErrMalformed   = fmt.Errorf("%w: not a Hearth API key", ErrInvalidKey)
	ErrUnknownKey  = fmt.Errorf("%w: no such key (never issued, or its user was removed)", ErrInvalidKey)
	ErrRevoked     = fmt.Errorf("%w: the key was revoked", ErrInvalidKey)
	ErrWrongSecret = fmt.Errorf("%w: the secret does not match", ErrInvalidKey)
	// ErrTooManyFailures is wrapped by a *ThrottledError: too many wrong
	// secrets lately for this key id from this client (or from everywhere),
	// and this one was wrong too. It says nothing about whether the key is
	// good, so it does not wrap ErrInvalidKey; answer 429, not 401.
	ErrTooManyFailures = errors.New("too many wrong secrets")
)

// ThrottledError refuses a wrong secret sent while its key id is
// throttled. The right secret is never refused this way.
type ThrottledError struct {
	KeyID      string
	RetryAfter time.Duration // at least a second
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("key %s: %v from this client; try again in %v", e.KeyID, ErrTooManyFailures, e.RetryAfter)
}

func (e *ThrottledError) Unwrap() error { return ErrTooManyFailures }

// Wrong secrets allowed per key id and client, and from all clients
// together, before a key id is throttled. Each costs a full argon2id hash,
// so a known (or guessed) key id must not become a way to burn the
// server's CPU. Throttling rate-limits wrong secrets, not the key: while
// throttled, a secret that fails a cheap 16-bit check (see quickCheck) is
// refused without hashing, and one that passes it, the right one always
// does, is hashed as usual.
const (
	FailuresPerMinute = 10
	FailureBurst      = 5
	// The budget all clients share, so that many addresses or many
	// made-up key ids cannot buy a hash each.
	GlobalFailuresPerMinute = 120
	GlobalFailureBurst      = 30
)

// Errors of managing users and keys.
var (
	ErrUserExists  = &hearth.Error{Code: hearth.Conflict, Message: "a user with this name already exists"}
	ErrNoUser      = &hearth.Error{Code: hearth.NotFound, Message: "no such user"}
	ErrNoKey       = &hearth.Error{Code: hearth.NotFound, Message: "no such key"}
	ErrInvalidName = &hearth.Error{Code: hearth.Invalid, Message: "invalid user name"}
	ErrInvalidRole = &hearth.Error{Code: hearth.Invalid, Message: "invalid role"}
)

const (
	// DefaultCacheTTL is how long a successful verification is trusted
	// before the key's secret is hashed again.
	DefaultCacheTTL = 5 * time.Minute
	// maxCached bounds the verification cache; past it, expired entries
	// go first, then arbitrary ones.
	maxCached = 4096
	// flushEvery is how often last-used times reach the database: at most
	// one write per key per interval, never one per request.
	flushEvery = time.Minute
	maxNameLen = 64
)

// Keyring holds users and their API keys in a Store and decides who a key
// belongs to. It is safe for concurrent use; Close it to stop its
// background writer.
type Keyring struct {
	store  Store
	params Params
	now    func() time.Time
	ttl    time.Duration
	fails  *Limiter // wrong secrets per key id and client
	global *Limiter // wrong secrets from everywhere, under the key ""
	// sem bounds concurrent argon2id runs: each takes Params.Memory and
	// several cores, and a burst of uncached keys must take neither all
	// the memory nor all the CPU. Waiters are served in order, so a right
	// secret queued behind a flood is verified in its turn.
	sem    chan struct{}
	idKey  func(secret, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte
	hashes atomic.Int64 // argon2id runs to check a key, the dummy ones too
	// dummy is what an unknown key id's secret is hashed against, so that
	// it takes the work of a known one to refuse.
	dummy      string
	dummyCheck int64

	mu    sync.Mutex
	cache map[[sha256.Size]byte]verified
	used  map[string]time.Time // last-used times not yet written

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// verified is a key whose secret matched hash. Only successes are kept.
type verified struct {
	keyID, userID, hash string
	expires             time.Time
}

// KeyInfo describes a key without its secret.
type KeyInfo struct {
	ID       string
	User     string // the owner's name
	Created  time.Time
	LastUsed time.Time // zero if never used
	Revoked  time.Time // zero while the key is active
}

// Active reports whether the key has not been revoked.
func (k KeyInfo) Active() bool { return k.Revoked.IsZero() }

// Option configures New.
type Option func(*Keyring)

// WithParams sets the argon2id parameters for keys issued from now on.
func WithParams(p Params) Option { return func(kr *Keyring) { kr.params = p } }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(kr *Keyring) { kr.now = now } }

// WithHashConcurrency sets how many argon2id verifications may run at
// once; the default is half the CPUs, at least one.
func WithHashConcurrency(n int) Option {
	return func(kr *Keyring) { kr.sem = make(chan struct{}, max(1, n)) }
}

// WithCacheTTL sets how long a verified key is trusted without hashing it
// again; 0 turns the cache off.
func WithCacheTTL(d time.Duration) Option { return func(kr *Keyring) { kr.ttl = d } }

// New keeps users and keys in store. Close stops its background writer
// and closes store if it is an io.Closer.
func New(store Store, opts ...Option) (*Keyring, error) {
	kr := &Keyring{
		store:  store,
		params: DefaultParams(),
		now:    time.Now,
		ttl:    DefaultCacheTTL,
		sem:    make(chan struct{}, max(1, runtime.NumCPU()/2)),
		idKey:  argon2.IDKey,
		cache:  map[[sha256.Size]byte]verified{},
		used:   map[string]time.Time{},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for _, o := range opts {
		o(kr)
	}
	kr.fails = NewLimiter(FailuresPerMinute, FailureBurst)
	kr.fails.SetClock(kr.now)
	kr.global = NewLimiter(GlobalFailuresPerMinute, GlobalFailureBurst)
	kr.global.SetClock(kr.now)
	if err := kr.params.validate(); err != nil {
		return nil, fmt.Errorf("open the keyring: %w", err)
	}
	// A hash of nothing: checking a secret against it costs what checking
	// one against a key issued now does, and never matches.
	salt, sum := make([]byte, kr.params.SaltLen), make([]byte, kr.params.KeyLen)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(sum)
	kr.dummy = encodeHash(kr.params, salt, sum)
	var b [2]byte
	_, _ = rand.Read(b[:])
	kr.dummyCheck = int64(b[0])<<8 | int64(b[1])
	go kr.flushLoop()
	return kr, nil
}

// Close writes pending last-used times and closes the store if it is an
// io.Closer.
func (kr *Keyring) Close() error {
	kr.closeOnce.Do(func() {
		close(kr.stop)
		<-kr.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kr.closeErr = kr.flush(ctx)
		if c, ok := kr.store.(io.Closer); ok {
			kr.closeErr = errors.Join(kr.closeErr, c.Close())
		}
	})
	return kr.closeErr
}

// Authenticate returns the user key belongs to. Its errors wrap
// ErrInvalidKey when the key is not good, ErrTooManyFailures (a
// *ThrottledError) when it is wrong and its key id is throttled, and are
// otherwise failures to read the store.
//
// The key's row is asked of the store on every call, which answers what is
// stored now, so a revocation or removal made by another process (the CLI
// beside a running server) takes effect at once; only the argon2id
// comparison is cached here. An unknown key id, a revoked key
// and a wrong secret cost the same argon2id hash to refuse, so how long a
// refusal takes does not tell which key ids exist.
func (kr *Keyring) Authenticate(ctx context.Context, key string) (User, error) {
	id, secret, err := parseKey(key)
	if err != nil {
		return User{}, err
	}
	k, u, err := kr.store.Key(ctx, id)
	known := err == nil
	switch {
	case errors.Is(err, ErrNoKey):
		k = StoredKey{Hash: kr.dummy, Check: kr.dummyCheck, HasCheck: true}
	case err != nil:
		return User{}, fmt.Errorf("key %s: %w", id, err)
	}
	hash, revoked := k.Hash, !k.Revoked.IsZero()
	sum := sha256.Sum256([]byte(key))
	now := kr.now()
	if known && kr.cached(sum, hash, now) {
		if revoked { // revoked by another process: not yet forgotten here
			return User{}, fmt.Errorf("key %s: %w", id, ErrRevoked)
		}
		kr.touch(id, now)
		return u, nil
	}

	budget := id
	if c := ClientFrom(ctx); c != "" {
		budget += " " + c
	}
	throttled, wait := kr.fails.Blocked(budget)
	if gt, gw := kr.global.Blocked(""); gt {
		throttled, wait = true, max(wait, gw)
	}
	// While throttled, only a secret that passes the cheap check is worth a
	// hash. A key issued before check_bits existed has none: it is hashed.
	if throttled && k.HasCheck && quickCheck(id, secret) != k.Check {
		return User{}, &ThrottledError{KeyID: id, RetryAfter: wait}
	}
	ok, err := kr.verify(ctx, secret, hash)
	if err != nil {
		return User{}, fmt.Errorf("key %s: %w", id, err)
	}
	if ok && known && !revoked {
		kr.remember(sum, verified{keyID: id, userID: u.ID, hash: hash, expires: now.Add(kr.ttl)}, now)
		if !k.HasCheck {
			kr.fillCheck(ctx, id, hash, quickCheck(id, secret))
		}
		kr.touch(id, now)
		return u, nil
	}
	kr.fails.Allow(budget)
	kr.global.Allow("")
	switch {
	case ok && known: // the right secret of a revoked key
		err = ErrRevoked
	case throttled:
		return User{}, &ThrottledError{KeyID: id, RetryAfter: wait}
	case !known:
		err = ErrUnknownKey
	default:
		err = ErrWrongSecret
	}
	return User{}, fmt.Errorf("key %s: %w", id, err)
}

// touch records that key id was used at now.
func (kr *Keyring) touch(id string, now time.Time) {
	kr.mu.Lock()
	if now.After(kr.used[id]) {
		kr.used[id] = now
	}
	kr.mu.Unlock()
}

// fillCheck stores the check bits of a key issued before they existed,
// now that its secret has been seen. Failing only delays that.
func (kr *Keyring) fillCheck(ctx context.Context, id, hash string, check int64) {
	if err := kr.store.SetCheck(ctx, id, hash, check); err != nil {
		slog.WarnContext(ctx, "record the check bits of an API key", "key", id, "err", err)
	}
}

func (kr *Keyring) verify(ctx context.Context, secret, hash string) (bool, error) {
	if err := kr.acquire(ctx); err != nil {
		return false, err
	}
	defer kr.release()
	kr.hashes.Add(1)
	return verifySecret(kr.idKey, secret, hash)
}

func (kr *Keyring) acquire(ctx context.Context) error {
	select {
	case kr.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (kr *Keyring) release() { <-kr.sem }

// cached reports whether the key with this digest was verified against
// hash and the verification has not expired.
func (kr *Keyring) cached(sum [sha256.Size]byte, hash string, now time.Time) bool {
	if kr.ttl <= 0 {
		return false
	}
	kr.mu.Lock()
	defer kr.mu.Unlock()
	e, ok := kr.cache[sum]
	if ok && (e.hash != hash || !now.Before(e.expires)) {
		delete(kr.cache, sum)
		return false
	}
	return ok
}

func (kr *Keyring) remember(sum [sha256.Size]byte, e verified, now time.Time) {
	if kr.ttl <= 0 {
		return
	}
	kr.mu.Lock()
	defer kr.mu.Unlock()
	if len(kr.cache) >= maxCached {
		for k, old := range kr.cache {
			if !now.Before(old.expires) {
				delete(kr.cache, k)
			}
		}
		for k := range kr.cache {
			if len(kr.cache) < maxCached {
				break
			}
			delete(kr.cache, k)
		}
	}
	kr.cache[sum] = e
}

// forget drops the cached verifications that match.
func (kr *Keyring) forget(match func(verified) bool) {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	for k, e := range kr.cache {
		if match(e) {
			delete(kr.cache, k)
		}
	}
}

func (kr *Keyring) flushLoop() {
	defer close(kr.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-kr.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := kr.flush(ctx); err != nil {
				slog.Warn("record when API keys were last used", "err", err)
			}
			cancel()
		}
	}
}

// flush writes the pending last-used times in one transaction; on failure
// they stay pending for the next try.
func (kr *Keyring) flush(ctx context.Context) error {
	kr.mu.Lock()
	pending := kr.used
	kr.used = map[string]time.Time{}
	kr.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	if err := kr.store.RecordUse(ctx, pending); err != nil {
		kr.mu.Lock()
		for id, t := range pending {
			if t.After(kr.used[id]) {
				kr.used[id] = t
			}
		}
		kr.mu.Unlock()
		return fmt.Errorf("record when keys were last used: %w", err)
	}
	return nil
}

// AddUser creates a user with no keys. Names are 1 to 64 letters, digits,
// '.', '-' or '_', unique without regard to ASCII case.
func (kr *Keyring) AddUser(ctx context.Context, name string, role access.Level) (User, error) {
	name, err := cleanName(name)
	if err != nil {
		return User{}, err
	}
	if role < access.Player || role > access.GM {
		return User{}, fmt.Errorf("%w %d: use player, trusted, assistant or gm", ErrInvalidRole, int(role))
	}
	u := User{ID: newID(), Name: name, Role: role}
	if err := kr.store.AddUser(ctx, u, kr.now()); err != nil {
		return User{}, fmt.Errorf("add user %s: %w", name, err)
	}
	return u, nil
}

func cleanName(name string) (string, error) {
	name = norm.NFC.String(name)
	n := utf8.RuneCountInString(name)
	ok := n >= 1 && n <= maxNameLen && utf8.ValidString(name)
	for i, r := range name {
		if !ok {
			break
		}
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		ok = alnum || (i > 0 && (r == '.' || r == '-' || r == '_'))
	}
	if !ok {
		return "", fmt.Errorf("%w %q: use 1 to %d letters, digits, '.', '-' or '_', starting with a letter or digit", ErrInvalidName, name, maxNameLen)
	}
	return name, nil
}

// user finds a user by name.
func (kr *Keyring) user(ctx context.Context, name string) (User, error) {
	u, err := kr.store.User(ctx, norm.NFC.String(name))
	if err != nil {
		return User{}, fmt.Errorf("user %q: %w", name, err)
	}
	return u, nil
}

// IssueKey creates a key for the named user and returns it in plain text:
// this is the only time it exists outside the caller's hands.
func (kr *Keyring) IssueKey(ctx context.Context, userName string) (string, KeyInfo, error) {
	u, err := kr.user(ctx, userName)
	if err != nil {
		return "", KeyInfo{}, err
	}
	key, id, secret := newKey()
	if err := kr.acquire(ctx); err != nil {
		return "", KeyInfo{}, err
	}
	hash := hashSecret(secret, kr.params)
	kr.release()
	now := kr.now()
	k := StoredKey{ID: id, UserID: u.ID, Hash: hash, Check: quickCheck(id, secret), HasCheck: true, Created: now}
	if err := kr.store.AddKey(ctx, k); err != nil { // ErrNoUser: removed meanwhile
		return "", KeyInfo{}, fmt.Errorf("issue a key for %q: %w", userName, err)
	}
	return key, KeyInfo{ID: id, User: u.Name, Created: now}, nil
}

// Users returns every user, by name.
func (kr *Keyring) Users(ctx context.Context) ([]User, error) {
	us, err := kr.store.Users(ctx)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return us, nil
}

// Keys returns the named user's keys, revoked ones included, oldest first.
func (kr *Keyring) Keys(ctx context.Context, userName string) ([]KeyInfo, error) {
	u, err := kr.user(ctx, userName)
	if err != nil {
		return nil, err
	}
	ks, err := kr.store.Keys(ctx, u.ID)
	if err != nil {
		return nil, fmt.Errorf("list the keys of %s: %w", u.Name, err)
	}
	for i := range ks {
		ks[i].User = u.Name
	}
	kr.mu.Lock()
	for i, k := range ks {
		if t, ok := kr.used[k.ID]; ok && t.After(k.LastUsed) {
			ks[i].LastUsed = t
		}
	}
	kr.mu.Unlock()
	return ks, nil
}

// Revoke stops a key from working, at once in this process and on the
// next request in any other. Revoking a revoked key is not an error.
func (kr *Keyring) Revoke(ctx context.Context, keyID string) error {
	if !validKeyID(keyID) {
		return fmt.Errorf("key %q: %w", keyID, ErrNoKey)
	}
	if err := kr.store.Revoke(ctx, keyID, kr.now()); err != nil {
		return fmt.Errorf("revoke key %q: %w", keyID, err)
	}
	kr.forget(func(e verified) bool { return e.keyID == keyID })
	return nil
}

// RemoveUser deletes the named user and all their keys.
func (kr *Keyring) RemoveUser(ctx context.Context, name string) error {
	u, err := kr.store.RemoveUser(ctx, norm.NFC.String(name))
	if err != nil {
		return fmt.Errorf("remove user %q: %w", name, err)
	}
	kr.forget(func(e verified) bool { return e.userID == u.ID })
	return nil
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
