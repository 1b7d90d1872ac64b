package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
)

// Errors a Store returns, wrapped with context; test with errors.Is.
var (
	ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "not found"}
	ErrConflict = &hearth.Error{Code: hearth.Conflict, Message: "conflict"}
)

// Session is one playthrough of a campaign.
type Session struct {
	ID           string
	Name         string
	Campaign     string          // campaign ID
	CampaignPath string          // where the campaign was loaded from
	Seed         uint64          // dice seed
	Config       json.RawMessage // free-form; may be nil
	Branch       string          // ID of the branch being played
	Head         int             // turn the session is at on Branch (may be below the tip after a restore)
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Branch is a line of the story. The root branch is named "main".
type Branch struct {
	ID        string
	SessionID string
	Name      string // unique within the session
	ParentID  string // "" for main
	ForkTurn  int    // the last turn shared with the parent (0 for main)
	// Description says what the branch is for ("the party spares the
	// dragon"); it may change after the branch is made.
	Description string
	// Canonical marks the branch the table considers the real story; at
	// most one branch of a session is canonical.
	Canonical bool
	CreatedAt time.Time
}

// BranchUpdate changes the notes of a branch; nil fields stay as they are.
type BranchUpdate struct {
	Description *string
	// Canonical true marks the branch canonical and unmarks every other
	// branch of the session; false only unmarks it.
	Canonical *bool
}

// Turn is one committed turn. Numbers start at 1 and continue across a
// fork: a branch forked at turn 5 has its own first turn numbered 6.
type Turn struct {
	SessionID string
	BranchID  string
	Number    int
	// Actor is the agent that played the turn: a character's id, or "dm".
	Actor string
	// Controller is who decided it: an agent's "provider/model"
	// ("offline" without a model), a human user's name, or "autopilot".
	Controller string
	Input      string
	Intents    json.RawMessage
	Effects    json.RawMessage
	Rolls      json.RawMessage
	Passes     json.RawMessage // what each pipeline pass produced; may be nil
	Narrative  string
	RNGState   []byte // dice state after the turn
	Timings    json.RawMessage
	// SceneLore is the lore cache of the scene this turn began, when it
	// began one; it is committed with the turn.
	SceneLore *SceneLore
	// Memories are the memory events the turn leaves (package narrative),
	// committed with it: a turn is stored with all of them or not at all.
	// Turns does not return them; they are read through narrative recall.
	Memories  []narrative.Event
	CreatedAt time.Time
}

// SceneLore is the lore a scene was prepared with, materialised once when
// the scene began so that turns read it instead of querying the index.
type SceneLore struct {
	BranchID string
	Turn     int // the turn that began the scene; 0 for the opening scene
	Scene    int // the scene's number
	Lore     json.RawMessage
}

// Episode is one game night (seed 004 calls it a session; a Hearth
// Session is the whole playthrough). It keeps the "previously on" recap
// shown when it began and the summary written when it ended.
type Episode struct {
	SessionID string
	Number    int // 1, 2, … within the session
	BranchID  string
	FirstTurn int // the first turn played in it
	LastTurn  int // 0 while it is open
	StartedAt time.Time
	EndedAt   time.Time // zero while it is open
	Recap     string
	Summary   string
	Lore      json.RawMessage // the session-level lore it began with
}

// Open reports whether the episode has not ended.
func (e Episode) Open() bool { return e.EndedAt.IsZero() }

// Flag is a player's complaint about a committed turn ("the innkeeper
// was dead two turns ago"), kept for evaluation and prompt tuning. It is
// stored beside the turn, never in it: turns are append-only history, so
// flagging changes no state and starts no branch.
type Flag struct {
	ID        int64
	SessionID string
	// BranchID is the branch the turn is stored under (a turn shared
	// by forks is stored once, under the branch that played it).
	BranchID  string
	Turn      int
	By        string // who flagged it: a user's name, "" when unknown
	Reason    string
	CreatedAt time.Time
}

// Snapshot is the full state after turn Turn on branch BranchID.
type Snapshot struct {
	SessionID string
	BranchID  string
	Turn      int
	State     json.RawMessage
	RNGState  []byte
}

// Store persists sessions, branches, turns and snapshots. Implementations
// are safe for concurrent use.
type Store interface {
	// CreateSession stores s, creates its "main" branch (setting s.Branch
	// and s.Head = 0) and stores initial as main's snapshot at turn 0, in
	// one transaction.
	CreateSession(ctx context.Context, s *Session, initial Snapshot) error
	Session(ctx context.Context, id string) (*Session, error)
	// Sessions lists sessions, most recently updated first.
	Sessions(ctx context.Context) ([]Session, error)
	// SetHead records which branch and turn the session is at.
	SetHead(ctx context.Context, sessionID, branchID string, head int) error
	// SetConfig replaces the session's free-form Config.
	SetConfig(ctx context.Context, sessionID string, config json.RawMessage) error
	// DeleteSession removes the session and everything in it.
	DeleteSession(ctx context.Context, id string) error

	// CreateBranch forks at b.ForkTurn of branch b.ParentID, which must be
	// on the parent's line. It sets b.ID when empty and b.CreatedAt.
	// A duplicate name is ErrConflict.
	CreateBranch(ctx context.Context, b *Branch) error
	// Branches lists a session's branches in creation order.
	Branches(ctx context.Context, sessionID string) ([]Branch, error)
	BranchByName(ctx context.Context, sessionID, name string) (*Branch, error)
	// UpdateBranch changes a branch's description and canonical mark, in
	// one transaction. An unknown branch is ErrNotFound.
	UpdateBranch(ctx context.Context, branchID string, u BranchUpdate) error
	// Tip is the number of the last turn on the branch's line.
	Tip(ctx context.Context, branchID string) (int, error)

	// AppendTurn commits t (with its scene lore and memory events), and
	// snap when not nil, and moves the session's head to (t.BranchID,
	// t.Number), in one transaction. t.Number must be
	// the branch's Tip+1, else ErrConflict.
	AppendTurn(ctx context.Context, t *Turn, snap *Snapshot) error
	// Turns returns the turns numbered from..to (inclusive) on the branch's
	// line, in order.
	Turns(ctx context.Context, branchID string, from, to int) ([]Turn, error)
	// Snapshot returns the latest snapshot on the branch's line at or
	// before turn atOrBefore.
	Snapshot(ctx context.Context, branchID string, atOrBefore int) (*Snapshot, error)

	// PutSceneLore stores (or replaces) a scene's lore cache outside a
	// turn: for the opening scene, or when a cache is rebuilt.
	PutSceneLore(ctx context.Context, l *SceneLore) error
	// SceneLore returns the latest scene lore on the branch's line at or
	// before turn atOrBefore.
	SceneLore(ctx context.Context, branchID string, atOrBefore int) (*SceneLore, error)

	// StartEpisode ends nothing: it stores e as the session's next episode
	// and sets e.Number and e.StartedAt. An open episode is ErrConflict.
	StartEpisode(ctx context.Context, e *Episode) error
	// EndEpisode closes the session's open episode at lastTurn with its
	// summary. Without an open episode it is ErrNotFound.
	EndEpisode(ctx context.Context, sessionID string, lastTurn int, summary string) (*Episode, error)
	// Episodes lists a session's episodes in order.
	Episodes(ctx context.Context, sessionID string) ([]Episode, error)

	// AddFlag stores f and sets f.ID, f.SessionID and f.CreatedAt. The
	// turn must be stored under f.BranchID, else ErrNotFound.
	AddFlag(ctx context.Context, f *Flag) error
	// Flags lists the flags on the turns of the branch's line, by turn
	// and then in the order they were made.
	Flags(ctx context.Context, branchID string) ([]Flag, error)

	Close() error
}

// Segment is part of a branch's line: turns From..To (inclusive) stored
// under BranchID. To < 0 means "to the end".
type Segment struct {
	BranchID string
	From, To int
}

// Line splits the line of history of the last branch in chain (ordered
// root first) into the segments stored under each branch.
func Line(chain []Branch) []Segment {
	segs := make([]Segment, len(chain))
	for i, b := range chain {
		from := b.ForkTurn + 1
		if i == 0 {
			from = 1
		}
		to := -1
		if i+1 < len(chain) {
			to = chain[i+1].ForkTurn
		}
		segs[i] = Segment{BranchID: b.ID, From: from, To: to}
	}
	return segs
}
