package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Pipeline plays a turn of free input: a model-driven game master reading
// the player's words, calling the rules through Turn.Resolve and telling
// what happened through Turn.Emit. Whatever it resolved and narrated is
// committed as one turn when it returns nil; on an error nothing is.
type Pipeline interface {
	// Name identifies the pipeline in turn records ("agentic").
	Name() string
	Play(ctx context.Context, t *Turn) error
}

// Turn is a turn in progress, handed to a Pipeline. It is not safe for
// concurrent use.
type Turn struct {
	s      *Session
	Number int
	Input  string

	emit      func(string)
	narrative strings.Builder
	effects   world.Effects
	rolls     []dice.Result
	all       []*rules.Resolution
	attempted rules.Intents
	rejection *rules.Rejection
	records   []json.RawMessage
	prompts   map[string]string

	lore         *lore.Cache
	lorePrepared bool
	turnLore     *lore.TurnLore
	keywordState *lorebook.State
	memories     *[]narrative.Match
	remembered   []narrative.Event // committed with the turn

	sceneAtStart   int
	beatsTriggered []string

	offerPrompt string
	offered     []string

	// A question the turn ends with, guarding intents not resolved yet;
	// confirmed marks the turn that carries them out after a yes.
	confirm        string
	confirmIntents []rules.Intent
	confirmed      bool

	dm bool // the DM's own turn, not a party member's

	nudges   []Nudge
	fallback string // what played the turn when the pipeline's model failed

	question        string         // the clarifying question the turn ends with
	answering       **Question     // the previous turn's question, once read
	startTime       world.GameTime // game time when the turn began
	triggersChecked bool           // a model decided the free-text triggers
}

// Nudges are the table's suggestions for this turn's narration: context
// for the game master, never the acting character's words.
func (t *Turn) Nudges() []Nudge { return slices.Clone(t.nudges) }

// NoteSections is the table's suggestions as a context section for the
// game master's model.
func (t *Turn) NoteSections(_ context.Context, _ access.Level) []contextpack.Section {
	if len(t.nudges) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Suggestions from the table (ideas for the story, not the character's actions; use them if they fit):")
	for _, n := range t.nudges {
		fmt.Fprintf(&b, "\n- (suggested by %s: %s)", n.By, n.Text)
	}
	text := b.String()
	return []contextpack.Section{{Name: "suggestions", Tier: contextpack.TierAuthored, Text: text, Tokens: len(text)/4 + 1}}
}

// World is the state as the turn has changed it so far. Pipelines must
// not modify it; they change the world through Resolve.
func (t *Turn) World() *world.State { return t.s.w }

// Campaign describes the campaign.
func (t *Turn) Campaign() Campaign { return t.s.Campaign() }

// Resolve asks the rules engine to carry out an intent and applies the
// result, with everything it sets off (consequences, enemy turns, scheduled
// events). A refusal is a *rules.Rejection and changes nothing. ctx reaches
// the engine's situational callback, which recalls memories.
func (t *Turn) Resolve(ctx context.Context, in rules.Intent) (*rules.Resolution, error) {
	t.attempted = append(t.attempted, in)
	res, err := t.s.eng.Resolve(ctx, t.s.w, in, t.s.rng)
	var rej *rules.Rejection
	if errors.As(err, &rej) {
		if t.rejection == nil {
			t.rejection = rej
		}
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", in.Type(), err)
	}
	if err := t.apply(res); err != nil {
		return nil, err
	}
	before := len(t.all)
	if err := t.s.eng.React(ctx, t.s.w, []*rules.Resolution{res}, t.s.rng, t.apply); err != nil {
		return nil, fmt.Errorf("react to %s: %w", in.Type(), err)
	}
	// The reactions are part of what the caller is told.
	out := &rules.Resolution{Intent: res.Intent, Rolls: res.Rolls}
	for _, r := range t.all[before-1:] {
		out.Outcomes = append(out.Outcomes, r.Outcomes...)
	}
	return out, nil
}

func (t *Turn) apply(res *rules.Resolution) error {
	for _, e := range res.Effects() {
		if err := t.s.w.Apply(e); err != nil {
			return fmt.Errorf("apply %s: %w", e.Kind(), err)
		}
		t.effects = append(t.effects, e)
	}
	t.rolls = append(t.rolls, res.Rolls...)
	t.all = append(t.all, res)
	return nil
}

// Check tells whether the rules would accept an intent now, without
// rolling the game's dice or changing anything: a validator for what a
// model proposes.
func (t *Turn) Check(ctx context.Context, in rules.Intent) error {
	scratch := mrand.New(mrand.NewPCG(uint64(t.Number), 7))
	_, err := t.s.eng.Resolve(ctx, t.s.w, in, scratch)
	return err
}

// Resolutions returns what has been resolved so far, reactions included.
func (t *Turn) Resolutions() []*rules.Resolution { return t.all }

// Rejection is the first refusal of the turn, if any.
func (t *Turn) Rejection() *rules.Rejection { return t.rejection }

// Emit streams narration to the player and adds it to the turn's
// narrative.
func (t *Turn) Emit(text string) {
	if text == "" {
		return
	}
	t.narrative.WriteString(text)
	t.emit(text)
}

// Narrative is what has been emitted so far.
func (t *Turn) Narrative() string { return t.narrative.String() }

// Record stores what a pass saw and produced with the turn (it must
// encode as JSON).
func (t *Turn) Record(pass any) error {
	b, err := json.Marshal(pass)
	if err != nil {
		return fmt.Errorf("record pass: %w", err)
	}
	t.records = append(t.records, b)
	return nil
}

// UsePrompt records that the turn used a prompt version ("narrator@2").
func (t *Turn) UsePrompt(name, id string) {
	if t.prompts == nil {
		t.prompts = map[string]string{}
	}
	t.prompts[name] = id
}

// Recent returns up to n turns before this one, oldest first, with their
// pass records.
func (t *Turn) Recent(ctx context.Context, n int) ([]TurnRecord, error) {
	return t.s.turns(ctx, t.Number-n, t.Number-1)
}

// Fallback plays the turn with the offline interpreter and narrator,
// resolving the player's words by pattern: what a pipeline does when its
// model cannot be used. It narrates (through Emit) whatever has been
// resolved so far too.
func (t *Turn) Fallback(ctx context.Context) error {
	t.fallback = "offline interpreter and narrator"
	if len(t.all) == 0 && t.rejection == nil {
		in, err := t.s.opts.Interpreter.Interpret(ctx, t.s.w, t.Input)
		if err != nil {
			return fmt.Errorf("offline interpreter: %w", err)
		}
		switch {
		case in.Query == "recap":
			text, err := t.s.recap(ctx)
			if err != nil {
				return err
			}
			t.Emit(text)
			return nil
		case in.Query != "":
			t.Emit(Query(t.s.w, in.Query))
			return nil
		case len(in.Intents) == 0:
			t.Emit(cmpOr(in.Reply, "Nothing happens. (Type help for ideas.)"))
			return nil
		case in.Confirm != "":
			t.Confirm(in.Confirm, in.Intents...)
			t.Emit(in.Confirm + " (yes/no)")
			return nil
		}
		for _, intent := range in.Intents {
			if _, err := t.Resolve(ctx, intent); err != nil {
				var rej *rules.Rejection
				if errors.As(err, &rej) {
					break
				}
				return err
			}
		}
	}
	return t.NarrateOffline(ctx)
}

// NarrateOffline narrates what the turn resolved with the offline
// narrator. Like Fallback, it marks the turn as played offline: the
// response says so (Response.Fallback) and the turn keeps a note.
func (t *Turn) NarrateOffline(ctx context.Context) error {
	if t.fallback == "" {
		t.fallback = "offline narrator"
	}
	_, err := t.s.opts.Narrator.Narrate(ctx, rules.Narration{Input: t.Input, World: t.s.w, Resolutions: t.all, Rejection: t.rejection}, t.Emit)
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Interpret reads the input with the session's offline interpreter.
func (t *Turn) Interpret(ctx context.Context) (rules.Interpretation, error) {
	return t.s.opts.Interpreter.Interpret(ctx, t.s.w, t.Input)
}

// UsePipeline sets the pipeline that plays free input (nil: the classic
// offline interpreter and narrator).
func (s *Session) UsePipeline(p Pipeline) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Pipeline = p
}

// CampaignPath is the directory the campaign was loaded from ("" or a
// path inside the binary for the built-in campaign).
func (s *Session) CampaignPath() string { return s.meta.CampaignPath }

// Patch deep-merges a skill's state patch into the world (seed 001 §2.4)
// as an effect of the turn: player and NPC stats are clamped to their
// ranges, perception to ±100, and the rest lands in the free-form state.
func (t *Turn) Patch(patch map[string]any) error {
	if len(patch) == 0 {
		return nil
	}
	e := world.StatePatched{Patch: patch}
	if err := t.s.w.Apply(e); err != nil {
		return fmt.Errorf("apply the skills' state patch: %w", err)
	}
	t.effects = append(t.effects, e)
	return nil
}

// Session is the ID of the playthrough the turn belongs to.
func (t *Turn) Session() string { return t.s.meta.ID }

// Memories is the session's memory store, or nil.
func (t *Turn) Memories() Memories { return t.s.opts.Memories }

// Offer ends the turn with choices for the player (a skill's
// narrative_choice); a number typed next picks one.
func (t *Turn) Offer(prompt string, options []string) {
	t.offerPrompt, t.offered = prompt, options
}

// Confirm ends the turn with a yes/no question guarding intents the
// pipeline did not resolve (an attack on someone who is not hostile:
// rules.HostileAct). A yes next plays them as a turn of their own, in
// which Confirmed is true; a no drops them. The pipeline tells the player
// the question through Emit.
func (t *Turn) Confirm(question string, intents ...rules.Intent) {
	t.confirm, t.confirmIntents = question, slices.Clone(intents)
}

// Confirming is the question the turn ends with, if Confirm was called.
func (t *Turn) Confirming() string { return t.confirm }

// Confirmed reports that the turn carries out intents the player
// confirmed: they are resolved before the pipeline plays, which only has
// to tell what came of them.
func (t *Turn) Confirmed() bool { return t.confirmed }

// Pipeline is the pipeline playing free input; nil when the game plays
// offline.
func (s *Session) Pipeline() Pipeline {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.Pipeline
}
