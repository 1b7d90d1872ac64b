package chargen

import (
	"context"
	"time"
)

// Saved is a character in a user's library.
type Saved struct {
	ID        string     `json:"id"`
	Owner     string     `json:"owner"` // the user's ID
	Character *Character `json:"character"`
	Created   time.Time  `json:"created_at"`
	Updated   time.Time  `json:"updated_at"`
}

// Viewer is who asks the library: a user sees their own characters; All
// (the GM) sees everyone's.
type Viewer struct {
	UserID string
	All    bool
}

// Store is the character library: characters saved by their owners and
// reused across games. A character the viewer may not see is NotFound,
// as if it did not exist. Implementations: chargen/sqlitecharacters; the
// conformance suite is chargen/charactertest.
type Store interface {
	// Create saves ch for owner and returns it with its new ID.
	Create(ctx context.Context, owner string, ch *Character) (Saved, error)
	Get(ctx context.Context, v Viewer, id string) (Saved, error)
	// List returns the characters v may see, newest first.
	List(ctx context.Context, v Viewer) ([]Saved, error)
	// Update replaces a character's sheet (its owner stays).
	Update(ctx context.Context, v Viewer, id string, ch *Character) (Saved, error)
	Delete(ctx context.Context, v Viewer, id string) error
	Close() error
}
