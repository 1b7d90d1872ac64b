// Package pgconversations keeps the assistant's conversations in
// PostgreSQL: the assistant.Conversations of a Hearth whose database.url
// is postgres://…, the counterpart of assistant/sqliteconversations. Its
// schema is component "assistant" in hearth_schema (package
// internal/pgdb). Any server sharing the database serves any
// conversation: nothing is kept in the process.
package pgconversations

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/internal/jsonstring"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the conversation table's numbered files.
var Migrations = pgdb.Migrations{Component: "assistant", FS: migrations, Dir: "migrations", What: "the assistant's conversations"}

// Store is an assistant.Conversations in PostgreSQL. It is safe for
// concurrent use.
type Store struct {
	h   *pgdb.DB
	own bool // Close closes h: Open opened it
}

var _ assistant.Conversations = (*Store)(nil)

// New keeps conversations through h, whose migrations must include
// Migrations. Close does not close h.
func New(h *pgdb.DB) *Store { return &Store{h: h} }

// Open connects to the database at url with only the conversation table
// brought up to date, for tests and tools.
func Open(ctx context.Context, url string) (*Store, error) {
	h, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		return nil, fmt.Errorf("open conversations: %w", err)
	}
	return &Store{h: h, own: true}, nil
}

// Close closes the handle when Open opened it.
func (c *Store) Close() error {
	if c.own {
		c.own = false
		return c.h.Close()
	}
	return nil
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// Get implements assistant.Conversations.
func (c *Store) Get(ctx context.Context, userID, id string) (assistant.Conversation, error) {
	var conv assistant.Conversation
	var created, updated int64
	var msgs, meta string
	err := c.h.Pool().QueryRow(ctx, `SELECT id, user_id, created_at, updated_at, messages, metadata
		FROM assistant_conversations WHERE id = $1 AND user_id = $2`, id, userID).
		Scan(&conv.ID, &conv.UserID, &created, &updated, &msgs, &meta)
	if errors.Is(err, pgx.ErrNoRows) {
		return conv, assistant.ErrNotFound
	}
	if err != nil {
		return conv, c.h.Explain("read conversation "+id, err)
	}
	conv.Created, conv.Updated = fromNanos(created), fromNanos(updated)
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
	var ok bool
	if err := c.h.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM assistant_conversations WHERE id = $1)`, id).Scan(&ok); err != nil {
		return false, c.h.Explain("look up conversation "+id, err)
	}
	return ok, nil
}

// Save implements assistant.Conversations: one statement, so a
// conversation saved from two servers at once is one row, owned by the
// first.
func (c *Store) Save(ctx context.Context, conv assistant.Conversation) error {
	msgs, err := jsonstring.Marshal(conv.Messages)
	if err != nil {
		return err
	}
	meta, err := jsonstring.Marshal(conv.Metadata)
	if err != nil {
		return err
	}
	tag, err := c.h.Pool().Exec(ctx, `INSERT INTO assistant_conversations (id, user_id, created_at, updated_at, messages, metadata)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, messages = excluded.messages, metadata = excluded.metadata
		WHERE assistant_conversations.user_id = excluded.user_id`,
		conv.ID, conv.UserID, conv.Created.UnixNano(), conv.Updated.UnixNano(), msgs, meta)
	if err != nil {
		return c.h.Explain("save conversation "+conv.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return assistant.ErrNotFound
	}
	return nil
}

// List implements assistant.Conversations.
func (c *Store) List(ctx context.Context, userID string) ([]assistant.Summary, error) {
	rows, err := c.h.Pool().Query(ctx, `SELECT id, created_at, updated_at, json_array_length(messages::json)
		FROM assistant_conversations WHERE user_id = $1 ORDER BY updated_at DESC, id`, userID)
	if err != nil {
		return nil, c.h.Explain("list conversations", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (assistant.Summary, error) {
		var s assistant.Summary
		var created, updated int64
		err := r.Scan(&s.ID, &created, &updated, &s.Messages)
		s.Created, s.Updated = fromNanos(created), fromNanos(updated)
		return s, err
	})
	if err != nil {
		return nil, c.h.Explain("list conversations", err)
	}
	return out, nil
}

// Delete implements assistant.Conversations.
func (c *Store) Delete(ctx context.Context, userID, id string) error {
	tag, err := c.h.Pool().Exec(ctx, `DELETE FROM assistant_conversations WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return c.h.Explain("delete conversation "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return assistant.ErrNotFound
	}
	return nil
}

// Cleanup implements assistant.Conversations, in one transaction.
func (c *Store) Cleanup(ctx context.Context, now time.Time, ttl time.Duration, maxPerUser int) (int64, error) {
	var total int64
	err := c.h.Tx(ctx, func(tx pgx.Tx) error {
		if ttl > 0 {
			tag, err := tx.Exec(ctx, `DELETE FROM assistant_conversations WHERE updated_at < $1`, now.Add(-ttl).UnixNano())
			if err != nil {
				return fmt.Errorf("expire conversations: %w", err)
			}
			total += tag.RowsAffected()
		}
		if maxPerUser > 0 {
			tag, err := tx.Exec(ctx, `DELETE FROM assistant_conversations WHERE id IN (
				SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY updated_at DESC, id) AS n
					FROM assistant_conversations) ranked WHERE n > $1)`, maxPerUser)
			if err != nil {
				return fmt.Errorf("cap conversations per user: %w", err)
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, c.h.Explain("clean up conversations", err)
	}
	return total, nil
}
