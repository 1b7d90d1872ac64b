package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/store"
)

// CreateSession implements store.Store.
func (db *DB) CreateSession(ctx context.Context, s *store.Session, initial store.Snapshot) error {
	if s.ID == "" {
		return fmt.Errorf("create session: no ID")
	}
	t := now()
	main := store.Branch{ID: newID(), SessionID: s.ID, Name: "main", CreatedAt: fromNanos(t)}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain("create session", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, name, campaign, campaign_path, seed, config, branch_id, head, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
		s.ID, s.Name, s.Campaign, s.CampaignPath, int64(s.Seed), []byte(s.Config), main.ID, t, t); err != nil {
		if isConstraint(err) {
			return fmt.Errorf("session %q: %w", s.ID, store.ErrConflict)
		}
		return db.explain("create session", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO branches (id, session_id, name, parent_id, fork_turn, tip, created_at)
		VALUES (?, ?, 'main', NULL, 0, 0, ?)`, main.ID, s.ID, t); err != nil {
		return db.explain("create session", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO snapshots (branch_id, turn, state, rng_state) VALUES (?, 0, ?, ?)`,
		main.ID, []byte(initial.State), initial.RNGState); err != nil {
		return db.explain("create session", err)
	}
	if err := tx.Commit(); err != nil {
		return db.explain("create session", err)
	}
	s.Branch, s.Head = main.ID, 0
	s.CreatedAt, s.UpdatedAt = fromNanos(t), fromNanos(t)
	db.remember(main)
	return nil
}

func isConstraint(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "UNIQUE constraint") || strings.Contains(err.Error(), "constraint failed"))
}

const sessionCols = `id, name, campaign, campaign_path, seed, config, branch_id, head, created_at, updated_at`

func scanSession(sc interface{ Scan(...any) error }) (store.Session, error) {
	var s store.Session
	var seed, created, updated int64
	var cfg []byte
	err := sc.Scan(&s.ID, &s.Name, &s.Campaign, &s.CampaignPath, &seed, &cfg, &s.Branch, &s.Head, &created, &updated)
	s.Seed = uint64(seed)
	if len(cfg) > 0 {
		s.Config = cfg
	}
	s.CreatedAt, s.UpdatedAt = fromNanos(created), fromNanos(updated)
	return s, err
}

// Session implements store.Store.
func (db *DB) Session(ctx context.Context, id string) (*store.Session, error) {
	s, err := scanSession(db.r.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, db.explain("read session", err)
	}
	return &s, nil
}

// Sessions implements store.Store.
func (db *DB) Sessions(ctx context.Context) ([]store.Session, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions ORDER BY updated_at DESC, id`)
	if err != nil {
		return nil, db.explain("list sessions", err)
	}
	defer rows.Close()
	var out []store.Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, db.explain("list sessions", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SetHead implements store.Store.
func (db *DB) SetHead(ctx context.Context, sessionID, branchID string, head int) error {
	b, err := db.branch(ctx, branchID)
	if err != nil {
		return err
	}
	if b.SessionID != sessionID {
		return fmt.Errorf("branch %q belongs to another session: %w", b.Name, store.ErrConflict)
	}
	tip, err := db.Tip(ctx, branchID)
	if err != nil {
		return err
	}
	if head < 0 || head > tip {
		return fmt.Errorf("turn %d is not on branch %q (turns 0 to %d): %w", head, b.Name, tip, store.ErrConflict)
	}
	res, err := db.w.ExecContext(ctx, `UPDATE sessions SET branch_id = ?, head = ?, updated_at = ? WHERE id = ?`, branchID, head, now(), sessionID)
	if err != nil {
		return db.explain("set head", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", sessionID, store.ErrNotFound)
	}
	return nil
}

// SetConfig implements store.Store.
func (db *DB) SetConfig(ctx context.Context, sessionID string, config json.RawMessage) error {
	if config != nil && !json.Valid(config) {
		return fmt.Errorf("session %q: the config is not valid JSON", sessionID)
	}
	res, err := db.w.ExecContext(ctx, `UPDATE sessions SET config = ?, updated_at = ? WHERE id = ?`, []byte(config), now(), sessionID)
	if err != nil {
		return db.explain("set the session's config", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", sessionID, store.ErrNotFound)
	}
	return nil
}

// DeleteSession implements store.Store.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return db.explain("delete session", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, store.ErrNotFound)
	}
	db.mu.Lock()
	for k, b := range db.branches {
		if b.SessionID == id {
			delete(db.branches, k)
		}
	}
	db.mu.Unlock()
	return nil
}

func (db *DB) remember(b store.Branch) {
	// The cache serves the line of history, which never changes; the notes
	// can, so they are always read from the table.
	b.Description, b.Canonical = "", false
	db.mu.Lock()
	db.branches[b.ID] = b
	db.mu.Unlock()
}

const branchCols = `id, session_id, name, COALESCE(parent_id, ''), fork_turn, description, canonical, created_at`

func scanBranch(sc interface{ Scan(...any) error }) (store.Branch, error) {
	var b store.Branch
	var created int64
	err := sc.Scan(&b.ID, &b.SessionID, &b.Name, &b.ParentID, &b.ForkTurn, &b.Description, &b.Canonical, &created)
	b.CreatedAt = fromNanos(created)
	return b, err
}

// branch returns a branch by ID, from the cache when it can.
func (db *DB) branch(ctx context.Context, id string) (store.Branch, error) {
	db.mu.Lock()
	b, ok := db.branches[id]
	db.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := scanBranch(db.r.QueryRowContext(ctx, `SELECT `+branchCols+` FROM branches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Branch{}, fmt.Errorf("branch %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Branch{}, db.explain("read branch", err)
	}
	db.remember(b)
	return b, nil
}

// chain returns the branch's ancestry, root first.
func (db *DB) chain(ctx context.Context, id string) ([]store.Branch, error) {
	var rev []store.Branch
	for id != "" {
		b, err := db.branch(ctx, id)
		if err != nil {
			return nil, err
		}
		rev = append(rev, b)
		if len(rev) > 10_000 {
			return nil, fmt.Errorf("branch %q: ancestry does not end; the database is damaged", id)
		}
		id = b.ParentID
	}
	out := make([]store.Branch, len(rev))
	for i, b := range rev {
		out[len(rev)-1-i] = b
	}
	return out, nil
}

// CreateBranch implements store.Store.
func (db *DB) CreateBranch(ctx context.Context, b *store.Branch) error {
	if b.Name == "" {
		return fmt.Errorf("create branch: no name")
	}
	parent, err := db.branch(ctx, b.ParentID)
	if err != nil {
		return fmt.Errorf("create branch %q: parent: %w", b.Name, err)
	}
	if parent.SessionID != b.SessionID {
		return fmt.Errorf("create branch %q: parent belongs to another session: %w", b.Name, store.ErrConflict)
	}
	tip, err := db.Tip(ctx, parent.ID)
	if err != nil {
		return err
	}
	if b.ForkTurn < 0 || b.ForkTurn > tip {
		return fmt.Errorf("create branch %q: turn %d is not on %q (turns 0 to %d): %w", b.Name, b.ForkTurn, parent.Name, tip, store.ErrConflict)
	}
	if b.ID == "" {
		b.ID = newID()
	}
	t := now()
	if b.Canonical {
		return fmt.Errorf("create branch %q: mark it canonical with UpdateBranch once it exists", b.Name)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO branches (id, session_id, name, parent_id, fork_turn, tip, description, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, b.ID, b.SessionID, b.Name, b.ParentID, b.ForkTurn, b.ForkTurn, b.Description, t); err != nil {
		if isConstraint(err) {
			return fmt.Errorf("branch %q already exists: %w", b.Name, store.ErrConflict)
		}
		return db.explain("create branch", err)
	}
	b.CreatedAt = fromNanos(t)
	db.remember(*b)
	return nil
}

// Branches implements store.Store.
func (db *DB) Branches(ctx context.Context, sessionID string) ([]store.Branch, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+branchCols+` FROM branches WHERE session_id = ? ORDER BY created_at, rowid`, sessionID)
	if err != nil {
		return nil, db.explain("list branches", err)
	}
	defer rows.Close()
	var out []store.Branch
	for rows.Next() {
		b, err := scanBranch(rows)
		if err != nil {
			return nil, db.explain("list branches", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if _, err := db.Session(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BranchByName implements store.Store.
func (db *DB) BranchByName(ctx context.Context, sessionID, name string) (*store.Branch, error) {
	b, err := scanBranch(db.r.QueryRowContext(ctx, `SELECT `+branchCols+` FROM branches WHERE session_id = ? AND name = ?`, sessionID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("branch %q: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return nil, db.explain("read branch", err)
	}
	return &b, nil
}

// UpdateBranch implements store.Store.
func (db *DB) UpdateBranch(ctx context.Context, branchID string, u store.BranchUpdate) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain("update branch", err)
	}
	defer tx.Rollback()
	var session string
	err = tx.QueryRowContext(ctx, `SELECT session_id FROM branches WHERE id = ?`, branchID).Scan(&session)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("branch %q: %w", branchID, store.ErrNotFound)
	}
	if err != nil {
		return db.explain("update branch", err)
	}
	if u.Description != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE branches SET description = ? WHERE id = ?`, *u.Description, branchID); err != nil {
			return db.explain("update branch", err)
		}
	}
	if u.Canonical != nil {
		if *u.Canonical {
			if _, err := tx.ExecContext(ctx, `UPDATE branches SET canonical = (id = ?) WHERE session_id = ?`, branchID, session); err != nil {
				return db.explain("update branch", err)
			}
		} else if _, err := tx.ExecContext(ctx, `UPDATE branches SET canonical = 0 WHERE id = ?`, branchID); err != nil {
			return db.explain("update branch", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return db.explain("update branch", err)
	}
	return nil
}

const tipSQL = `SELECT tip FROM branches WHERE id = ?`

// Tip implements store.Store. It reads through the writer, whose view of
// the file is current: a turn reads the tip right after the last turn's
// commit, and a reader connection that sees the file changed unmaps its
// whole memory map first, which was most of the read's CPU.
func (db *DB) Tip(ctx context.Context, branchID string) (int, error) {
	st, err := db.stmt(ctx, db.w, tipSQL)
	if err != nil {
		return 0, db.explain("read branch tip", err)
	}
	var tip int
	err = st.QueryRowContext(ctx, branchID).Scan(&tip)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("branch %q: %w", branchID, store.ErrNotFound)
	}
	if err != nil {
		return 0, db.explain("read branch tip", err)
	}
	return tip, nil
}

// The statements of a turn's commit, in the order appendSQL lists them.
const (
	appendTip = iota
	appendTurn
	appendSetTip
	appendLore
	appendSnapshot
	appendHead
)

var appendSQL = [...]string{
	appendTip: `SELECT tip, session_id FROM branches WHERE id = ?`,
	appendTurn: `INSERT INTO turns (branch_id, number, actor, controller, input, intents, effects, rolls, passes, narrative, rng_state, timings, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	appendSetTip:   `UPDATE branches SET tip = ? WHERE id = ?`,
	appendLore:     `INSERT OR REPLACE INTO scene_lore (branch_id, turn, scene, lore, created_at) VALUES (?, ?, ?, ?, ?)`,
	appendSnapshot: `INSERT OR REPLACE INTO snapshots (branch_id, turn, state, rng_state) VALUES (?, ?, ?, ?)`,
	appendHead:     `UPDATE sessions SET branch_id = ?, head = ?, updated_at = ? WHERE id = ?`,
}

// AppendTurn implements store.Store.
func (db *DB) AppendTurn(ctx context.Context, t *store.Turn, snap *store.Snapshot) error {
	if snap != nil && (snap.BranchID != t.BranchID || snap.Turn != t.Number) {
		return fmt.Errorf("append turn %d: the snapshot is for turn %d of another branch or turn", t.Number, snap.Turn)
	}
	// Prepared before the transaction takes the writer's one connection.
	var stmts [len(appendSQL)]*sql.Stmt
	for i, q := range appendSQL {
		st, err := db.stmt(ctx, db.w, q)
		if err != nil {
			return db.explain("append turn", err)
		}
		stmts[i] = st
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.explain("append turn", err)
	}
	defer tx.Rollback()
	// On the writer's connection these are the statements prepared there;
	// the transaction closes its wrappers when it ends.
	in := func(i int) *sql.Stmt { return tx.StmtContext(ctx, stmts[i]) }
	var tip int
	var session string
	if err := in(appendTip).QueryRowContext(ctx, t.BranchID).Scan(&tip, &session); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("append turn: branch %q: %w", t.BranchID, store.ErrNotFound)
		}
		return db.explain("append turn", err)
	}
	if t.Number != tip+1 {
		return fmt.Errorf("append turn %d: the branch ends at turn %d, so the next is %d: %w", t.Number, tip, tip+1, store.ErrConflict)
	}
	ts := now()
	if _, err := in(appendTurn).ExecContext(ctx,
		t.BranchID, t.Number, t.Actor, t.Controller, t.Input, []byte(t.Intents), []byte(t.Effects), []byte(t.Rolls), []byte(t.Passes),
		t.Narrative, t.RNGState, []byte(t.Timings), ts); err != nil {
		return db.explain("append turn", err)
	}
	if _, err := in(appendSetTip).ExecContext(ctx, t.Number, t.BranchID); err != nil {
		return db.explain("append turn", err)
	}
	if l := t.SceneLore; l != nil {
		if _, err := in(appendLore).ExecContext(ctx, t.BranchID, t.Number, l.Scene, []byte(l.Lore), ts); err != nil {
			return db.explain("append turn", err)
		}
		l.BranchID, l.Turn = t.BranchID, t.Number
	}
	if len(t.Memories) > 0 {
		if _, err := sqlitenarrative.InsertEvents(ctx, tx, t.Memories); err != nil {
			return db.explain("append turn: store its memory events", err)
		}
	}
	if snap != nil {
		if _, err := in(appendSnapshot).ExecContext(ctx, snap.BranchID, snap.Turn, []byte(snap.State), snap.RNGState); err != nil {
			return db.explain("append turn", err)
		}
	}
	if _, err := in(appendHead).ExecContext(ctx, t.BranchID, t.Number, ts, session); err != nil {
		return db.explain("append turn", err)
	}
	if err := tx.Commit(); err != nil {
		return db.explain("append turn", err)
	}
	t.SessionID, t.CreatedAt = session, fromNanos(ts)
	return nil
}

// Turns implements store.Store.
func (db *DB) Turns(ctx context.Context, branchID string, from, to int) ([]store.Turn, error) {
	chain, err := db.chain(ctx, branchID)
	if err != nil {
		return nil, err
	}
	var out []store.Turn
	for _, seg := range store.Line(chain) {
		lo, hi := max(from, seg.From), to
		if seg.To >= 0 {
			hi = min(hi, seg.To)
		}
		if lo > hi {
			continue
		}
		rows, err := db.r.QueryContext(ctx, `SELECT number, actor, controller, input, intents, effects, rolls, passes, narrative, rng_state, timings, created_at
			FROM turns WHERE branch_id = ? AND number BETWEEN ? AND ? ORDER BY number`, seg.BranchID, lo, hi)
		if err != nil {
			return nil, db.explain("read turns", err)
		}
		for rows.Next() {
			t := store.Turn{SessionID: chain[0].SessionID, BranchID: seg.BranchID}
			var intents, effects, rolls, passes, timings []byte
			var created int64
			if err := rows.Scan(&t.Number, &t.Actor, &t.Controller, &t.Input, &intents, &effects, &rolls, &passes, &t.Narrative, &t.RNGState, &timings, &created); err != nil {
				rows.Close()
				return nil, db.explain("read turns", err)
			}
			t.Intents, t.Effects, t.Rolls, t.Passes, t.Timings = raw(intents), raw(effects), raw(rolls), raw(passes), raw(timings)
			t.CreatedAt = fromNanos(created)
			out = append(out, t)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func raw(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// Snapshot implements store.Store.
func (db *DB) Snapshot(ctx context.Context, branchID string, atOrBefore int) (*store.Snapshot, error) {
	var s store.Snapshot
	found, err := db.latestOnLine(ctx, branchID, atOrBefore, func(sessionID, branch string, lo, hi int) error {
		s = store.Snapshot{SessionID: sessionID, BranchID: branch}
		return db.r.QueryRowContext(ctx, `SELECT turn, state, rng_state FROM snapshots
			WHERE branch_id = ? AND turn BETWEEN ? AND ? ORDER BY turn DESC LIMIT 1`, branch, lo, hi).Scan(&s.Turn, &s.State, &s.RNGState)
	})
	if err != nil {
		return nil, db.explain("read snapshot", err)
	}
	if !found {
		return nil, fmt.Errorf("no snapshot at or before turn %d on branch %q: %w", atOrBefore, branchID, store.ErrNotFound)
	}
	return &s, nil
}

// latestOnLine walks the branch's line from its end back to its root and
// calls read for each stored segment's part at or before atOrBefore, until
// read finds a row (sql.ErrNoRows means "not in this segment").
func (db *DB) latestOnLine(ctx context.Context, branchID string, atOrBefore int, read func(sessionID, branch string, lo, hi int) error) (bool, error) {
	chain, err := db.chain(ctx, branchID)
	if err != nil {
		return false, err
	}
	segs := store.Line(chain)
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		hi := atOrBefore
		if seg.To >= 0 {
			hi = min(hi, seg.To)
		}
		lo := seg.From
		if i == 0 {
			lo = 0
		}
		if hi < lo {
			continue
		}
		err := read(chain[0].SessionID, seg.BranchID, lo, hi)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		return err == nil, err
	}
	return false, nil
}
