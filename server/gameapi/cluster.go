package gameapi

import (
	"context"
	"errors"

	"github.com/hearth-rpg/hearth"
)

// Cluster lets several servers on one database serve the same games. A
// game is owned by one process at a time, the holder of its lease
// ("game:" + id): that process plays its turns and runs its autopilot.
// The others show the game to their own clients from the owner's events,
// cutting each viewer's view themselves, and forward their clients'
// commands and requests to the owner. Options.Cluster nil is Solo: one
// process owns everything.
type Cluster interface {
	// Claim takes or renews lease name; ok is false while another live
	// process holds it. autopilot is the flag SetAutopilot keeps with it.
	Claim(ctx context.Context, name string) (ok, autopilot bool, err error)
	// Holds reports whether this process still holds lease name.
	Holds(name string) bool
	// Release gives lease name up; one whose autopilot flag is set is
	// left for another process to take up at once.
	Release(ctx context.Context, name string) error
	// SetAutopilot keeps whether the game's autopilot runs with its lease.
	SetAutopilot(ctx context.Context, name string, on bool) error
	// Orphans lists leases named prefix… whose holder stopped renewing
	// them while their autopilot ran.
	Orphans(ctx context.Context, prefix string) ([]string, error)
	// Publish sends an event of game to the other processes, in order;
	// a best-effort one may be dropped.
	Publish(game string, body []byte, bestEffort bool)
	// Call sends req to the process that owns game and waits for the
	// answer.
	Call(ctx context.Context, game string, req []byte) ([]byte, error)
	// Serve sets the receivers of the other processes' events (of the
	// games follows names) and of the calls for the games this process
	// owns.
	Serve(onEvent func(game string, body []byte), onCall func(ctx context.Context, game string, req []byte) ([]byte, error), owns, follows func(game string) bool)
}

// Solo is the Cluster of a server alone on its database (SQLite): it owns
// every game, and its events have nobody else to reach.
type Solo struct{}

var _ Cluster = Solo{}

func (Solo) Claim(context.Context, string) (bool, bool, error) { return true, false, nil }
func (Solo) Holds(string) bool                                 { return true }
func (Solo) Release(context.Context, string) error             { return nil }
func (Solo) SetAutopilot(context.Context, string, bool) error  { return nil }
func (Solo) Orphans(context.Context, string) ([]string, error) { return nil, nil }
func (Solo) Publish(string, []byte, bool)                      {}
func (Solo) Serve(func(string, []byte), func(context.Context, string, []byte) ([]byte, error), func(string) bool, func(string) bool) {
}

// Call has no other process to reach.
func (Solo) Call(context.Context, string, []byte) ([]byte, error) {
	return nil, errors.New("no other server")
}

// lease is a game's lease name.
func lease(id string) string { return "game:" + id }

var errElsewhere = &Problem{ID: "gameapi.elsewhere", Code: hearth.Unavailable}
