package pgkeys

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/internal/keptkeys"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the users' and keys' numbered files.
var Migrations = pgdb.Migrations{Component: "auth", FS: migrations, Dir: "migrations", What: "the users and keys"}

// Store is an auth.Store in PostgreSQL. It is safe for concurrent use.
type Store struct {
	h   *pgdb.DB
	own bool // Close closes h: Open opened it

	keys  keptkeys.Keys // lookups kept with the generation read before them
	reads atomic.Int64  // key rows read, for tests
}

const (
	genQuery    = `SELECT n FROM auth_generation WHERE id = 1`
	lookupQuery = `SELECT k.hash, k.check_bits, k.created_at, k.revoked_at, u.id, u.name, u.role
		FROM auth_keys k JOIN auth_users u ON u.id = k.user_id WHERE k.id = $1`
)

var _ auth.Store = (*Store)(nil)

// New keeps users and keys through h, whose migrations must include
// Migrations. Close does not close h.
func New(h *pgdb.DB) *Store { return &Store{h: h} }

// Open connects to the database at url with only the users' and keys'
// tables brought up to date, for tests and tools.
func Open(ctx context.Context, url string) (*Store, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open the keyring: %w", err)
	}
	return &Store{h: h, own: true}, nil
}

// Close closes the handle when Open opened it. A second Close does
// nothing.
func (s *Store) Close() error {
	if s.own {
		s.own = false
		return s.h.Close()
	}
	return nil
}

// AddUser implements auth.Store.
func (s *Store) AddUser(ctx context.Context, u auth.User, created time.Time) error {
	_, err := s.h.Pool().Exec(ctx, `INSERT INTO auth_users (id, name, role, created_at) VALUES ($1, $2, $3, $4)`,
		u.ID, u.Name, int(u.Role), created.UnixNano())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.ConstraintName == "auth_users_name" {
		return auth.ErrUserExists
	}
	return s.explain("add user "+u.Name, err)
}

// User implements auth.Store.
func (s *Store) User(ctx context.Context, name string) (auth.User, error) {
	return s.user(ctx, s.h.Pool(), name)
}

type queryer interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}

func (s *Store) user(ctx context.Context, q queryer, name string) (auth.User, error) {
	var u auth.User
	err := q.QueryRow(ctx, `SELECT id, name, role FROM auth_users WHERE lower(name) = lower($1::text COLLATE "C")`, name).Scan(&u.ID, &u.Name, &u.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.User{}, auth.ErrNoUser
	}
	if err != nil {
		return auth.User{}, s.explain("look up user "+name, err)
	}
	return u, nil
}

// Users implements auth.Store.
func (s *Store) Users(ctx context.Context) ([]auth.User, error) {
	rows, err := s.h.Pool().Query(ctx, `SELECT id, name, role FROM auth_users ORDER BY lower(name), id`)
	if err != nil {
		return nil, s.explain("list users", err)
	}
	us, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (auth.User, error) {
		var u auth.User
		err := r.Scan(&u.ID, &u.Name, &u.Role)
		return u, err
	})
	if err != nil {
		return nil, s.explain("list users", err)
	}
	return us, nil
}

// RemoveUser implements auth.Store, in one transaction; the keys go with
// the user by the foreign key's cascade.
func (s *Store) RemoveUser(ctx context.Context, name string) (auth.User, error) {
	var u auth.User
	err := s.h.Tx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `DELETE FROM auth_users WHERE lower(name) = lower($1::text COLLATE "C") RETURNING id, name, role`, name).Scan(&u.ID, &u.Name, &u.Role)
		if errors.Is(err, pgx.ErrNoRows) {
			return auth.ErrNoUser
		}
		return err
	})
	if errors.Is(err, auth.ErrNoUser) {
		return auth.User{}, err
	}
	if err != nil {
		return auth.User{}, s.explain("remove user "+name, err)
	}
	return u, nil
}

// AddKey implements auth.Store: the insert finds its user in the same
// statement, so a user removed meanwhile gets no key.
func (s *Store) AddKey(ctx context.Context, k auth.StoredKey) error {
	tag, err := s.h.Pool().Exec(ctx, `INSERT INTO auth_keys (id, user_id, hash, check_bits, created_at, revoked_at)
		SELECT $1, id, $2, $3, $4, $5 FROM auth_users WHERE id = $6`,
		k.ID, k.Hash, nullInt(k.Check, k.HasCheck), k.Created.UnixNano(), nanos(k.Revoked), k.UserID)
	if pgdb.IsForeignKey(err) { // removed between the select and the insert
		return auth.ErrNoUser
	}
	if err != nil {
		return s.explain("add key "+k.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return auth.ErrNoUser
	}
	return nil
}

// Key implements auth.Store. It reads the keys' generation on every
// call (one prepared statement, cached by pgx on each connection), so a
// key revoked or removed by another server or by psql is refused at
// once, and the key's row only when the generation is not the one it was
// last read after.
//
// A key's lookup is kept with the generation read just before it.
// The triggers of migration 0003 give the generation a new random value
// in every transaction that writes the users or keys (any server's, or
// psql's), committed with the write. Each statement of a read sees every
// transaction committed before it began, so a lookup read after gen
// reflects at least the writes gen does; while a request reads gen again,
// nothing the lookup read has changed since.
func (s *Store) Key(ctx context.Context, id string) (auth.StoredKey, auth.User, error) {
	var gen int64
	if err := s.h.Pool().QueryRow(ctx, genQuery).Scan(&gen); err != nil {
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
		check   *int64
		created int64
		revoked *int64
	)
	err := s.h.Pool().QueryRow(ctx, lookupQuery, id).
		Scan(&k.Hash, &check, &created, &revoked, &u.ID, &u.Name, &u.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.StoredKey{}, auth.User{}, auth.ErrNoKey
	}
	if err != nil {
		return auth.StoredKey{}, auth.User{}, s.explain("look up key "+id, err)
	}
	if check != nil {
		k.Check, k.HasCheck = *check, true
	}
	k.UserID, k.Created, k.Revoked = u.ID, time.Unix(0, created), fromNanos(revoked)
	return k, u, nil
}

// Keys implements auth.Store.
func (s *Store) Keys(ctx context.Context, userID string) ([]auth.KeyInfo, error) {
	rows, err := s.h.Pool().Query(ctx, `SELECT id, created_at, last_used_at, revoked_at
		FROM auth_keys WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, s.explain("list keys", err)
	}
	ks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (auth.KeyInfo, error) {
		var (
			k                 auth.KeyInfo
			created           int64
			lastUsed, revoked *int64
		)
		err := r.Scan(&k.ID, &created, &lastUsed, &revoked)
		k.Created, k.LastUsed, k.Revoked = time.Unix(0, created), fromNanos(lastUsed), fromNanos(revoked)
		return k, err
	})
	if err != nil {
		return nil, s.explain("list keys", err)
	}
	return ks, nil
}

// SetCheck implements auth.Store.
func (s *Store) SetCheck(ctx context.Context, id, hash string, check int64) error {
	_, err := s.h.Pool().Exec(ctx, `UPDATE auth_keys SET check_bits = $1 WHERE id = $2 AND hash = $3 AND check_bits IS NULL`, check, id, hash)
	return s.explain("record the check bits of key "+id, err)
}

// RecordUse implements auth.Store, in one transaction. Keys are updated
// in id order, so two servers recording at once cannot deadlock.
func (s *Store) RecordUse(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	err := s.h.Tx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, id := range ids {
			b.Queue(`UPDATE auth_keys SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $1) WHERE id = $2`, used[id].UnixNano(), id)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return s.explain("record when keys were last used", err)
}

// Revoke implements auth.Store.
func (s *Store) Revoke(ctx context.Context, id string, at time.Time) error {
	tag, err := s.h.Pool().Exec(ctx, `UPDATE auth_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, at.UnixNano(), id)
	if err != nil {
		return s.explain("revoke key "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return auth.ErrNoKey
	}
	return nil
}

// explain names the database in err; nil stays nil.
func (s *Store) explain(doing string, err error) error { return s.h.Explain(doing, err) }

func nullInt(v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	return &v
}

func nanos(t time.Time) *int64 { return nullInt(t.UnixNano(), !t.IsZero()) }

func fromNanos(n *int64) time.Time {
	if n == nil {
		return time.Time{}
	}
	return time.Unix(0, *n)
}
