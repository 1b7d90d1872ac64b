// Package sqlitekeys keeps auth's users, API keys and browser sessions in
// SQLite: the auth.Store and auth.SessionStore of the shared Hearth
// database (package database), or of a file of its own for tests and
// tools. A session's row dies with its key's.
//
// Times are Unix nanoseconds; a NULL check_bits is a key issued before
// they existed, a NULL revoked_at an active key, a NULL last_used_at one
// never used. The component's migrations keep the name "auth" and their
// numbers, so a database of any earlier round upgrades in place.
//
// auth_generation holds one value that triggers change with every write
// to the users and keys (see migration 0004); Key reads it on every call
// and reads a key's row only when it changed since the row was last read.
package sqlitekeys

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/internal/keptkeys"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/internal/sqlitefile"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the users' and keys' numbered files, for a handle
// shared with the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "auth", FS: migrations, Dir: "migrations",
	Legacy: "auth_schema", What: "the users and keys"}

// Store is an auth.Store in SQLite. It is safe for concurrent use.
type Store struct {
	h      *sqlitedb.DB
	own    bool // Close closes h: Open opened it
	w      *sql.DB
	r      *sql.DB
	lookup *sql.Stmt // a key's row and its user's
	gen    *sql.Stmt // the generation: read on every request

	keys  keptkeys.Keys // lookups kept with the generation read before them
	reads atomic.Int64  // key rows read, for tests
	rd    readers       // where Key's reads run
}

var _ auth.Store = (*Store)(nil)

// New keeps users and keys in the shared handle h, whose migrations must
// include Migrations. Close does not close h.
func New(ctx context.Context, h *sqlitedb.DB) (*Store, error) {
	s := &Store{h: h, w: h.Writer(), r: h.Reader()}
	var err error
	s.lookup, err = s.r.PrepareContext(ctx, `SELECT k.hash, k.check_bits, k.created_at, k.revoked_at, u.id, u.name, u.role
		FROM auth_keys k JOIN auth_users u ON u.id = k.user_id WHERE k.id = ?`)
	if err != nil {
		return nil, s.explain("open the keyring", err)
	}
	s.gen, err = s.r.PrepareContext(ctx, `SELECT n FROM auth_generation WHERE id = 1`)
	if err != nil {
		s.lookup.Close()
		return nil, s.explain("open the keyring", err)
	}
	s.rd.start(s.key)
	return s, nil
}

// Open opens (creating if needed) the users and keys in the SQLite file at
// path, only their tables brought up to date, for tests and tools; Hearth
// itself opens every store at once (package database).
func Open(ctx context.Context, path string) (*Store, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open the keyring: %w", err)
	}
	s, err := New(ctx, h)
	if err != nil {
		h.Close()
		return nil, err
	}
	s.own = true
	return s, nil
}

// OpenKeyring is Open under an auth.Keyring, which closes the file when it
// is closed.
func OpenKeyring(ctx context.Context, path string, opts ...auth.Option) (*auth.Keyring, error) {
	s, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	kr, err := auth.New(s, opts...)
	if err != nil {
		s.Close()
		return nil, err
	}
	return kr, nil
}

// Close closes the prepared statements, and the file when Open opened it.
func (s *Store) Close() error {
	s.rd.close()
	err := errors.Join(s.lookup.Close(), s.gen.Close())
	if s.own {
		err = errors.Join(err, s.h.Close())
	}
	return err
}

// AddUser implements auth.Store; names are unique by the column's NOCASE
// collation.
func (s *Store) AddUser(ctx context.Context, u auth.User, created time.Time) error {
	res, err := s.w.ExecContext(ctx, `INSERT INTO auth_users (id, name, role, created_at)
		SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM auth_users WHERE name = ?)`,
		u.ID, u.Name, int(u.Role), created.UnixNano(), u.Name)
	if err != nil {
		return s.explain("add user "+u.Name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return auth.ErrUserExists
	}
	return nil
}

type queryer interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// User implements auth.Store.
func (s *Store) User(ctx context.Context, name string) (auth.User, error) {
	return s.user(ctx, s.r, name)
}

func (s *Store) user(ctx context.Context, q queryer, name string) (auth.User, error) {
	var u auth.User
	err := q.QueryRowContext(ctx, `SELECT id, name, role FROM auth_users WHERE name = ?`, name).Scan(&u.ID, &u.Name, &u.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.User{}, auth.ErrNoUser
	}
	if err != nil {
		return auth.User{}, s.explain("look up user "+name, err)
	}
	return u, nil
}

// Users implements auth.Store.
func (s *Store) Users(ctx context.Context) ([]auth.User, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, name, role FROM auth_users ORDER BY name, id`)
	if err != nil {
		return nil, s.explain("list users", err)
	}
	defer rows.Close()
	var us []auth.User
	for rows.Next() {
		var u auth.User
		if err := rows.Scan(&u.ID, &u.Name, &u.Role); err != nil {
			return nil, s.explain("list users", err)
		}
		us = append(us, u)
	}
	if err := rows.Err(); err != nil {
		return nil, s.explain("list users", err)
	}
	return us, nil
}

// RemoveUser implements auth.Store, in one transaction.
func (s *Store) RemoveUser(ctx context.Context, name string) (auth.User, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return auth.User{}, s.explain("remove user "+name, err)
	}
	defer tx.Rollback()
	u, err := s.user(ctx, tx, name)
	if err != nil {
		return auth.User{}, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM auth_keys WHERE user_id = ?`, u.ID); err != nil {
		return auth.User{}, s.explain("remove user "+name, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM auth_users WHERE id = ?`, u.ID); err != nil {
		return auth.User{}, s.explain("remove user "+name, err)
	}
	if err := tx.Commit(); err != nil {
		return auth.User{}, s.explain("remove user "+name, err)
	}
	return u, nil
}

// AddKey implements auth.Store: the insert finds its user in the same
// statement, so a user removed meanwhile gets no key.
func (s *Store) AddKey(ctx context.Context, k auth.StoredKey) error {
	res, err := s.w.ExecContext(ctx, `INSERT INTO auth_keys (id, user_id, hash, check_bits, created_at, revoked_at)
		SELECT ?, id, ?, ?, ?, ? FROM auth_users WHERE id = ?`,
		k.ID, k.Hash, nullInt(k.Check, k.HasCheck), k.Created.UnixNano(), nanos(k.Revoked), k.UserID)
	if err != nil {
		return s.explain("add key "+k.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return auth.ErrNoUser
	}
	return nil
}

// Key implements auth.Store. It reads the keys' generation on every
// call, so a key revoked or removed by another process is refused at
// once, and the key's row only when the generation is not the one it was
// last read after. The reads run on the store's readers (see readers).
//
// A key's lookup is kept with the generation read just before it.
// The triggers of migration 0004 give the generation a new random value
// with every write to the users and keys (any process's), so while a
// request reads gen again, nothing the lookup read has changed since,
// and the read of one integer stands for the join of two rows.
func (s *Store) Key(ctx context.Context, id string) (auth.StoredKey, auth.User, error) {
	return s.rd.do(id)
}

// key is Key, on a reader. Its reads are not cancelled with the request:
// they return at once, and watching a cancellable context cost the
// driver and database/sql a goroutine each, on every request.
func (s *Store) key(id string) (auth.StoredKey, auth.User, error) {
	ctx := context.Background()
	var gen int64
	if err := s.gen.QueryRowContext(ctx).Scan(&gen); err != nil {
		return auth.StoredKey{}, auth.User{}, s.explain("look up key "+id, err)
	}
	return s.keys.Lookup(id, gen, func() (auth.StoredKey, auth.User, error) { return s.readKey(ctx, id) })
}

// readKey reads key id's row and its user's.
func (s *Store) readKey(ctx context.Context, id string) (auth.StoredKey, auth.User, error) {
	s.reads.Add(1)
	k := auth.StoredKey{ID: id}
	var (
		u       auth.User
		check   sql.NullInt64
		created int64
		revoked sql.NullInt64
	)
	err := s.lookup.QueryRowContext(ctx, id).Scan(&k.Hash, &check, &created, &revoked, &u.ID, &u.Name, &u.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.StoredKey{}, auth.User{}, auth.ErrNoKey
	}
	if err != nil {
		return auth.StoredKey{}, auth.User{}, s.explain("look up key "+id, err)
	}
	k.UserID, k.Check, k.HasCheck = u.ID, check.Int64, check.Valid
	k.Created, k.Revoked = time.Unix(0, created), fromNanos(revoked)
	return k, u, nil
}

// Keys implements auth.Store.
func (s *Store) Keys(ctx context.Context, userID string) ([]auth.KeyInfo, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, created_at, last_used_at, revoked_at
		FROM auth_keys WHERE user_id = ? ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, s.explain("list keys", err)
	}
	defer rows.Close()
	var ks []auth.KeyInfo
	for rows.Next() {
		var (
			k                 auth.KeyInfo
			created           int64
			lastUsed, revoked sql.NullInt64
		)
		if err := rows.Scan(&k.ID, &created, &lastUsed, &revoked); err != nil {
			return nil, s.explain("list keys", err)
		}
		k.Created, k.LastUsed, k.Revoked = time.Unix(0, created), fromNanos(lastUsed), fromNanos(revoked)
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.explain("list keys", err)
	}
	return ks, nil
}

// SetCheck implements auth.Store.
func (s *Store) SetCheck(ctx context.Context, id, hash string, check int64) error {
	_, err := s.w.ExecContext(ctx, `UPDATE auth_keys SET check_bits = ? WHERE id = ? AND hash = ? AND check_bits IS NULL`, check, id, hash)
	return s.explain("record the check bits of key "+id, err)
}

// RecordUse implements auth.Store, in one transaction.
func (s *Store) RecordUse(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.explain("record when keys were last used", err)
	}
	defer tx.Rollback()
	for id, t := range used {
		if _, err := tx.ExecContext(ctx, `UPDATE auth_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`, t.UnixNano(), id); err != nil {
			return s.explain("record when keys were last used", err)
		}
	}
	return s.explain("record when keys were last used", tx.Commit())
}

// Revoke implements auth.Store.
func (s *Store) Revoke(ctx context.Context, id string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE auth_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, at.UnixNano(), id)
	if err != nil {
		return s.explain("revoke key "+id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return auth.ErrNoKey
	}
	return nil
}

// explain turns SQLite's errors into ones that say what to do; nil stays
// nil.
func (s *Store) explain(doing string, err error) error {
	return sqlitefile.Explain(doing, s.h.Path(), err)
}

func nullInt(v int64, ok bool) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: ok} }

func nanos(t time.Time) sql.NullInt64 { return nullInt(t.UnixNano(), !t.IsZero()) }

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}

var _ auth.SessionStore = (*Store)(nil)

// AddSession implements auth.SessionStore: the insert finds its key in the
// same statement, so a key deleted meanwhile gets no session.
func (s *Store) AddSession(ctx context.Context, st auth.StoredSession) error {
	res, err := s.w.ExecContext(ctx, `INSERT INTO auth_sessions (id_hash, key_id, csrf, created_at, seen_at)
		SELECT ?, id, ?, ?, ? FROM auth_keys WHERE id = ?`,
		st.Hash, st.CSRF, st.Created.UnixNano(), st.Seen.UnixNano(), st.KeyID)
	if err != nil {
		return s.explain("start a session", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return auth.ErrNoKey
	}
	return nil
}

// Session implements auth.SessionStore.
func (s *Store) Session(ctx context.Context, hash string) (auth.StoredSession, error) {
	st := auth.StoredSession{Hash: hash}
	var created, seen int64
	err := s.r.QueryRowContext(ctx, `SELECT key_id, csrf, created_at, seen_at FROM auth_sessions WHERE id_hash = ?`, hash).
		Scan(&st.KeyID, &st.CSRF, &created, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.StoredSession{}, auth.ErrNoSession
	}
	if err != nil {
		return auth.StoredSession{}, s.explain("look up a session", err)
	}
	st.Created, st.Seen = time.Unix(0, created), time.Unix(0, seen)
	return st, nil
}

// TouchSession implements auth.SessionStore.
func (s *Store) TouchSession(ctx context.Context, hash string, seen time.Time) error {
	_, err := s.w.ExecContext(ctx, `UPDATE auth_sessions SET seen_at = MAX(seen_at, ?) WHERE id_hash = ?`, seen.UnixNano(), hash)
	return s.explain("record when a session was used", err)
}

// DeleteSession implements auth.SessionStore.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM auth_sessions WHERE id_hash = ?`, hash)
	return s.explain("end a session", err)
}

// DeleteExpiredSessions implements auth.SessionStore.
func (s *Store) DeleteExpiredSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int64, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM auth_sessions WHERE seen_at < ? OR created_at < ?`,
		seenBefore.UnixNano(), createdBefore.UnixNano())
	if err != nil {
		return 0, s.explain("delete expired sessions", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
