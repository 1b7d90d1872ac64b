package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/store"
)

// PutSceneLore implements store.Store.
func (db *DB) PutSceneLore(ctx context.Context, l *store.SceneLore) error {
	if _, err := db.branch(ctx, l.BranchID); err != nil {
		return fmt.Errorf("store scene lore: %w", err)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT OR REPLACE INTO scene_lore (branch_id, turn, scene, lore, created_at) VALUES (?, ?, ?, ?, ?)`,
		l.BranchID, l.Turn, l.Scene, []byte(l.Lore), now()); err != nil {
		return db.explain("store scene lore", err)
	}
	return nil
}

// SceneLore implements store.Store.
func (db *DB) SceneLore(ctx context.Context, branchID string, atOrBefore int) (*store.SceneLore, error) {
	var l store.SceneLore
	found, err := db.latestOnLine(ctx, branchID, atOrBefore, func(_, branch string, lo, hi int) error {
		l = store.SceneLore{BranchID: branch}
		return db.r.QueryRowContext(ctx, `SELECT turn, scene, lore FROM scene_lore
			WHERE branch_id = ? AND turn BETWEEN ? AND ? ORDER BY turn DESC LIMIT 1`, branch, lo, hi).Scan(&l.Turn, &l.Scene, &l.Lore)
	})
	if err != nil {
		return nil, db.explain("read scene lore", err)
	}
	if !found {
		return nil, fmt.Errorf("no scene lore at or before turn %d on branch %q: %w", atOrBefore, branchID, store.ErrNotFound)
	}
	return &l, nil
}

// StartEpisode implements store.Store.
func (db *DB) StartEpisode(ctx context.Context, e *store.Episode) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain("start episode", err)
	}
	defer tx.Rollback()
	var last, ended int64
	err = tx.QueryRowContext(ctx, `SELECT number, ended_at FROM episodes WHERE session_id = ? ORDER BY number DESC LIMIT 1`, e.SessionID).Scan(&last, &ended)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, e.SessionID).Scan(&n); err != nil {
			return db.explain("start episode", err)
		}
		if n == 0 {
			return fmt.Errorf("start episode: session %q: %w", e.SessionID, store.ErrNotFound)
		}
	case err != nil:
		return db.explain("start episode", err)
	case ended == 0:
		return fmt.Errorf("start episode: episode %d of session %q has not ended: %w", last, e.SessionID, store.ErrConflict)
	}
	ts := now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO episodes (session_id, number, branch_id, first_turn, started_at, recap, lore)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, e.SessionID, last+1, e.BranchID, e.FirstTurn, ts, e.Recap, []byte(e.Lore)); err != nil {
		return db.explain("start episode", err)
	}
	if err := tx.Commit(); err != nil {
		return db.explain("start episode", err)
	}
	e.Number, e.StartedAt, e.LastTurn, e.EndedAt = int(last+1), fromNanos(ts), 0, time.Time{}
	return nil
}

// EndEpisode implements store.Store.
func (db *DB) EndEpisode(ctx context.Context, sessionID string, lastTurn int, summary string) (*store.Episode, error) {
	res, err := db.w.ExecContext(ctx, `UPDATE episodes SET ended_at = ?, last_turn = ?, summary = ?
		WHERE session_id = ? AND ended_at = 0`, now(), lastTurn, summary, sessionID)
	if err != nil {
		return nil, db.explain("end episode", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("end episode: session %q has no open episode: %w", sessionID, store.ErrNotFound)
	}
	eps, err := db.Episodes(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	e := eps[len(eps)-1]
	return &e, nil
}

// Episodes implements store.Store.
func (db *DB) Episodes(ctx context.Context, sessionID string) ([]store.Episode, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT number, branch_id, first_turn, last_turn, started_at, ended_at, recap, summary, lore
		FROM episodes WHERE session_id = ? ORDER BY number`, sessionID)
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
