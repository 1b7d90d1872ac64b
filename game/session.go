package game

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// MaxInput is the longest player input accepted, in bytes.
const MaxInput = 4000

// DefaultSnapshotEvery is how often a full state snapshot is written; a
// restore folds at most this many turns of effects.
const DefaultSnapshotEvery = 50

// Options configure a session. The zero value plays offline.
type Options struct {
	Interpreter Interpreter // default: offlinegm's pattern interpreter
	Narrator    Narrator    // default: offlinegm's template narrator
	// Pipeline, when set, plays every turn of free input (a model-driven
	// game master); Interpreter and Narrator remain its offline fallback.
	Pipeline Pipeline
	// Lore prepares lore at scene and episode boundaries; nil plays
	// without authored lore beyond the world state.
	Lore Lorekeeper
	// Choices, when set, ends every committed turn with three or four
	// choices (choice-based play).
	Choices ChoiceMaker
	// Memories recalls memory events for model context and readies each
	// eventful turn's event, which the store commits with the turn; nil
	// keeps none.
	Memories Memories
	// SnapshotEvery writes a snapshot every this many turns (default 50).
	SnapshotEvery int
	Logger        *slog.Logger
	// Name names a new game ("Thursday group"); New uses it, default the
	// campaign's title. The campaign itself keeps its own title.
	Name string
	// Party, when set, is a new game's party in place of the campaign's
	// own player characters (characters of a library): New starts them
	// where the campaign starts. The state at turn 0 holds them, so
	// restore and replay keep them.
	Party []campaign.Recruit
}

func (o Options) withDefaults() Options {
	if o.Interpreter == nil || o.Narrator == nil {
		p := offlinegm.New()
		if o.Interpreter == nil {
			o.Interpreter = p
		}
		if o.Narrator == nil {
			o.Narrator = p
		}
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = DefaultSnapshotEvery
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// config is what a session keeps in store.Session.Config.
type config struct {
	Title       string         `json:"title"`
	Intro       string         `json:"intro,omitempty"`
	Genre       string         `json:"genre,omitempty"`
	Tone        string         `json:"tone,omitempty"`
	Description string         `json:"description,omitempty"`
	RulesHint   string         `json:"rules_hint,omitempty"`
	Pipeline    string         `json:"pipeline,omitempty"`
	PlayMode    string         `json:"play_mode,omitempty"`
	Prompts     map[string]int `json:"prompts,omitempty"`
	// Preferences are settings chosen for the session as it is played
	// (the autopilot's speed), kept across restarts.
	Preferences map[string]string `json:"preferences,omitempty"`
}

// Campaign describes the campaign a session plays, as pipelines need it.
type Campaign struct {
	Title, Intro, Genre, Tone, Description, RulesHint string
	// Pipeline is the campaign's choice of turn pipeline ("agentic",
	// "multipass"); empty lets the player's configuration decide.
	Pipeline string
	// PlayMode "choices" is Narratoria's choice-based play.
	PlayMode string
	// Prompts pins prompt versions.
	Prompts map[string]int
}

// Slug is the campaign's ID.
func (c Campaign) Slug() string { return rules.Slug(c.Title) }

// Campaign returns what the session knows of its campaign.
func (s *Session) Campaign() Campaign {
	c := s.cfg
	return Campaign{Title: c.Title, Intro: c.Intro, Genre: c.Genre, Tone: c.Tone, Description: c.Description,
		RulesHint: c.RulesHint, Pipeline: c.Pipeline, PlayMode: c.PlayMode, Prompts: c.Prompts}
}

// Session is one playthrough. Create one with New, reopen it with Open.
type Session struct {
	mu     sync.Mutex
	st     store.Store
	opts   Options
	meta   store.Session
	cfg    config
	branch store.Branch
	head   int
	w      *world.State
	pcg    *mrand.PCG
	rng    *mrand.Rand
	eng    *rules.Engine
	await  *pending
	lore   *lore.Cache // the current scene's, once read or prepared

	keywordState *lorebook.State // keyword lore's timed effects after the head turn
	beats        []Beat
	input        string      // the words of the turn being played, for memory callbacks
	chosen       *Evaluation // the picked choice's evaluation, for the turn it plays
	// refused are the notes of actions refused since the head turn; the
	// next committed turn keeps them, so transcripts show them.
	refused []world.Note
	// reroll reseeds the dice at the next committed turn: the player
	// chose to let fate fall anew (Reroll).
	reroll bool

	// switched is the actor before the turn being played made its agent
	// act ("" when it did not); by is who decided the turn.
	switched, by string
	nudges       []Nudge // the turn being played's suggestions

	agents     AgentFor         // party members' models; nil: offline agents
	summariser MemorySummariser // of party members' memories; nil: extractive
	extractor  ElementExtractor // of narrative elements; nil: offline
	modules    ModuleFinder     // lists adventure modules; nil: none

	// prefMu guards prefs (config.Preferences, kept apart from cfg, which
	// never changes once open): a turn can hold mu for seconds.
	prefMu sync.Mutex
	prefs  map[string]string

	// terms keeps keyTerms by passage text: a scene's passages are offered
	// turn after turn, and their key words were a quarter of a turn's CPU.
	termsMu sync.Mutex
	terms   map[string][]string
}

// Lorekeeper prepares lore at the boundaries of play (package lore).
type Lorekeeper interface {
	// Scene materialises the lore of the scene w is in.
	Scene(ctx context.Context, w *world.State) (*lore.Cache, error)
	// Join adds briefings on characters who joined the scene since c was
	// prepared, reporting whether it added any.
	Join(ctx context.Context, w *world.State, c *lore.Cache) (bool, error)
	// CampaignLore is the campaign-level lore an episode begins with.
	CampaignLore(ctx context.Context, w *world.State, about string) ([]lore.Passage, []lore.Cut, error)
	// Turn chooses a turn's lore: the cache and keyword lore in one budget.
	Turn(in lore.TurnInput) lore.TurnLore
	// RecordEpisode writes an ended episode to the history corpus.
	RecordEpisode(ctx context.Context, sessionID string, number int, summary string, moments []lore.Moment) error
}

// pending is a question the game asked: a confirmation guarding intents,
// or a choice among inputs.
type pending struct {
	input   string
	intents []rules.Intent
	options []string
	// inputs are what each option plays ("" : its text) and evals what
	// evaluate-choice said of it (nil: nothing).
	inputs []string
	evals  []*Evaluation
}

// New starts a playthrough of campaign c, stored in st. A zero seed picks a
// random one; the seed is stored, so the game is reproducible.
func New(ctx context.Context, st store.Store, c *campaign.Campaign, seed uint64, opts Options) (*Session, error) {
	newState := c.NewState
	if opts.Party != nil {
		newState = func() (*world.State, error) { return c.NewStateWithParty(opts.Party) }
	}
	w, err := newState()
	if err != nil {
		return nil, fmt.Errorf("new game of %s: %w", c.Meta.Title, err)
	}
	eng, err := rules.New(w.System)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", c.Meta.Title, err)
	}
	if seed == 0 {
		seed = randomSeed()
	}
	pcg := mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	stateJSON, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode initial state: %w", err)
	}
	rngState, err := pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	m := c.Meta
	cfg := config{Title: m.Title, Intro: m.Intro, Genre: m.Genre, Tone: m.Tone, Description: m.Description,
		RulesHint: m.RulesHint, Pipeline: m.Pipeline, PlayMode: m.PlayMode, Prompts: m.Prompts}
	cfgJSON, _ := json.Marshal(cfg)
	name := strings.TrimSpace(opts.Name)
	if name == "" {
		name = c.Meta.Title
	}
	meta := store.Session{
		ID:           newID(),
		Name:         name,
		Campaign:     campaignID(c),
		CampaignPath: c.Dir,
		Seed:         seed,
		Config:       cfgJSON,
	}
	snap := store.Snapshot{SessionID: meta.ID, Turn: 0, State: stateJSON, RNGState: rngState}
	if err := st.CreateSession(ctx, &meta, snap); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := &Session{st: st, opts: opts.withDefaults(), meta: meta, cfg: cfg, w: w, pcg: pcg, keywordState: &lorebook.State{},
		rng: mrand.New(pcg), eng: eng}
	eng.SetSituational(s.callback)
	br, err := st.BranchByName(ctx, meta.ID, "main")
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s.branch = *br
	s.prepareOpening(ctx)
	s.opts.Logger.Info("new game", "session", meta.ID, "campaign", meta.Campaign, "seed", seed)
	return s, nil
}

func campaignID(c *campaign.Campaign) string {
	return rules.Slug(c.Meta.Title)
}

// Open reopens a stored playthrough at the branch and turn it was left at.
func Open(ctx context.Context, st store.Store, id string, opts Options) (*Session, error) {
	meta, err := st.Session(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open game %s: %w", id, err)
	}
	s := &Session{st: st, opts: opts.withDefaults(), meta: *meta}
	if len(meta.Config) > 0 {
		if err := json.Unmarshal(meta.Config, &s.cfg); err != nil {
			return nil, fmt.Errorf("open game %s: bad config: %w", id, err)
		}
		s.prefs, s.cfg.Preferences = s.cfg.Preferences, nil
	}
	brs, err := st.Branches(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open game %s: %w", id, err)
	}
	for _, b := range brs {
		if b.ID == meta.Branch {
			s.branch = b
		}
	}
	if s.branch.ID == "" {
		return nil, fmt.Errorf("open game %s: its current branch %q is missing; the database is damaged", id, meta.Branch)
	}
	if err := s.load(ctx, meta.Head); err != nil {
		return nil, fmt.Errorf("open game %s: %w", id, err)
	}
	return s, nil
}

// load rebuilds the state at turn n of the current branch: the nearest
// snapshot, then the effects of the turns after it.
func (s *Session) load(ctx context.Context, n int) error {
	w, pcg, err := s.stateAt(ctx, s.branch.ID, n, false)
	if err != nil {
		return err
	}
	eng, err := rules.New(w.System)
	if err != nil {
		return err
	}
	eng.SetSituational(s.callback)
	s.w, s.pcg, s.rng, s.eng, s.head = w, pcg, mrand.New(pcg), eng, n
	s.lore = nil // read again for the scene at n
	s.refused = nil
	s.restoreKeywordState(ctx)
	return nil
}

// stateAt folds effects onto a snapshot; fromScratch starts at turn 0.
func (s *Session) stateAt(ctx context.Context, branchID string, n int, fromScratch bool) (*world.State, *mrand.PCG, error) {
	at := n
	if fromScratch {
		at = 0
	}
	snap, err := s.st.Snapshot(ctx, branchID, at)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot at or before turn %d: %w", at, err)
	}
	var w world.State
	if err := json.Unmarshal(snap.State, &w); err != nil {
		return nil, nil, fmt.Errorf("decode snapshot of turn %d: %w", snap.Turn, err)
	}
	rngState := snap.RNGState
	if n > snap.Turn {
		turns, err := s.st.Turns(ctx, branchID, snap.Turn+1, n)
		if err != nil {
			return nil, nil, fmt.Errorf("turns %d..%d: %w", snap.Turn+1, n, err)
		}
		if len(turns) != n-snap.Turn {
			return nil, nil, fmt.Errorf("turns %d..%d: found %d of %d; the history is incomplete", snap.Turn+1, n, len(turns), n-snap.Turn)
		}
		for _, t := range turns {
			var es world.Effects
			if err := json.Unmarshal(t.Effects, &es); err != nil {
				return nil, nil, fmt.Errorf("decode effects of turn %d: %w", t.Number, err)
			}
			if err := w.ApplyAll(es); err != nil {
				return nil, nil, fmt.Errorf("replay turn %d: %w", t.Number, err)
			}
			rngState = t.RNGState
		}
	}
	pcg := &mrand.PCG{}
	if err := pcg.UnmarshalBinary(rngState); err != nil {
		return nil, nil, fmt.Errorf("restore dice state at turn %d: %w", n, err)
	}
	return &w, pcg, nil
}

// Preference returns the setting stored for the session under key, or "".
func (s *Session) Preference(key string) string {
	s.prefMu.Lock()
	defer s.prefMu.Unlock()
	return s.prefs[key]
}

// SetPreference stores a setting with the session, so it outlives the
// process; an empty value removes it.
func (s *Session) SetPreference(ctx context.Context, key, value string) error {
	s.prefMu.Lock()
	defer s.prefMu.Unlock()
	prefs := maps.Clone(s.prefs)
	if value == "" {
		delete(prefs, key)
	} else {
		if prefs == nil {
			prefs = map[string]string{}
		}
		prefs[key] = value
	}
	cfg := s.cfg
	cfg.Preferences = prefs
	b, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("game %s: keep preference %s: %w", s.meta.ID, key, err)
	}
	if err := s.st.SetConfig(ctx, s.meta.ID, b); err != nil {
		return fmt.Errorf("game %s: keep preference %s: %w", s.meta.ID, key, err)
	}
	s.prefs = prefs
	return nil
}

// PreferenceOf reads a preference from a stored session without opening
// it: for listings of games that are not being played.
func PreferenceOf(meta *store.Session, key string) string {
	var cfg config
	if len(meta.Config) == 0 || json.Unmarshal(meta.Config, &cfg) != nil {
		return ""
	}
	return cfg.Preferences[key]
}

// ID returns the session's ID.
func (s *Session) ID() string { return s.meta.ID }

// Title returns the campaign's title.
func (s *Session) Title() string { return s.cfg.Title }

// Intro returns the campaign's opening text.
func (s *Session) Intro() string { return s.cfg.Intro }

// Seed returns the session's dice seed.
func (s *Session) Seed() uint64 { return s.meta.Seed }

// Turn returns the current turn number (0 before the first).
func (s *Session) Turn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

// Branch returns the name of the current branch.
func (s *Session) Branch() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branch.Name
}

// World returns the current state. Callers must treat it as read-only and
// must not keep it across calls to Act, Restore, Fork or Switch.
func (s *Session) World() *world.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w
}

// Act plays one turn of player input.
func (s *Session) Act(ctx context.Context, input string) (*Response, error) {
	return s.ActStream(ctx, input, nil)
}

// ActStream plays one turn, calling emit with each piece of narration as
// the narrator produces it (emit may be nil).
func (s *Session) ActStream(ctx context.Context, input string, emit func(string)) (*Response, error) {
	return s.PlayTurn(ctx, Play{Input: input}, emit)
}

// Play is one turn's input and who plays it.
type Play struct {
	Input string
	// Agent is the party member who acts; "" keeps the character acting
	// now. A new agent becomes the actor through an ActorChanged effect of
	// the turn, so the rules stay those of one acting character and replay
	// keeps who acted.
	Agent string
	// Controller names who decided the action (a user's name, "autopilot",
	// an agent's "provider/model"); "" records the member's controller.
	Controller string
	// Nudges are suggestions from the table for the game master's
	// narration. They are kept with the turn as notes and offered to the
	// pipeline (Turn.Nudges), never read as the character's words. A turn
	// that is not committed keeps none.
	Nudges []Nudge
}

// Nudge is a suggestion someone at the table made for the story.
type Nudge struct {
	By   string `json:"by"`
	Text string `json:"text"`
}

// PlayTurn plays one turn as ActStream does, acted by p.Agent.
func (s *Session) PlayTurn(ctx context.Context, p Play, emit func(string)) (resp *Response, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if emit == nil {
		emit = func(string) {}
	}
	s.by, s.nudges = p.Controller, p.Nudges
	defer func() { s.by, s.switched, s.nudges = "", "", nil }()
	if p.Agent != "" && p.Agent != s.w.Player {
		if !s.w.InParty(p.Agent) || s.w.Characters[p.Agent] == nil {
			return nil, hearth.Errorf(hearth.Invalid, "%q is not in the party; it cannot act", p.Agent)
		}
		// The interpreter reads the words as the agent's; a turn that is
		// not committed (a question, a refusal to guess) changes nobody.
		prev := s.w.Player
		s.w.Player, s.switched = p.Agent, prev
		defer func() {
			if resp == nil || !resp.Committed {
				s.w.Player = prev
			}
		}()
	}
	return s.act(ctx, p.Input, emit)
}

func (s *Session) act(ctx context.Context, input string, emit func(string)) (*Response, error) {
	input = strings.TrimSpace(input)
	if len(input) > MaxInput {
		return s.reply(fmt.Sprintf("That is too long to follow (%d characters); say it in under %d.", len(input), MaxInput), emit), nil
	}
	if input == "" {
		return s.reply("What do you do? (Type help for ideas.)", emit), nil
	}
	if p := s.await; p != nil {
		s.await = nil
		if p.options == nil { // a confirmation
			switch strings.ToLower(strings.Trim(input, " .!")) {
			case "y", "yes", "yeah", "yep", "do it", "confirm":
				if s.opts.Pipeline != nil {
					return s.playConfirmed(ctx, p.input, p.intents, emit)
				}
				return s.play(ctx, p.input, p.intents, emit)
			case "n", "no", "nope", "cancel", "never mind":
				return s.reply("You think better of it.", emit), nil
			}
		} else if i, err := strconv.Atoi(input); err == nil && i >= 1 && i <= len(p.options) {
			input = p.options[i-1]
			if i <= len(p.inputs) && p.inputs[i-1] != "" {
				input = p.inputs[i-1]
			}
			if i <= len(p.evals) && p.evals[i-1] != nil {
				s.chosen = p.evals[i-1]
				defer func() { s.chosen = nil }()
			}
		}
	}
	if pc := s.w.PC(); rules.Down(pc) {
		// A dying character's turn is a death saving throw whatever was
		// typed (5e), so a defeat never becomes a loop of refusals.
		return s.play(ctx, input, []rules.Intent{rules.DeathSave{}}, emit)
	} else if pc != nil && pc.HasCondition("dead") {
		text := fmt.Sprintf("%s is dead. /restore N goes back to an earlier turn; /restore N --reroll lets the dice fall anew.", pc.Name)
		s.refuse(input, Refused, text) // the rules of death, not a misunderstanding
		return s.reply(text, emit), nil
	}
	if s.opts.Pipeline != nil {
		return s.playPipeline(ctx, input, emit)
	}
	in, err := s.opts.Interpreter.Interpret(ctx, s.w, input)
	if err != nil {
		return nil, fmt.Errorf("interpret %q: %w", input, err)
	}
	switch {
	case in.Query == "recap":
		text, err := s.recap(ctx)
		if err != nil {
			return nil, err
		}
		return s.reply(text, emit), nil
	case in.Query != "":
		return s.reply(Query(s.w, in.Query), emit), nil
	case in.Confirm != "" && len(in.Intents) > 0:
		// Kept like a refusal, so evaluation can count the questions the
		// game asked instead of playing (its clarification rate).
		s.refuse(input, Asked, in.Confirm)
		s.await = &pending{input: input, intents: in.Intents}
		r := s.reply(in.Confirm+" (yes/no)", emit)
		r.Awaiting = Awaiting{Kind: Confirmation, Prompt: in.Confirm}
		return r, nil
	case len(in.Intents) == 0:
		text := in.Reply
		if text == "" {
			text = "Nothing happens. (Type help for ideas.)"
		}
		s.refuse(input, NotPlayed, text)
		return s.reply(text, emit), nil
	}
	if rej := s.refusal(ctx, in.Intents[0]); rej != nil {
		// Refused before anything happened: no turn, no dice, no decay.
		text, err := s.opts.Narrator.Narrate(ctx, rules.Narration{Input: input, World: s.w, Rejection: rej}, emit)
		if err != nil {
			return nil, fmt.Errorf("narrate: %w", err)
		}
		s.refuse(input, Refused, rej.Reason)
		r := &Response{Turn: s.head, Narrative: text, Rejected: rej.Reason, Awaiting: Awaiting{Kind: FreeForm}}
		return r, nil
	}
	return s.play(ctx, input, in.Intents, emit)
}

// NoteRefused is the kind of note kept for input that was answered
// without a turn: refused by the rules, not understood, or answered with
// a question to confirm it.
const NoteRefused = "refused"

// How input was answered without a turn, as a NoteRefused note says.
const (
	Refused   = "refused"          // the rules refused it
	NotPlayed = "not played"       // it was not understood
	Asked     = "asked to confirm" // the game asked before playing it
)

// ReadRefusal splits a NoteRefused note's text into the input, how it
// was answered (Refused, NotPlayed, Asked) and why.
func ReadRefusal(text string) (input, how, why string, ok bool) {
	q, err := strconv.QuotedPrefix(text)
	if err != nil {
		return "", "", "", false
	}
	if input, err = strconv.Unquote(q); err != nil {
		return "", "", "", false
	}
	how, why, ok = strings.Cut(strings.TrimPrefix(text[len(q):], " "), ": ")
	return input, how, why, ok
}

// refusal is the rules' refusal of in as the world stands, if they refuse
// it; it rolls scratch dice and changes nothing.
func (s *Session) refusal(ctx context.Context, in rules.Intent) *rules.Rejection {
	scratch := mrand.New(mrand.NewPCG(uint64(s.head), 7))
	_, err := s.eng.Resolve(ctx, s.w, in, scratch)
	var rej *rules.Rejection
	if errors.As(err, &rej) {
		return rej
	}
	return nil
}

// refuse keeps a note of input answered without a turn, for the next turn
// to record.
func (s *Session) refuse(input, how, why string) {
	const most = 20 // a long run of refusals keeps its latest
	if len(s.refused) == most {
		s.refused = s.refused[1:]
	}
	s.refused = append(s.refused, world.Note{Kind: NoteRefused, Text: fmt.Sprintf("%q %s: %s", input, how, firstLineOf(why))})
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (s *Session) reply(text string, emit func(string)) *Response {
	emit(text)
	return &Response{Turn: s.head, Narrative: text, Awaiting: Awaiting{Kind: FreeForm}}
}

// resolution is a Resolution as stored in a turn's passes.
type resolution struct {
	Intent   string          `json:"intent,omitempty"`
	Outcomes []rules.Outcome `json:"outcomes"`
}

// passes is what the pipeline's passes produced, stored with the turn.
type passes struct {
	Pipeline    string            `json:"pipeline,omitempty"`
	Interpreter string            `json:"interpreter,omitempty"`
	Narrator    string            `json:"narrator,omitempty"`
	Resolutions []resolution      `json:"resolutions"`
	Rejection   *rules.Rejection  `json:"rejection,omitempty"`
	Prompts     map[string]string `json:"prompts,omitempty"`
	Calls       []json.RawMessage `json:"calls,omitempty"`
	Lore        *loreTrace        `json:"lore,omitempty"`
	Beats       []string          `json:"beats_triggered,omitempty"`
	// Clarification is the question the turn ended with instead of an
	// action; the next turn's words answer it.
	Clarification *Question `json:"clarification,omitempty"`
}

// play resolves intents read by the interpreter as one turn and narrates
// them with the narrator: the classic, offline pipeline.
func (s *Session) play(ctx context.Context, input string, intents []rules.Intent, emit func(string)) (*Response, error) {
	return s.runTurn(ctx, input, emit, "", func(t *Turn) error {
		var done []*rules.Resolution
		for _, in := range intents {
			t.attempted = append(t.attempted, in)
			res, err := s.eng.Resolve(ctx, s.w, in, s.rng)
			if errors.As(err, &t.rejection) {
				break
			}
			if err != nil {
				return fmt.Errorf("resolve %s: %w", in.Type(), err)
			}
			if err := t.apply(res); err != nil {
				return err
			}
			done = append(done, res)
		}
		if len(done) > 0 {
			if err := s.eng.React(ctx, s.w, done, s.rng, t.apply); err != nil {
				return fmt.Errorf("react: %w", err)
			}
		}
		if _, err := s.opts.Narrator.Narrate(ctx, rules.Narration{Input: input, World: s.w, Resolutions: t.all, Rejection: t.rejection}, t.Emit); err != nil {
			return fmt.Errorf("narrate: %w", err)
		}
		return nil
	})
}

// runTurn plays one turn with body and commits it; a failing body leaves
// no trace.
func (s *Session) runTurn(ctx context.Context, input string, emit func(string), pipeline string, body func(*Turn) error) (*Response, error) {
	began := time.Now()
	resp := &Response{Awaiting: Awaiting{Kind: FreeForm}}
	if err := s.ensureTip(ctx, resp); err != nil {
		return nil, err
	}
	t := &Turn{s: s, Number: s.head + 1, Input: input, emit: emit, sceneAtStart: s.w.Scene.Number, startTime: s.w.Time}
	s.input = input
	defer func() { s.input = "" }()
	failed := func(err error) (*Response, error) {
		if lerr := s.load(context.WithoutCancel(ctx), s.head); lerr != nil {
			return nil, errors.Join(err, fmt.Errorf("reload after failed turn: %w", lerr))
		}
		return nil, err
	}
	begin := world.TurnBegan{Turn: t.Number}
	if err := s.w.Apply(begin); err != nil {
		return failed(err)
	}
	t.effects = append(t.effects, begin)
	actorAt := ""
	if pc := s.w.PC(); pc != nil {
		actorAt = pc.Location
	}
	if s.switched != "" {
		actor := world.ActorChanged{From: s.switched, To: s.w.Player}
		if err := s.w.Apply(actor); err != nil {
			return failed(err)
		}
		t.effects = append(t.effects, actor)
	}
	if s.reroll {
		// The new seed is kept with the turn (a note, and the dice state
		// every turn stores), so a replay of this branch stays exact.
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return failed(fmt.Errorf("reseed the dice: %w", err))
		}
		seed := binary.LittleEndian.Uint64(b[:])
		s.pcg = mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
		s.rng = mrand.New(s.pcg)
		note := world.NoteRecorded{Note: world.Note{Kind: world.NoteReroll, Text: fmt.Sprintf("fate rerolled: the dice were reseeded with %d", seed)}}
		if err := s.w.Apply(note); err != nil {
			return failed(err)
		}
		t.effects = append(t.effects, note)
	}
	for _, n := range s.refused {
		note := world.NoteRecorded{Note: n}
		if err := s.w.Apply(note); err != nil {
			return failed(err)
		}
		t.effects = append(t.effects, note)
	}
	for _, n := range s.nudges {
		note := world.NoteRecorded{Note: world.Note{Kind: world.NoteNudge, By: n.By, Text: n.Text}}
		if err := s.w.Apply(note); err != nil {
			return failed(err)
		}
		t.effects = append(t.effects, note)
		t.nudges = append(t.nudges, n)
	}
	if err := body(t); err != nil {
		return failed(err)
	}
	if err := t.moveWorld(ctx); err != nil {
		return failed(err)
	}
	if t.fallback != "" {
		// A model failed: the transcript says so, as the players were told.
		note := world.NoteRecorded{Note: world.Note{Kind: world.NoteFallback, Text: t.fallback}}
		if err := s.w.Apply(note); err != nil {
			return failed(err)
		}
		t.effects = append(t.effects, note)
	}
	if err := t.passScene(); err != nil {
		return failed(err)
	}
	if err := t.evaluateBeats(); err != nil {
		return failed(err)
	}
	if err := t.remember(ctx, actorAt); err != nil {
		return failed(err)
	}
	if err := t.trackCallbacks(ctx); err != nil {
		return failed(err)
	}
	played := time.Now()
	if err := s.commit(ctx, t, pipeline, began, played); err != nil {
		return failed(err)
	}
	resp.Turn, resp.Committed, resp.Narrative = t.Number, true, t.Narrative()
	resp.Agent, resp.Controller = s.w.Player, s.controllerLabel()
	if t.dm {
		resp.Agent = DM
	}
	resp.Effects, resp.Rolls = t.effects, t.rolls
	for _, r := range t.all {
		resp.Outcomes = append(resp.Outcomes, r.Outcomes...)
	}
	if t.rejection != nil {
		resp.Rejected = t.rejection.Reason
	}
	resp.Fallback = t.fallback
	resp.Awaiting = s.nextAwaiting(t.all)
	if t.confirm != "" && len(t.confirmIntents) > 0 {
		s.await = &pending{input: t.Input, intents: t.confirmIntents}
		resp.Awaiting = Awaiting{Kind: Confirmation, Prompt: t.confirm}
	}
	if len(t.offered) > 0 {
		s.await = &pending{options: t.offered}
		resp.Awaiting = Awaiting{Kind: Choice, Prompt: cmpOr(t.offerPrompt, "What do you do?"), Options: t.offered}
	}
	if s.opts.Choices != nil {
		resp.Awaiting = s.offerChoices(ctx)
	}
	if t.question != "" {
		// The question waits for its answer: no choices are offered.
		s.await = nil
		resp.Awaiting = Awaiting{Kind: Clarification, Prompt: t.question}
	}
	return resp, nil
}

// playPipeline plays free input through the configured pipeline.
func (s *Session) playPipeline(ctx context.Context, input string, emit func(string)) (*Response, error) {
	p := s.opts.Pipeline
	return s.runTurn(ctx, input, emit, p.Name(), func(t *Turn) error { return p.Play(ctx, t) })
}

// playConfirmed carries out intents the player confirmed, through the
// pipeline so that its model tells what came of them (Turn.Confirmed).
func (s *Session) playConfirmed(ctx context.Context, input string, intents []rules.Intent, emit func(string)) (*Response, error) {
	p := s.opts.Pipeline
	return s.runTurn(ctx, input, emit, p.Name(), func(t *Turn) error {
		t.confirmed = true
		for _, in := range intents {
			if _, err := t.Resolve(ctx, in); err != nil {
				var rej *rules.Rejection
				if errors.As(err, &rej) {
					break
				}
				return err
			}
		}
		return p.Play(ctx, t)
	})
}

func (s *Session) commit(ctx context.Context, t *Turn, pipeline string, began, played time.Time) error {
	n := t.Number
	ps := passes{Pipeline: pipeline, Rejection: t.rejection, Prompts: t.prompts, Calls: t.records, Beats: t.beatsTriggered}
	if t.question != "" {
		ps.Clarification = &Question{Text: t.question, Input: t.Input, Actor: s.w.Player}
	}
	if pipeline == "" {
		ps.Interpreter, ps.Narrator = "offline", "offline"
		if _, ok := s.opts.Interpreter.(*offlinegm.GM); !ok {
			ps.Interpreter = fmt.Sprintf("%T", s.opts.Interpreter)
		}
		if _, ok := s.opts.Narrator.(*offlinegm.GM); !ok {
			ps.Narrator = fmt.Sprintf("%T", s.opts.Narrator)
		}
	}
	for _, r := range t.all {
		name := ""
		if r.Intent != nil {
			name = r.Intent.Type()
		}
		ps.Resolutions = append(ps.Resolutions, resolution{Intent: name, Outcomes: r.Outcomes})
	}
	enc := func(v any) (json.RawMessage, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode turn %d: %w", n, err)
		}
		return b, nil
	}
	st := store.Turn{SessionID: s.meta.ID, BranchID: s.branch.ID, Number: n, Actor: s.w.Player,
		Controller: s.controllerLabel(), Input: t.Input, Narrative: t.Narrative()}
	if t.dm {
		st.Actor = DM
	}
	var err error
	if st.Intents, err = enc(t.attempted); err != nil {
		return err
	}
	if st.Effects, err = enc(t.effects); err != nil {
		return err
	}
	if st.Rolls, err = enc(t.rolls); err != nil {
		return err
	}
	if st.SceneLore, ps.Lore, err = t.loreForCommit(ctx); err != nil {
		return err
	}
	if st.Passes, err = enc(ps); err != nil {
		return err
	}
	if st.RNGState, err = s.pcg.MarshalBinary(); err != nil {
		return err
	}
	if st.Timings, err = enc(map[string]int64{"play_us": played.Sub(began).Microseconds()}); err != nil {
		return err
	}
	st.Memories = s.memoriesForCommit(ctx, t)
	var snap *store.Snapshot
	if n%s.opts.SnapshotEvery == 0 {
		state, err := enc(s.w)
		if err != nil {
			return err
		}
		snap = &store.Snapshot{SessionID: s.meta.ID, BranchID: s.branch.ID, Turn: n, State: state, RNGState: st.RNGState}
	}
	if err := s.st.AppendTurn(ctx, &st, snap); err != nil {
		return fmt.Errorf("save turn %d: %w", n, err)
	}
	s.head = n
	s.refused = nil
	s.reroll = false
	if t.lore != nil {
		s.lore = t.lore
	}
	if t.keywordState != nil {
		s.keywordState = t.keywordState
	}
	return nil
}

// controllerLabel is who decided the turn being committed: the caller's
// word, else the acting member's controller.
func (s *Session) controllerLabel() string {
	if s.by != "" {
		return s.by
	}
	for _, m := range s.w.Members() {
		if m.Character == s.w.Player {
			return m.Controller.Label()
		}
	}
	return ""
}

// nextAwaiting offers the topics of a conversation as choices.
func (s *Session) nextAwaiting(all []*rules.Resolution) Awaiting {
	for i := len(all) - 1; i >= 0; i-- {
		for _, o := range all[i].Outcomes {
			if o.Action != "talk" {
				continue
			}
			topics, _ := o.Details["topics"].([]string)
			npc := s.w.Characters[o.Target]
			if len(topics) == 0 || npc == nil {
				continue
			}
			first := strings.Fields(npc.Name)[0]
			var opts []string
			for _, t := range topics {
				about := "the " + strings.ReplaceAll(t, "_", " ")
				if c := s.w.Characters[t]; c != nil {
					about = c.Name
				}
				opts = append(opts, fmt.Sprintf("ask %s about %s", first, about))
			}
			s.await = &pending{options: opts}
			return Awaiting{Kind: Choice, Prompt: "Ask about something (type a number), or do anything else.", Options: opts}
		}
	}
	return Awaiting{Kind: FreeForm}
}

// ensureTip starts a new branch when the player acts after restoring an
// earlier turn, so the later turns are kept.
func (s *Session) ensureTip(ctx context.Context, resp *Response) error {
	tip, err := s.st.Tip(ctx, s.branch.ID)
	if err != nil {
		return fmt.Errorf("find the end of branch %s: %w", s.branch.Name, err)
	}
	if s.head >= tip {
		return nil
	}
	name, err := s.freeBranchName(ctx, s.branch.Name)
	if err != nil {
		return err
	}
	old := s.branch.Name
	if _, err := s.forkLocked(ctx, name, ""); err != nil {
		return err
	}
	resp.Notice = fmt.Sprintf("Playing on from turn %d starts branch %q; turns %d–%d stay on %q.", s.head, name, s.head+1, tip, old)
	return nil
}

var numbered = regexp.MustCompile(`-\d+$`)

func (s *Session) freeBranchName(ctx context.Context, base string) (string, error) {
	base = numbered.ReplaceAllString(base, "")
	brs, err := s.st.Branches(ctx, s.meta.ID)
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, b := range brs {
		taken[b.Name] = true
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s-%d", base, i); !taken[n] {
			return n, nil
		}
	}
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}

// Look narrates the player's surroundings without taking a turn.
func (s *Session) Look(ctx context.Context, emit func(string)) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if emit == nil {
		emit = func(string) {}
	}
	res, err := s.eng.Resolve(ctx, s.w, rules.Look{}, s.rng)
	if err != nil {
		var rej *rules.Rejection
		if errors.As(err, &rej) {
			emit(rej.Reason)
			return rej.Reason, nil
		}
		return "", err
	}
	if len(res.Rolls) > 0 {
		return "", fmt.Errorf("look rolled dice; it must not, or the game would not replay")
	}
	return s.opts.Narrator.Narrate(ctx, rules.Narration{Input: "look", World: s.w, Resolutions: []*rules.Resolution{res}}, emit)
}
