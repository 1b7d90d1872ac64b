package imagegen

import (
	"context"
	"time"
)

// Generation modes (seed 002's SceneImage.generation_mode).
const (
	ModeCurrent  = "current"
	ModeBest     = "best"
	ModeSpecific = "specific"
)

// Record is a stored scene illustration's metadata (seed 002's
// SceneImage); its PNG is read apart.
type Record struct {
	ID      string `json:"id"`
	Session string `json:"session_id"`
	// Branch is the name of the branch whose turn it illustrates.
	Branch   string    `json:"branch"`
	Turn     int       `json:"turn_number"`
	Prompt   string    `json:"prompt"`
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Mode     string    `json:"generation_mode"`
	Bytes    int       `json:"bytes"`
	Created  time.Time `json:"generated_at"`
	// By is the user who asked for it.
	By string `json:"-"`
}

// Count is how many images one game has (GET /api/sessions/images/summary).
type Count struct {
	Session string `json:"session_id"`
	Images  int    `json:"image_count"`
}

// Store keeps generated images with their game: an image belongs to one
// stored game and goes when it is deleted. An image of another game, or
// of none, is NotFound. Implementations: imagegen/sqliteimages and
// imagegen/pgimages; the conformance suite is imagegen/imagestest.
type Store interface {
	// Add stores png under r.Session and returns r with its ID, size and
	// time set. The game must exist (NotFound otherwise).
	Add(ctx context.Context, r Record, png []byte) (Record, error)
	// List returns a game's images, oldest first.
	List(ctx context.Context, session string) ([]Record, error)
	// Get returns one image's metadata and its PNG.
	Get(ctx context.Context, session, id string) (Record, []byte, error)
	// Counts returns, for every game with images, how many it has.
	Counts(ctx context.Context) ([]Count, error)
	Close() error
}
