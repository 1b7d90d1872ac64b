package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/store"
)

// PutSceneLore implements store.Store.
func (db *DB) PutSceneLore(ctx context.Context, l *store.SceneLore) error {
	if _, err := db.branch(ctx, l.BranchID); err != nil {
		return fmt.Errorf("store scene lore: %w", err)
	}
	_, err := db.h.Pool().Exec(ctx, `INSERT INTO scene_lore (branch_id, turn, scene, lore, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (branch_id, turn) DO UPDATE SET scene = excluded.scene, lore = excluded.lore, created_at = excluded.created_at`,
		l.BranchID, l.Turn, l.Scene, []byte(l.Lore), now())
	if pgdb.IsForeignKey(err) { // deleted since it was cached
		return fmt.Errorf("store scene lore: branch %q: %w", l.BranchID, store.ErrNotFound)
	}
	if err != nil {
		return db.explain("store scene lore", err)
	}
	return nil
}

// SceneLore implements store.Store.
func (db *DB) SceneLore(ctx context.Context, branchID string, atOrBefore int) (*store.SceneLore, error) {
	var l store.SceneLore
	found, err := db.latestOnLine(ctx, branchID, atOrBefore, func(_, branch string, lo, hi int) error {
		l = store.SceneLore{BranchID: branch}
		return db.h.Pool().QueryRow(ctx, `SELECT turn, scene, lore FROM scene_lore
			WHERE branch_id = $1 AND turn BETWEEN $2 AND $3 ORDER BY turn DESC LIMIT 1`, branch, lo, hi).Scan(&l.Turn, &l.Scene, &l.Lore)
	})
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		return nil, db.explain("read scene lore", err)
	}
	if !found {
		return nil, fmt.Errorf("no scene lore at or before turn %d on branch %q: %w", atOrBefore, branchID, store.ErrNotFound)
	}
	return &l, nil
}

// StartEpisode implements store.Store.
func (db *DB) StartEpisode(ctx context.Context, e *store.Episode) error {
	ts := now()
	var last int
	err := db.h.Tx(ctx, func(tx pgx.Tx) error {
		// The session's row serialises episode starts, across processes.
		var id string
		if err := tx.QueryRow(ctx, `SELECT id FROM sessions WHERE id = $1 FOR NO KEY UPDATE`, e.SessionID).Scan(&id); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("start episode: session %q: %w", e.SessionID, store.ErrNotFound)
			}
			return err
		}
		var ended int64
		err := tx.QueryRow(ctx, `SELECT number, ended_at FROM episodes WHERE session_id = $1 ORDER BY number DESC LIMIT 1`, e.SessionID).Scan(&last, &ended)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case ended == 0:
			return fmt.Errorf("start episode: episode %d of session %q has not ended: %w", last, e.SessionID, store.ErrConflict)
		}
		_, err = tx.Exec(ctx, `INSERT INTO episodes (session_id, number, branch_id, first_turn, started_at, recap, lore)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.SessionID, last+1, e.BranchID, e.FirstTurn, ts, e.Recap, []byte(e.Lore))
		return err
	})
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err != nil {
		return db.explain("start episode", err)
	}
	e.Number, e.StartedAt, e.LastTurn, e.EndedAt = last+1, fromNanos(ts), 0, time.Time{}
	return nil
}

// EndEpisode implements store.Store.
func (db *DB) EndEpisode(ctx context.Context, sessionID string, lastTurn int, summary string) (*store.Episode, error) {
	var n int
	err := db.h.Pool().QueryRow(ctx, `UPDATE episodes SET ended_at = $1, last_turn = $2, summary = $3
		WHERE session_id = $4 AND ended_at = 0 RETURNING number`, now(), lastTurn, summary, sessionID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("end episode: session %q has no open episode: %w", sessionID, store.ErrNotFound)
	}
	if err != nil {
		return nil, db.explain("end episode", err)
	}
	eps, err := db.Episodes(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	for _, e := range eps {
		if e.Number == n {
			return &e, nil
		}
	}
	return nil, fmt.Errorf("end episode: episode %d of session %q went away: %w", n, sessionID, store.ErrNotFound)
}

// Episodes implements store.Store.
func (db *DB) Episodes(ctx context.Context, sessionID string) ([]store.Episode, error) {
	rows, err := db.h.Pool().Query(ctx, `SELECT number, branch_id, first_turn, last_turn, started_at, ended_at, recap, summary, lore
		FROM episodes WHERE session_id = $1 ORDER BY number`, sessionID)
	if err != nil {
		return nil, db.explain("list episodes", err)
	}
	defer rows.Close()
	var out []store.Episode
	for rows.Next() {
		e := store.Episode{SessionID: sessionID}
		var started, ended int64
		var lore []byte
		if err := rows.Scan(&e.Number, &e.BranchID, &e.FirstTurn, &e.LastTurn, &started, &ended, &e.Recap, &e.Summary, &lore); err != nil {
			return nil, db.explain("list episodes", err)
		}
		e.StartedAt, e.Lore = fromNanos(started), raw(lore)
		if ended != 0 {
			e.EndedAt = fromNanos(ended)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.explain("list episodes", err)
	}
	return out, nil
}
