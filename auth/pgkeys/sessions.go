package pgkeys

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

var _ auth.SessionStore = (*Store)(nil)

// AddSession implements auth.SessionStore: the insert finds its key in the
// same statement, so a key deleted meanwhile gets no session.
func (s *Store) AddSession(ctx context.Context, st auth.StoredSession) error {
	tag, err := s.h.Pool().Exec(ctx, `INSERT INTO auth_sessions (id_hash, key_id, csrf, created_at, seen_at)
		SELECT $1, id, $2, $3, $4 FROM auth_keys WHERE id = $5`,
		st.Hash, st.CSRF, st.Created.UnixNano(), st.Seen.UnixNano(), st.KeyID)
	if pgdb.IsForeignKey(err) || (err == nil && tag.RowsAffected() == 0) {
		return auth.ErrNoKey // gone, or going as we insert
	}
	return s.explain("start a session", err)
}

// Session implements auth.SessionStore.
func (s *Store) Session(ctx context.Context, hash string) (auth.StoredSession, error) {
	st := auth.StoredSession{Hash: hash}
	var created, seen int64
	err := s.h.Pool().QueryRow(ctx, `SELECT key_id, csrf, created_at, seen_at FROM auth_sessions WHERE id_hash = $1`, hash).
		Scan(&st.KeyID, &st.CSRF, &created, &seen)
	if errors.Is(err, pgx.ErrNoRows) {
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
	_, err := s.h.Pool().Exec(ctx, `UPDATE auth_sessions SET seen_at = GREATEST(seen_at, $1) WHERE id_hash = $2`, seen.UnixNano(), hash)
	return s.explain("record when a session was used", err)
}

// DeleteSession implements auth.SessionStore.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.h.Pool().Exec(ctx, `DELETE FROM auth_sessions WHERE id_hash = $1`, hash)
	return s.explain("end a session", err)
}

// DeleteExpiredSessions implements auth.SessionStore.
func (s *Store) DeleteExpiredSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int64, error) {
	tag, err := s.h.Pool().Exec(ctx, `DELETE FROM auth_sessions WHERE seen_at < $1 OR created_at < $2`,
		seenBefore.UnixNano(), createdBefore.UnixNano())
	if err != nil {
		return 0, s.explain("delete expired sessions", err)
	}
	return tag.RowsAffected(), nil
}
