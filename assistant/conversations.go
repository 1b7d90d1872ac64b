package assistant

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/llm"
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrNotFound means no conversation with that id belongs to the user.
var ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "conversation not found"}

// Conversation is a persisted chat (seed 000 §2.4.6).
type Conversation struct {
	ID       string        `json:"id"`
	UserID   string        `json:"user_id"`
	Created  time.Time     `json:"created_at"`
	Updated  time.Time     `json:"updated_at"`
	Messages []llm.Message `json:"messages"`
	Metadata Metadata      `json:"metadata"`
}

// Metadata is what a conversation remembers besides its messages.
type Metadata struct {
	ActiveDocumentIDs   []string        `json:"active_document_ids,omitempty"`
	ActiveActorIDs      []string        `json:"active_actor_ids,omitempty"`
	TotalTokensEstimate int             `json:"total_tokens_estimate"`
	SystemSchema        json.RawMessage `json:"system_schema,omitempty"`
}

// ConversationMigrations are the conversation tables' numbered files, for
// a handle shared with the other stores (see package database).
var ConversationMigrations = sqlitedb.Migrations{Component: "conversations", FS: migrations, Dir: "migrations",
	Legacy: "assistant_schema", What: "the conversations"}

// Conversations stores conversations in SQLite.
type Conversations struct {
	h   *sqlitedb.DB
	own bool    // Close closes h: it was opened by OpenConversations
	w   *sql.DB // the one writer
	r   *sql.DB // the readers
}

// NewConversations keeps conversations in the shared handle h, whose
// migrations must include ConversationMigrations. Close does not close h.
func NewConversations(h *sqlitedb.DB) *Conversations {
	return &Conversations{h: h, w: h.Writer(), r: h.Reader()}
}

// OpenConversations opens (creating if needed) the conversation tables in
// the SQLite file at path, only those brought up to date, for tests and
// tools; Hearth itself opens every store at once (package database).
func OpenConversations(ctx context.Context, path string) (*Conversations, error) {
	h, err := sqlitedb.Open(ctx, path, sqlitedb.Options{Migrations: []sqlitedb.Migrations{ConversationMigrations}, SynchronousNormal: true})
	if err != nil {
		return nil, fmt.Errorf("open conversations: %w", err)
	}
	c := NewConversations(h)
	c.own = true
	return c, nil
}

// Close closes the database when OpenConversations opened it.
func (c *Conversations) Close() error {
	if c.own {
		return c.h.Close()
	}
	return nil
}

// NewID returns a fresh conversation id.
func NewID() string {
	return "conv_" + rand.Text()[:20]
}

const timeFormat = time.RFC3339Nano

// Get returns the user's conversation id.
func (c *Conversations) Get(ctx context.Context, userID, id string) (Conversation, error) {
	var conv Conversation
	var created, updated, msgs, meta string
	err := c.r.QueryRowContext(ctx, `SELECT id, user_id, created_at, updated_at, messages, metadata
		FROM assistant_conversations WHERE id = ? AND user_id = ?`, id, userID).
		Scan(&conv.ID, &conv.UserID, &created, &updated, &msgs, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return conv, ErrNotFound
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

// Exists reports whether any user has a conversation with this id.
func (c *Conversations) Exists(ctx context.Context, id string) (bool, error) {
	var n int
	if err := c.r.QueryRowContext(ctx, `SELECT count(*) FROM assistant_conversations WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up conversation %s: %w", id, err)
	}
	return n > 0, nil
}

// Save writes a conversation, creating it or replacing its messages and
// metadata. A conversation id belongs to the user who created it: saving
// another user's id is ErrNotFound.
func (c *Conversations) Save(ctx context.Context, conv Conversation) error {
	msgs, err := json.Marshal(conv.Messages)
	if err != nil {
		return err
	}
	meta, err := json.Marshal(conv.Metadata)
	if err != nil {
		return err
	}
	res, err := c.w.ExecContext(ctx, `INSERT INTO assistant_conversations (id, user_id, created_at, updated_at, messages, metadata)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, messages = excluded.messages, metadata = excluded.metadata
		WHERE assistant_conversations.user_id = excluded.user_id`,
		conv.ID, conv.UserID, conv.Created.UTC().Format(timeFormat), conv.Updated.UTC().Format(timeFormat), string(msgs), string(meta))
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", conv.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Summary is a conversation in a list.
type Summary struct {
	ID       string    `json:"id"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	Messages int       `json:"messages"`
}

// List returns the user's conversations, the latest first.
func (c *Conversations) List(ctx context.Context, userID string) ([]Summary, error) {
	rows, err := c.r.QueryContext(ctx, `SELECT id, created_at, updated_at, json_array_length(messages)
		FROM assistant_conversations WHERE user_id = ? ORDER BY updated_at DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var s Summary
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

// Delete removes the user's conversation.
func (c *Conversations) Delete(ctx context.Context, userID, id string) error {
	res, err := c.w.ExecContext(ctx, `DELETE FROM assistant_conversations WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Cleanup applies the retention policy of seed 000 §2.4.6: conversations
// idle longer than ttl go, then each user's oldest beyond maxPerUser (0:
// unlimited). It returns how many it deleted.
func (c *Conversations) Cleanup(ctx context.Context, now time.Time, ttl time.Duration, maxPerUser int) (int64, error) {
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
