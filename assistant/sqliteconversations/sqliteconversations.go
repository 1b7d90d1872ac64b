// Package sqliteconversations keeps the GM assistant's conversations in
// SQLite: the assistant.Conversations of the shared Hearth database
// (package database), or of a file of its own for tests and tools.
//
// Messages and metadata are JSON columns; times are RFC 3339 text in UTC.
// The component's migrations keep the name "conversations" and their
// numbers, so a database of any earlier round upgrades in place.
package sqliteconversations

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/internal/jsonstring"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the conversation tables' numbered files, for a handle
// shared with the other stores (see package database).
var Migrations = sqlitedb.Migrations{Component: "conversations", FS: migrations, Dir: "migrations",
	Legacy: "assistant_schema", What: "the conversations"}

// Store is an assistant.Conversations in SQLite. It is safe for
// concurrent use.
type Store struct {
	h   *sqlitedb.DB
	own bool    // Close closes h: it was opened by Open
	w   *sql.DB // the one writer
	r   *sql.DB // the readers

	stmts sqlitedb.Stmts // the hot statements, prepared on first use

	saves saveQueue
}

var _ assistant.Conversations = (*Store)(nil)

// New keeps conversations in the shared handle h, whose migrations must
// include Migrations. Close does not close h.
func New(h *sqlitedb.DB) *Store {
	return &Store{h: h, w: h.Writer(), r: h.Reader(), stmts: sqlitedb.Stmts{What: "the conversation store"}}
}

// Open opens (creating if needed) the conversation tables in
// the SQLite file at path, only those brought up to date, for tests and
// tools; Hearth itself opens every store at once (package database).
func Open(ctx context.Context, path string) (*Store, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{Migrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open conversations: %w", err)
	}
	c := New(h)
	c.own = true
	return c, nil
}

// Close closes the prepared statements, and the database when Open
// opened it.
func (c *Store) Close() error {
	errs := []error{c.stmts.Close()}
	if c.own {
		errs = append(errs, c.h.Close())
	}
	return errors.Join(errs...)
}

// stmt returns query prepared on pool, preparing it on first use.
func (c *Store) stmt(ctx context.Context, pool *sql.DB, query string) (*sql.Stmt, error) {
	return c.stmts.Get(ctx, pool, query)
}

const timeFormat = time.RFC3339Nano

const getSQL = `SELECT id, user_id, created_at, updated_at, messages, metadata
		FROM assistant_conversations WHERE id = ? AND user_id = ?`

// Get implements assistant.Conversations.
func (c *Store) Get(ctx context.Context, userID, id string) (assistant.Conversation, error) {
	var conv assistant.Conversation
	var created, updated, msgs, meta string
	st, err := c.stmt(ctx, c.r, getSQL)
	if err != nil {
		return conv, fmt.Errorf("read conversation %s: %w", id, err)
	}
	err = st.QueryRowContext(ctx, id, userID).Scan(&conv.ID, &conv.UserID, &created, &updated, &msgs, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return conv, assistant.ErrNotFound
	}
	if err != nil {
		return conv, fmt.Errorf("read conversation %s: %w", id, err)
	}
	conv.Created, _ = time.Parse(timeFormat, created)
	conv.Updated, _ = time.Parse(timeFormat, updated)
	if err := json.Unmarshal([]byte(msgs), &conv.Messages); err != nil {
		return conv, fmt.Errorf("conversation %s: messages: %w", id, err)
	}
	if err := json.Unmarshal([]byte(meta), &conv.Metadata); err != nil {
		return conv, fmt.Errorf("conversation %s: metadata: %w", id, err)
	}
	return conv, nil
}

// Exists implements assistant.Conversations.
func (c *Store) Exists(ctx context.Context, id string) (bool, error) {
	var n int
	if err := c.r.QueryRowContext(ctx, `SELECT count(*) FROM assistant_conversations WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up conversation %s: %w", id, err)
	}
	return n > 0, nil
}

// saveSQL creates a conversation or updates its owner's.
const saveSQL = `INSERT INTO assistant_conversations (id, user_id, created_at, updated_at, messages, metadata)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, messages = excluded.messages, metadata = excluded.metadata
		WHERE assistant_conversations.user_id = excluded.user_id`

// Save implements assistant.Conversations: the save is queued and
// committed with the others waiting (see commit), and Save returns once
// its own row is committed.
func (c *Store) Save(ctx context.Context, conv assistant.Conversation) error {
	msgs, err := jsonstring.Marshal(conv.Messages)
	if err != nil {
		return err
	}
	meta, err := jsonstring.Marshal(conv.Metadata)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save conversation %s: %w", conv.ID, err)
	}
	return c.save(ctx, &pendingSave{ctx: ctx, id: conv.ID, args: []any{conv.ID, conv.UserID,
		conv.Created.UTC().Format(timeFormat), conv.Updated.UTC().Format(timeFormat), msgs, meta},
		done: make(chan saveResult, 1)})
}

// List implements assistant.Conversations.
func (c *Store) List(ctx context.Context, userID string) ([]assistant.Summary, error) {
	rows, err := c.r.QueryContext(ctx, `SELECT id, created_at, updated_at, json_array_length(messages)
		FROM assistant_conversations WHERE user_id = ? ORDER BY updated_at DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []assistant.Summary
	for rows.Next() {
		var s assistant.Summary
		var created, updated string
		if err := rows.Scan(&s.ID, &created, &updated, &s.Messages); err != nil {
			return nil, err
		}
		s.Created, _ = time.Parse(timeFormat, created)
		s.Updated, _ = time.Parse(timeFormat, updated)
		out = append(out, s)
	}
	return out, rows.Err()
}

// Delete implements assistant.Conversations.
func (c *Store) Delete(ctx context.Context, userID, id string) error {
	res, err := c.w.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return assistant.ErrNotFound
	}
	return nil
}

// Cleanup implements assistant.Conversations.
func (c *Store) Cleanup(ctx context.Context, now time.Time, ttl time.Duration, maxPerUser int) (int64, error) {
	tx, err := c.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var total int64
	if ttl > 0 {
		res, err := tx.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE updated_at < ?`, now.Add(-ttl).UTC().Format(timeFormat))
		if err != nil {
			return 0, fmt.Errorf("expire conversations: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	if maxPerUser > 0 {
		res, err := tx.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE id IN (
			SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY updated_at DESC, id) AS n
				FROM assistant_conversations) WHERE n > ?)`, maxPerUser)
		if err != nil {
			return 0, fmt.Errorf("cap conversations per user: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, tx.Commit()
}
