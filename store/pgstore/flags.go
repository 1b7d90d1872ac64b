package pgstore

import (
	"context"
	"fmt"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/store"
)

// AddFlag implements store.Store.
func (db *DB) AddFlag(ctx context.Context, f *store.Flag) error {
	b, err := db.branch(ctx, f.BranchID)
	if err != nil {
		return fmt.Errorf("flag turn %d: %w", f.Turn, err)
	}
	var n int
	if err := db.h.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM turns WHERE branch_id = $1 AND number = $2`, f.BranchID, f.Turn).Scan(&n); err != nil {
		return db.explain("flag turn", err)
	}
	if n == 0 {
		return fmt.Errorf("flag turn %d: no such turn on branch %q: %w", f.Turn, f.BranchID, store.ErrNotFound)
	}
	ts := now()
	err = db.h.Pool().QueryRow(ctx, `INSERT INTO turn_flags (session_id, branch_id, turn, by_user, reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, b.SessionID, f.BranchID, f.Turn, f.By, f.Reason, ts).Scan(&f.ID)
	if pgdb.IsForeignKey(err) { // the session went away meanwhile
		return fmt.Errorf("flag turn %d: branch %q: %w", f.Turn, f.BranchID, store.ErrNotFound)
	}
	if err != nil {
		return db.explain("flag turn", err)
	}
	f.SessionID, f.CreatedAt = b.SessionID, fromNanos(ts)
	return nil
}

// Flags implements store.Store.
func (db *DB) Flags(ctx context.Context, branchID string) ([]store.Flag, error) {
	chain, err := db.chain(ctx, branchID)
	if err != nil {
		return nil, err
	}
	var out []store.Flag
	for _, seg := range store.Line(chain) {
		hi := seg.To
		if hi < 0 {
			hi = 1 << 30
		}
		rows, err := db.h.Pool().Query(ctx, `SELECT id, turn, by_user, reason, created_at FROM turn_flags
			WHERE branch_id = $1 AND turn BETWEEN $2 AND $3 ORDER BY turn, id`, seg.BranchID, seg.From, hi)
		if err != nil {
			return nil, db.explain("read flags", err)
		}
		for rows.Next() {
			f := store.Flag{SessionID: chain[0].SessionID, BranchID: seg.BranchID}
			var created int64
			if err := rows.Scan(&f.ID, &f.Turn, &f.By, &f.Reason, &created); err != nil {
				rows.Close()
				return nil, db.explain("read flags", err)
			}
			f.CreatedAt = fromNanos(created)
			out = append(out, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, db.explain("read flags", err)
		}
	}
	return out, nil
}
