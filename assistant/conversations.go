package assistant

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/llm"
)

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

// Summary is a conversation in a list.
type Summary struct {
	ID       string    `json:"id"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	Messages int       `json:"messages"`
}

// Conversations keeps conversations, each owned by the user who created
// it. Package assistant/sqliteconversations is the SQLite one;
// assistant/conversationtest is the suite every one passes.
type Conversations interface {
	// Get returns the user's conversation id: ErrNotFound when it does
	// not exist or belongs to another user.
	Get(ctx context.Context, userID, id string) (Conversation, error)
	// Exists reports whether any user has a conversation with this id.
	Exists(ctx context.Context, id string) (bool, error)
	// Save creates conv or replaces its Updated time, messages and
	// metadata. Saving an id another user owns is ErrNotFound.
	Save(ctx context.Context, conv Conversation) error
	// List returns the user's conversations, the latest updated first.
	List(ctx context.Context, userID string) ([]Summary, error)
	// Delete removes the user's conversation: ErrNotFound.
	Delete(ctx context.Context, userID, id string) error
	// Cleanup applies the retention policy of seed 000 §2.4.6:
	// conversations idle longer than ttl (0: no limit) go, then each
	// user's least recently updated beyond maxPerUser (0: unlimited). It
	// returns how many it deleted.
	Cleanup(ctx context.Context, now time.Time, ttl time.Duration, maxPerUser int) (int64, error)
}

// NewID returns a fresh conversation id.
func NewID() string {
	return "conv_" + rand.Text()[:20]
}
