package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/internal/sqlitefile"

	"golang.org/x/text/unicode/norm"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

type clientKey struct{}

// WithClient returns a copy of ctx that names the client (a network
// address) an Authenticate call is made for, so failures from one client
// do not lock out another. Require sets it from the request.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

func clientFrom(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// Errors of Authenticate. Every one of them wraps ErrInvalidKey, which is
// all a client should be told.
var (
	ErrInvalidKey  = &hearth.Error{Code: hearth.Unauthorized, Message: "invalid API key"}
	ErrMalformed   = fmt.Errorf("%w: not a Hearth API key", ErrInvalidKey)
	ErrUnknownKey  = fmt.Errorf("%w: no such key (never issued, or its user was removed)", ErrInvalidKey)
	ErrRevoked     = fmt.Errorf("%w: the key was revoked", ErrInvalidKey)
	ErrWrongSecret = fmt.Errorf("%w: the secret does not match", ErrInvalidKey)
	// ErrTooManyFailures: the key id had too many wrong secrets lately, so
	// its next uncached attempts are refused without hashing.
	ErrTooManyFailures = fmt.Errorf("%w: too many wrong secrets for this key; try again in a minute", ErrInvalidKey)
)

// Wrong secrets allowed per key id and client before uncached attempts
// are refused unhashed: each costs a full argon2id hash, so a known key id
// must not become a way to burn the server's CPU. A holder of the real key
// whose verification is cached is never refused, and one calling from
// another address (see WithClient) is not refused for an attacker's
// failures.
const (
	FailuresPerMinute = 10
	FailureBurst      = 5
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

// Keyring holds users and their API keys in a SQLite file. It is safe for
// concurrent use; Close it to stop its background writer.
type Keyring struct {
	path   string
	db     *sql.DB
	lookup *sql.Stmt
	params Params
	now    func() time.Time
	ttl    time.Duration
	fails  *Limiter // wrong secrets per key id
	// sem bounds concurrent argon2id runs: each takes Params.Memory, and
	// a burst of uncached keys must not take the server's memory with it.
	sem           chan struct{}
	verifications atomic.Int64

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

// Option configures Open.
type Option func(*Keyring)

// WithParams sets the argon2id parameters for keys issued from now on.
func WithParams(p Params) Option { return func(kr *Keyring) { kr.params = p } }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(kr *Keyring) { kr.now = now } }

// WithCacheTTL sets how long a verified key is trusted without hashing it
// again; 0 turns the cache off.
func WithCacheTTL(d time.Duration) Option { return func(kr *Keyring) { kr.ttl = d } }

// Open opens (creating if needed) the users and keys in the SQLite file at
// path, which other stores may share: the tables are auth_*, versioned in
// auth_schema.
func Open(ctx context.Context, path string, opts ...Option) (*Keyring, error) {
	kr := &Keyring{
		path:   path,
		params: DefaultParams(),
		now:    time.Now,
		ttl:    DefaultCacheTTL,
		sem:    make(chan struct{}, max(1, runtime.NumCPU())),
		cache:  map[[sha256.Size]byte]verified{},
		used:   map[string]time.Time{},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for _, o := range opts {
		o(kr)
	}
	kr.fails = NewLimiter(FailuresPerMinute, FailureBurst)
	kr.fails.now = kr.now
	if err := kr.params.validate(); err != nil {
		return nil, fmt.Errorf("open the keyring: %w", err)
	}
	dsn, err := sqlitefile.DSN(path, "foreign_keys(1)", "synchronous(FULL)")
	if err != nil {
		return nil, fmt.Errorf("open the keyring: %w", err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open the keyring %s: %w", path, err)
	}
	db.SetMaxOpenConns(max(4, runtime.NumCPU()))
	kr.db = db
	if err := migrate.Apply(ctx, db, migrations, "migrations", "auth_schema", "the users and keys in "+path); err != nil {
		db.Close()
		return nil, kr.explain("open the keyring", err)
	}
	kr.lookup, err = db.PrepareContext(ctx, `SELECT k.hash, k.revoked_at, u.id, u.name, u.role
		FROM auth_keys k JOIN auth_users u ON u.id = k.user_id WHERE k.id = ?`)
	if err != nil {
		db.Close()
		return nil, kr.explain("open the keyring", err)
	}
	go kr.flushLoop()
	return kr, nil
}

// Close writes pending last-used times and closes the database.
func (kr *Keyring) Close() error {
	kr.closeOnce.Do(func() {
		close(kr.stop)
		<-kr.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kr.closeErr = errors.Join(kr.flush(ctx), kr.lookup.Close(), kr.db.Close())
	})
	return kr.closeErr
}

// Authenticate returns the user key belongs to. Its errors wrap
// ErrInvalidKey when the key is not good, and are otherwise failures to
// read the database.
//
// The key's row is read on every call, so a revocation or removal made by
// another process (the CLI beside a running server) takes effect at once;
// only the argon2id comparison is cached.
func (kr *Keyring) Authenticate(ctx context.Context, key string) (User, error) {
	id, secret, err := parseKey(key)
	if err != nil {
		return User{}, err
	}
	var (
		hash    string
		revoked sql.NullInt64
		u       User
	)
	err = kr.lookup.QueryRowContext(ctx, id).Scan(&hash, &revoked, &u.ID, &u.Name, &u.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("key %s: %w", id, ErrUnknownKey)
	}
	if err != nil {
		return User{}, kr.explain("look up key "+id, err)
	}
	if revoked.Valid {
		return User{}, fmt.Errorf("key %s: %w", id, ErrRevoked)
	}
	sum := sha256.Sum256([]byte(key))
	now := kr.now()
	if !kr.cached(sum, hash, now) {
		budget := id
		if c := clientFrom(ctx); c != "" {
			budget += " " + c
		}
		if blocked, _ := kr.fails.Blocked(budget); blocked {
			return User{}, fmt.Errorf("key %s: %w", id, ErrTooManyFailures)
		}
		ok, err := kr.verify(ctx, secret, hash)
		if err != nil {
			return User{}, fmt.Errorf("key %s: %w", id, err)
		}
		if !ok {
			kr.fails.Allow(budget)
			return User{}, fmt.Errorf("key %s: %w", id, ErrWrongSecret)
		}
		kr.remember(sum, verified{keyID: id, userID: u.ID, hash: hash, expires: now.Add(kr.ttl)}, now)
	}
	kr.mu.Lock()
	if now.After(kr.used[id]) {
		kr.used[id] = now
	}
	kr.mu.Unlock()
	return u, nil
}

func (kr *Keyring) verify(ctx context.Context, secret, hash string) (bool, error) {
	if err := kr.acquire(ctx); err != nil {
		return false, err
	}
	defer kr.release()
	kr.verifications.Add(1)
	return verifySecret(secret, hash)
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
	err := kr.inTx(ctx, func(tx *sql.Tx) error {
		for id, t := range pending {
			if _, err := tx.ExecContext(ctx, `UPDATE auth_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`, t.UnixNano(), id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		kr.mu.Lock()
		for id, t := range pending {
			if t.After(kr.used[id]) {
				kr.used[id] = t
			}
		}
		kr.mu.Unlock()
		return kr.explain("record when keys were last used", err)
	}
	return nil
}

func (kr *Keyring) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := kr.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
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
	res, err := kr.db.ExecContext(ctx, `INSERT INTO auth_users (id, name, role, created_at)
		SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM auth_users WHERE name = ?)`,
		u.ID, u.Name, int(u.Role), kr.now().UnixNano(), u.Name)
	if err != nil {
		return User{}, kr.explain("add user "+name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return User{}, fmt.Errorf("add user %s: %w", name, ErrUserExists)
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
func (kr *Keyring) user(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) (User, error) {
	var u User
	err := q.QueryRowContext(ctx, `SELECT id, name, role FROM auth_users WHERE name = ?`, norm.NFC.String(name)).Scan(&u.ID, &u.Name, &u.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("user %q: %w", name, ErrNoUser)
	}
	if err != nil {
		return User{}, kr.explain("look up user "+name, err)
	}
	return u, nil
}

// IssueKey creates a key for the named user and returns it in plain text:
// this is the only time it exists outside the caller's hands.
func (kr *Keyring) IssueKey(ctx context.Context, userName string) (string, KeyInfo, error) {
	u, err := kr.user(ctx, kr.db, userName)
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
	res, err := kr.db.ExecContext(ctx, `INSERT INTO auth_keys (id, user_id, hash, created_at)
		SELECT ?, id, ?, ? FROM auth_users WHERE id = ?`, id, hash, now.UnixNano(), u.ID)
	if err != nil {
		return "", KeyInfo{}, kr.explain("issue a key for "+u.Name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 { // removed meanwhile
		return "", KeyInfo{}, fmt.Errorf("user %q: %w", userName, ErrNoUser)
	}
	return key, KeyInfo{ID: id, User: u.Name, Created: now}, nil
}

// Users returns every user, by name.
func (kr *Keyring) Users(ctx context.Context) ([]User, error) {
	rows, err := kr.db.QueryContext(ctx, `SELECT id, name, role FROM auth_users ORDER BY name, id`)
	if err != nil {
		return nil, kr.explain("list users", err)
	}
	defer rows.Close()
	var us []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Name, &u.Role); err != nil {
			return nil, kr.explain("list users", err)
		}
		us = append(us, u)
	}
	if err := rows.Err(); err != nil {
		return nil, kr.explain("list users", err)
	}
	return us, nil
}

// Keys returns the named user's keys, revoked ones included, oldest first.
func (kr *Keyring) Keys(ctx context.Context, userName string) ([]KeyInfo, error) {
	u, err := kr.user(ctx, kr.db, userName)
	if err != nil {
		return nil, err
	}
	rows, err := kr.db.QueryContext(ctx, `SELECT id, created_at, last_used_at, revoked_at
		FROM auth_keys WHERE user_id = ? ORDER BY created_at, id`, u.ID)
	if err != nil {
		return nil, kr.explain("list the keys of "+u.Name, err)
	}
	defer rows.Close()
	var ks []KeyInfo
	for rows.Next() {
		var (
			k                 = KeyInfo{User: u.Name}
			created           int64
			lastUsed, revoked sql.NullInt64
		)
		if err := rows.Scan(&k.ID, &created, &lastUsed, &revoked); err != nil {
			return nil, kr.explain("list the keys of "+u.Name, err)
		}
		k.Created, k.LastUsed, k.Revoked = time.Unix(0, created), fromNanos(lastUsed), fromNanos(revoked)
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, kr.explain("list the keys of "+u.Name, err)
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

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}

// Revoke stops a key from working, at once in this process and on the
// next request in any other. Revoking a revoked key is not an error.
func (kr *Keyring) Revoke(ctx context.Context, keyID string) error {
	if !validKeyID(keyID) {
		return fmt.Errorf("key %q: %w", keyID, ErrNoKey)
	}
	res, err := kr.db.ExecContext(ctx, `UPDATE auth_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, kr.now().UnixNano(), keyID)
	if err != nil {
		return kr.explain("revoke key "+keyID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("key %q: %w", keyID, ErrNoKey)
	}
	kr.forget(func(e verified) bool { return e.keyID == keyID })
	return nil
}

// RemoveUser deletes the named user and all their keys.
func (kr *Keyring) RemoveUser(ctx context.Context, name string) error {
	var u User
	err := kr.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if u, err = kr.user(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM auth_keys WHERE user_id = ?`, u.ID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM auth_users WHERE id = ?`, u.ID)
		return err
	})
	if errors.Is(err, ErrNoUser) {
		return err
	}
	if err != nil {
		return kr.explain("remove user "+name, err)
	}
	kr.forget(func(e verified) bool { return e.userID == u.ID })
	return nil
}

// explain turns SQLite's errors into ones that say what to do.
func (kr *Keyring) explain(doing string, err error) error {
	return sqlitefile.Explain(doing, kr.path, err)
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
