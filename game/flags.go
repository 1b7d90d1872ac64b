package game

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/store"
)

// MaxFlagReason caps a flag's reason, as MaxInput caps a turn's input.
const MaxFlagReason = 2000

// Flag is a player's complaint about a turn (seed 004's flagging tool):
// kept for evaluation and prompt tuning, beside the turn, so flagging
// changes nothing in the game and starts no branch.
type Flag struct {
	Turn   int       `json:"turn"`
	By     string    `json:"by,omitempty"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Flag records by's complaint about turn n of the current line; n = 0
// flags the latest turn. It returns the flag as kept.
func (s *Session) Flag(ctx context.Context, n int, by, reason string) (*Flag, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, hearth.Errorf(hearth.Invalid, "say what was wrong with the turn: /flag [turn] reason")
	}
	if len(reason) > MaxFlagReason {
		return nil, hearth.Errorf(hearth.Invalid, "the reason is too long (%d characters); say it in under %d", len(reason), MaxFlagReason)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n == 0 {
		n = s.head
	}
	if n < 1 || n > s.head {
		if s.head == 0 {
			return nil, hearth.Errorf(hearth.Invalid, "no turn has been played yet; flag one after it is played")
		}
		return nil, hearth.Errorf(hearth.Invalid, "turn %d is not in this story: flag a turn from 1 to %d", n, s.head)
	}
	ts, err := s.st.Turns(ctx, s.branch.ID, n, n)
	if err != nil {
		return nil, fmt.Errorf("flag turn %d: %w", n, err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("flag turn %d: %w", n, store.ErrNotFound)
	}
	// The turn is stored once, under the branch that played it; the flag
	// goes with it, so every fork sharing the turn sees it.
	f := store.Flag{BranchID: ts[0].BranchID, Turn: n, By: by, Reason: reason}
	if err := s.st.AddFlag(ctx, &f); err != nil {
		return nil, err
	}
	return &Flag{Turn: f.Turn, By: f.By, Reason: f.Reason, At: f.CreatedAt}, nil
}

// Flags lists the flags on the turns of the current line up to the
// current turn.
func (s *Session) Flags(ctx context.Context) ([]Flag, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flags(ctx)
}

func (s *Session) flags(ctx context.Context) ([]Flag, error) {
	fs, err := s.st.Flags(ctx, s.branch.ID)
	if err != nil {
		return nil, fmt.Errorf("read flags: %w", err)
	}
	var out []Flag
	for _, f := range fs {
		if f.Turn <= s.head {
			out = append(out, Flag{Turn: f.Turn, By: f.By, Reason: f.Reason, At: f.CreatedAt})
		}
	}
	return out, nil
}
