package game

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// ErrInvalid matches every request that cannot be done as asked (code
// hearth.Invalid); the error's message says what would work.
var ErrInvalid = &hearth.Error{Code: hearth.Invalid}

// Restore moves the session back (or forward) to turn n of the current
// branch. Nothing is deleted: acting from an earlier turn starts a new
// branch.
func (s *Session) Restore(ctx context.Context, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tip, err := s.st.Tip(ctx, s.branch.ID)
	if err != nil {
		return err
	}
	if n < 0 || n > tip {
		return hearth.Errorf(hearth.Invalid, "branch %q has turns 0 to %d; cannot restore turn %d", s.branch.Name, tip, n)
	}
	if err := s.load(ctx, n); err != nil {
		return err
	}
	s.await, s.reroll = nil, false
	return s.st.SetHead(ctx, s.meta.ID, s.branch.ID, n)
}

// Reroll lets fate fall anew: the next turn played reseeds the dice,
// where by default a turn played again from a restored one rolls the
// same dice. The seed is recorded with that turn, so replays stay exact;
// restoring again, or closing the session first, drops the choice.
func (s *Session) Reroll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reroll = true
}

var branchName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)

// Fork starts a branch named name at the current turn and switches to it.
func (s *Session) Fork(ctx context.Context, name string) (*store.Branch, error) {
	return s.ForkDescribed(ctx, name, "")
}

// MaxBranchDescription is the longest branch description kept, in bytes.
const MaxBranchDescription = 500

// ForkDescribed is Fork with a description of what the branch is for.
func (s *Session) ForkDescribed(ctx context.Context, name, description string) (*store.Branch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forkLocked(ctx, name, description)
}

func (s *Session) forkLocked(ctx context.Context, name, description string) (*store.Branch, error) {
	if !branchName.MatchString(name) {
		return nil, hearth.Errorf(hearth.Invalid, "branch name %q: use 1 to 40 letters, digits, dots, dashes or underscores", name)
	}
	description = strings.TrimSpace(description)
	if len(description) > MaxBranchDescription {
		return nil, hearth.Errorf(hearth.Invalid, "branch description: %d bytes; keep it under %d", len(description), MaxBranchDescription)
	}
	b := &store.Branch{SessionID: s.meta.ID, Name: name, ParentID: s.branch.ID, ForkTurn: s.head, Description: description}
	if err := s.st.CreateBranch(ctx, b); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, hearth.Errorf(hearth.Invalid, "a branch named %q already exists; pick another name or switch to it", name)
		}
		return nil, err
	}
	if err := s.st.SetHead(ctx, s.meta.ID, b.ID, s.head); err != nil {
		return nil, err
	}
	s.branch = *b
	s.await = nil
	return b, nil
}

// UpdateBranch changes the description of the branch named name and
// marks or unmarks it canonical (marking one unmarks the others); nil
// leaves a field as it is. It does not move the game.
func (s *Session) UpdateBranch(ctx context.Context, name string, description *string, canonical *bool) (*BranchInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.st.BranchByName(ctx, s.meta.ID, name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, hearth.Errorf(hearth.NotFound, "no branch %q; see the branch list", name)
		}
		return nil, err
	}
	u := store.BranchUpdate{Canonical: canonical}
	if description != nil {
		d := strings.TrimSpace(*description)
		if len(d) > MaxBranchDescription {
			return nil, hearth.Errorf(hearth.Invalid, "branch description: %d bytes; keep it under %d", len(d), MaxBranchDescription)
		}
		u.Description = &d
	}
	if err := s.st.UpdateBranch(ctx, b.ID, u); err != nil {
		return nil, err
	}
	infos, err := s.branchesLocked(ctx)
	if err != nil {
		return nil, err
	}
	for _, in := range infos {
		if in.Name == name {
			return &in, nil
		}
	}
	return nil, fmt.Errorf("branch %q vanished while it was updated", name)
}

// Switch moves to the latest turn of another branch.
func (s *Session) Switch(ctx context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.st.BranchByName(ctx, s.meta.ID, name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return hearth.Errorf(hearth.Invalid, "no branch %q; see the branch list", name)
		}
		return err
	}
	tip, err := s.st.Tip(ctx, b.ID)
	if err != nil {
		return err
	}
	old := s.branch
	s.branch = *b
	if err := s.load(ctx, tip); err != nil {
		s.branch = old
		return err
	}
	s.await = nil
	return s.st.SetHead(ctx, s.meta.ID, b.ID, tip)
}

// BranchInfo describes one branch.
type BranchInfo struct {
	Name     string `json:"name"`
	Parent   string `json:"parent,omitempty"`
	ForkTurn int    `json:"fork_turn"`
	Tip      int    `json:"tip"`
	Current  bool   `json:"current"`
	// Description and IsCanonical are the table's notes on the branch.
	Description string    `json:"description"`
	IsCanonical bool      `json:"is_canonical"`
	Created     time.Time `json:"created_at"`
}

// Branches lists the session's branches in creation order.
func (s *Session) Branches(ctx context.Context) ([]BranchInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branchesLocked(ctx)
}

func (s *Session) branchesLocked(ctx context.Context) ([]BranchInfo, error) {
	brs, err := s.st.Branches(ctx, s.meta.ID)
	if err != nil {
		return nil, err
	}
	byID := map[string]string{}
	for _, b := range brs {
		byID[b.ID] = b.Name
	}
	out := make([]BranchInfo, 0, len(brs))
	for _, b := range brs {
		tip, err := s.st.Tip(ctx, b.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, BranchInfo{Name: b.Name, Parent: byID[b.ParentID], ForkTurn: b.ForkTurn, Tip: tip,
			Current: b.ID == s.branch.ID, Description: b.Description, IsCanonical: b.Canonical, Created: b.CreatedAt})
	}
	return out, nil
}

// TurnRecord is a committed turn as a transcript shows it.
type TurnRecord struct {
	Number int `json:"number"`
	// Agent is who acted (a party member's character id, or "dm"), and
	// Controller who decided it (an agent's "provider/model", a user's
	// name, "autopilot").
	Agent      string          `json:"agent,omitempty"`
	Controller string          `json:"controller,omitempty"`
	Input      string          `json:"input"`
	Narrative  string          `json:"narrative"`
	Intents    json.RawMessage `json:"intents,omitempty"`
	Effects    json.RawMessage `json:"effects,omitempty"`
	Rolls      json.RawMessage `json:"rolls,omitempty"`
	// Passes is what each pass of the pipeline saw and produced.
	Passes json.RawMessage `json:"passes,omitempty"`
	At     time.Time       `json:"at"`
}

// Turns returns turns from..to (inclusive) of the current branch's line,
// capped at the current turn.
func (s *Session) Turns(ctx context.Context, from, to int) ([]TurnRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns(ctx, from, to)
}

func (s *Session) turns(ctx context.Context, from, to int) ([]TurnRecord, error) {
	from = max(from, 1)
	to = min(to, s.head)
	if from > to {
		return nil, nil
	}
	ts, err := s.st.Turns(ctx, s.branch.ID, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]TurnRecord, len(ts))
	for i, t := range ts {
		out[i] = TurnRecord{Number: t.Number, Agent: t.Actor, Controller: t.Controller, Input: t.Input, Narrative: t.Narrative,
			Intents: t.Intents, Effects: t.Effects, Rolls: t.Rolls, Passes: t.Passes, At: t.CreatedAt}
	}
	return out, nil
}

// Transcript is a game's JSON export: the current branch's turns, and the
// flags players raised on them.
type Transcript struct {
	Session  string       `json:"session"`
	Title    string       `json:"title"`
	Campaign string       `json:"campaign"`
	Seed     uint64       `json:"seed"`
	Branch   string       `json:"branch"`
	Turns    []TurnRecord `json:"turns"`
	Flags    []Flag       `json:"flags,omitempty"`
}

// Export writes the transcript of the current branch up to the current turn
// as "json" or "markdown".
func (s *Session) Export(ctx context.Context, w io.Writer, format string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	turns, err := s.turns(ctx, 1, s.head)
	if err != nil {
		return err
	}
	switch strings.ToLower(format) {
	case "json":
		flags, err := s.flags(ctx)
		if err != nil {
			return err
		}
		doc := Transcript{s.meta.ID, s.cfg.Title, s.meta.Campaign, s.meta.Seed, s.branch.Name, turns, flags}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "md", "markdown":
		var b bytes.Buffer
		fmt.Fprintf(&b, "# %s\n\n", s.cfg.Title)
		fmt.Fprintf(&b, "Session `%s`, branch `%s`, seed %d, %d turns.\n\n", s.meta.ID, s.branch.Name, s.meta.Seed, len(turns))
		if s.cfg.Intro != "" {
			fmt.Fprintf(&b, "%s\n\n", s.cfg.Intro)
		}
		for _, t := range turns {
			fmt.Fprintf(&b, "## Turn %d\n\n> %s\n\n%s\n\n", t.Number, t.Input, strings.TrimSpace(t.Narrative))
			for _, n := range Notes(t.Effects) {
				fmt.Fprintf(&b, "%s\n\n", n)
			}
			if t.Agent != "" {
				fmt.Fprintf(&b, "<sub>played by %s (%s)</sub>\n\n", t.Agent, cmpOr(t.Controller, "unrecorded"))
			}
			if kinds := effectKinds(t.Effects); kinds != "" {
				fmt.Fprintf(&b, "<sub>effects: %s</sub>\n\n", kinds)
			}
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	return hearth.Errorf(hearth.Invalid, "export format %q: use json or markdown", format)
}

// Notes are a turn's notes (its note_recorded effects) as a transcript
// shows them: "(suggested by ann: talk to the innkeeper)", "(the game
// master's model failed; played by the offline narrator)".
func Notes(raw json.RawMessage) []string {
	var es world.Effects
	if json.Unmarshal(raw, &es) != nil {
		return nil
	}
	var out []string
	for _, e := range world.Of[world.NoteRecorded](es) {
		switch n := e.Note; n.Kind {
		case world.NoteNudge:
			out = append(out, fmt.Sprintf("(suggested by %s: %s)", n.By, n.Text))
		case world.NoteFallback:
			out = append(out, fmt.Sprintf("(the game master's model failed; played by the %s)", n.Text))
		case NoteRefused:
			out = append(out, fmt.Sprintf("(before this turn, without taking one: %s)", n.Text))
		default:
			out = append(out, fmt.Sprintf("(%s: %s)", n.Kind, n.Text))
		}
	}
	return out
}

func effectKinds(raw json.RawMessage) string {
	var es world.Effects
	if json.Unmarshal(raw, &es) != nil {
		return ""
	}
	var kinds []string
	for _, e := range es {
		if e.Kind() != "turn_began" {
			kinds = append(kinds, e.Kind())
		}
	}
	return strings.Join(kinds, ", ")
}

// Verify replays every turn of the current line from the initial state and
// checks that the result equals the current state. It returns nil when they
// match.
func (s *Session) Verify(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	replayed, pcg, err := s.stateAt(ctx, s.branch.ID, s.head, true)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	a, err := json.Marshal(s.w)
	if err != nil {
		return err
	}
	b, err := json.Marshal(replayed)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("state at turn %d differs from a replay of its %d turns (%d vs %d bytes)", s.head, s.head, len(a), len(b))
	}
	ra, _ := s.pcg.MarshalBinary()
	rb, _ := pcg.MarshalBinary()
	if !bytes.Equal(ra, rb) {
		return fmt.Errorf("dice state at turn %d differs from the replay's", s.head)
	}
	return nil
}
