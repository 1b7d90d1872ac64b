package rules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/spell"
	"github.com/hearth-rpg/hearth/world"
)

// Outcome is one observable thing that happened: who did what to whom, how
// the dice fell, and the effects. Text states it plainly, for a model's
// tool result and as the skeleton of narration.
type Outcome struct {
	Actor   string         `json:"actor,omitempty"`
	Action  string         `json:"action"`
	Target  string         `json:"target,omitempty"`
	Item    string         `json:"item,omitempty"`
	Check   *CheckResult   `json:"check,omitempty"`
	Amount  int            `json:"amount,omitempty"`
	Quote   string         `json:"quote,omitempty"` // what a character says
	Text    string         `json:"text"`
	Effects world.Effects  `json:"effects,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// Resolution is what an intent (or a reaction of the world) came to.
type Resolution struct {
	Intent   Intent        `json:"-"`
	Outcomes []Outcome     `json:"outcomes"`
	Rolls    []dice.Result `json:"rolls,omitempty"`
}

// Effects returns the effects of all outcomes, in order.
func (r *Resolution) Effects() []world.Effect {
	var out []world.Effect
	for _, o := range r.Outcomes {
		out = append(out, o.Effects...)
	}
	return out
}

// Summary is the plain text of all outcomes, as a model's tool result.
func (r *Resolution) Summary() string {
	parts := make([]string, 0, len(r.Outcomes))
	for _, o := range r.Outcomes {
		if o.Text != "" {
			parts = append(parts, o.Text)
		}
	}
	return strings.Join(parts, " ")
}

func (r *Resolution) add(o Outcome) *Outcome {
	r.Outcomes = append(r.Outcomes, o)
	return &r.Outcomes[len(r.Outcomes)-1]
}

// Engine resolves intents under one resolution system. It holds no game
// state and is safe for concurrent use.
type Engine struct {
	sys         System
	book        *spell.Book // nil: the bundled SRD's
	situational func(ctx context.Context, w *world.State, in Intent) []Situational
}

// Situational is a modifier to a check that comes from outside the rules
// — a triumph or failure the story calls back (seed 001 §7.4) — with the
// reason shown to the player.
type Situational struct {
	Bonus  int    `json:"bonus"`
	Reason string `json:"reason"`
}

// SetSituational installs fn, asked for the situational modifiers of each
// ability check before it is rolled, with the context of the Resolve or
// React call (fn may read a database). A nil fn adds none.
func (e *Engine) SetSituational(fn func(ctx context.Context, w *world.State, in Intent) []Situational) {
	e.situational = fn
}

// New returns an engine for a resolution system: d20, 2d6 or traveller.
func New(system string) (*Engine, error) {
	s, err := NewSystem(system)
	if err != nil {
		return nil, err
	}
	return &Engine{sys: s}, nil
}

// System returns the engine's resolution system.
func (e *Engine) System() System { return e.sys }

// Resolve decides what an intent comes to in state w, rolling with r. It
// does not change w. A refused intent returns a *Rejection. ctx reaches
// the situational callback.
func (e *Engine) Resolve(ctx context.Context, w *world.State, in Intent, r *rand.Rand) (*Resolution, error) {
	if in == nil {
		return nil, fmt.Errorf("resolve: nil intent")
	}
	x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{Intent: in}}
	if err := x.resolve(in); err != nil {
		return nil, err
	}
	return x.res, nil
}

// TakesAction reports whether an intent spends the player's turn in combat
// (so the enemies act after it). Looking, talking and rolling are free.
func TakesAction(in Intent) bool {
	switch in.Type() {
	case "attack", "grapple", "use_item", "flee", "ability_check", "saving_throw", "search",
		"take_item", "give_item", "drop_item", "equip_item", "heal", "move", "cast_spell":
		return true
	}
	return false
}

// resolver carries one resolution.
type resolver struct {
	ctx context.Context // for the situational callback
	e   *Engine
	w   *world.State
	r   *rand.Rand
	res *Resolution
	ids map[string]int // IDs allocated so far, by prefix
}

func (x *resolver) roll(c *world.Character, q roll) (CheckResult, error) {
	cr, err := x.e.sys.Resolve(x.r, c, q)
	if err != nil {
		return CheckResult{}, err
	}
	x.res.Rolls = append(x.res.Rolls, cr.Roll)
	return cr, nil
}

func (x *resolver) dice(notation, label string) (dice.Result, error) {
	res, err := dice.Roll(x.r, notation, nil)
	if err != nil {
		return dice.Result{}, err
	}
	if res.Label == "" {
		res.Label = label
	}
	x.res.Rolls = append(x.res.Rolls, res)
	return res, nil
}

func (x *resolver) resolve(in Intent) error {
	switch v := in.(type) {
	case Check:
		return x.check(v)
	case SavingThrow:
		return x.save(v)
	case Attack:
		return x.attack(v)
	case Grapple:
		return x.grapple(v)
	case Damage:
		return x.damage(v)
	case CastSpell:
		return x.castSpell(v)
	case Heal:
		return x.heal(v)
	case ApplyCondition:
		return x.applyCondition(v)
	case RemoveCondition:
		return x.removeCondition(v)
	case Move:
		return x.move(v)
	case Rest:
		return x.rest(v)
	case UseItem:
		return x.useItem(v)
	case TakeItem:
		return x.takeItem(v)
	case GiveItem:
		return x.giveItem(v)
	case DropItem:
		return x.dropItem(v)
	case EquipItem:
		return x.equipItem(v)
	case ChangeGold:
		return x.changeGold(v)
	case Look:
		return x.look(v)
	case Search:
		return x.search(v)
	case Talk:
		return x.talk(v)
	case RollDice:
		return x.rollDice(v)
	case StartCombat:
		return x.startCombat(v)
	case EndCombat:
		return x.endCombat(v)
	case Flee:
		return x.flee(v)
	case DeathSave:
		return x.deathSave(v)
	case CreateNPC:
		return x.createNPC(v)
	case UpdateNPC:
		return x.updateNPC(v)
	case MoveNPC:
		return x.moveNPC(v)
	case RemoveNPC:
		return x.removeNPC(v)
	case CreateLocation:
		return x.createLocation(v)
	case ConnectLocations:
		return x.connectLocations(v)
	case UpdateLocation:
		return x.updateLocation(v)
	case RememberFact:
		return x.rememberFact(v)
	case RegisterConsequence:
		return x.registerConsequence(v)
	case CreateQuest:
		return x.createQuest(v)
	case StartQuest:
		return x.startQuest(v)
	case AddObjective:
		return x.addObjective(v)
	case CompleteObjective:
		return x.completeObjective(v)
	case CompleteQuest:
		return x.completeQuest(v)
	case FailQuest:
		return x.failQuest(v)
	case ScheduleEvent:
		return x.scheduleEvent(v)
	case AssertState:
		return x.assertState(v)
	case ChangeReputation:
		return x.changeReputation(v)
	case ChangePerception:
		return x.changePerception(v)
	case ChangeStat:
		return x.changeStat(v)
	case CreateClock:
		return x.createClock(v)
	case AdvanceClock:
		return x.advanceClock(v)
	case UpdateThread:
		return x.updateThread(v)
	case ChangeScene:
		return x.changeScene(v)
	case Whisper:
		return x.whisper(v)
	case RevealSecret:
		return x.revealSecret(v)
	case AdvanceTime:
		return x.advanceTime(v)
	}
	return fmt.Errorf("resolve: intent type %T is not handled", in)
}
