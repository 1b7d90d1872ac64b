package rules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// maxReactions bounds one React call, so consequences that trigger each
// other cannot loop.
const maxReactions = 64

// Step applies one reaction's effects to the state. React calls it before
// deciding the next reaction, so each sees the world as the last left it.
type Step func(*Resolution) error

// React runs what the world does after the player's resolutions this turn:
// consequences whose triggers happened, an encounter waiting where the
// player arrived, the enemies' turns in a fight (when the player spent an
// action), the end of the fight, and scheduled events whose time came.
func (e *Engine) React(ctx context.Context, w *world.State, done []*Resolution, r *rand.Rand, apply Step) error {
	n := 0
	step := func(res *Resolution) error {
		if res == nil || len(res.Outcomes) == 0 {
			return nil
		}
		n++
		if n > maxReactions {
			return fmt.Errorf("react: more than %d reactions in one turn; a consequence probably triggers itself", maxReactions)
		}
		done = append(done, res)
		return apply(res)
	}
	acted, arrived := false, false
	for _, d := range done {
		if d.Intent != nil && TakesAction(d.Intent) {
			acted = true
		}
		for _, e := range d.Effects() {
			if m, ok := e.(world.CharacterMoved); ok && m.Character == w.Player {
				arrived = true
			}
		}
	}
	if err := e.consequences(ctx, w, done, r, step); err != nil {
		return err
	}
	// started is true when a fight began on arrival this turn: the player's
	// action is spent, and only enemies quicker than the player act.
	started, err := e.encounter(ctx, w, r, step, arrived)
	if err != nil {
		return err
	}
	ambushed := started
	if w.Combat != nil && acted && !ambushed {
		if err := e.enemyTurns(ctx, w, r, step, nil); err != nil {
			return err
		}
	}
	// A Shield ward lasts until its caster's next turn: past the enemies'.
	if acted {
		if es := dropShields(w); len(es) > 0 {
			res := &Resolution{}
			res.add(Outcome{Action: "spell_ended", Text: "The shimmering ward fades.", Effects: es})
			if err := step(res); err != nil {
				return err
			}
		}
	}
	if err := e.endFight(ctx, w, r, step, acted && !started); err != nil {
		return err
	}
	if err := e.tend(ctx, w, r, step); err != nil {
		return err
	}
	if err := e.scheduled(ctx, w, r, step); err != nil {
		return err
	}
	// Reactions may themselves trigger consequences (a defeat, a move).
	return e.consequences(ctx, w, done, r, step)
}

// consequences fires every untriggered consequence whose trigger happened
// in the resolutions so far.
func (e *Engine) consequences(ctx context.Context, w *world.State, done []*Resolution, r *rand.Rand, step Step) error {
	for _, id := range world.SortedKeys(w.Consequences) {
		c := w.Consequences[id]
		if c.Triggered || c.On == "" || !triggered(w, c, done) {
			continue
		}
		res := &Resolution{}
		res.add(Outcome{Action: "consequence", Target: c.ID, Text: c.Description,
			Effects: world.Effects{world.ConsequenceTriggered{ID: c.ID}}, Details: map[string]any{"trigger": c.Trigger}})
		if err := step(res); err != nil {
			return err
		}
		if err := e.follow(ctx, w, c.Then, r, step); err != nil {
			return err
		}
	}
	return nil
}

// follow resolves and applies the intents a consequence or event carries.
// One that no longer fits the world is skipped and reported, so authored
// content cannot wedge a game.
func (e *Engine) follow(ctx context.Context, w *world.State, then []world.RawIntent, r *rand.Rand, step Step) error {
	for _, raw := range then {
		in, err := DecodeIntent(raw)
		if err != nil {
			return step(noteOutcome("skipped", fmt.Sprintf("(a follow-up could not be read: %v)", err)))
		}
		res, err := e.Resolve(ctx, w, in, r)
		if err != nil {
			if rej, ok := err.(*Rejection); ok {
				if err := step(noteOutcome("skipped", fmt.Sprintf("(%s did not happen: %s)", in.Type(), rej.Reason))); err != nil {
					return err
				}
				continue
			}
			return err
		}
		if err := step(res); err != nil {
			return err
		}
	}
	return nil
}

func noteOutcome(action, text string) *Resolution {
	res := &Resolution{}
	res.add(Outcome{Action: action, Text: text})
	return res
}

func triggered(w *world.State, c *world.Consequence, done []*Resolution) bool {
	pc := w.PC()
	if c.At != "" && (pc == nil || pc.Location != c.At) {
		return false
	}
	for _, d := range done {
		for _, o := range d.Outcomes {
			switch c.On {
			case world.OnTalk:
				if o.Action == "talk" && o.Target == c.Target {
					return true
				}
			case world.OnUse:
				if o.Action == "use_item" && o.Item == c.Target {
					return true
				}
			}
			for _, eff := range o.Effects {
				switch ef := eff.(type) {
				case world.CharacterMoved:
					if c.On == world.OnEnter && pc != nil && ef.Character == pc.ID && ef.To == c.Target {
						return true
					}
				case world.ItemTransferred:
					if c.On == world.OnTake && pc != nil && ef.To == pc.ID && ef.Item == c.Target {
						return true
					}
				case world.ConditionApplied:
					if c.On == world.OnDefeat && ef.Target == c.Target && (ef.Condition == "dead" || ef.Condition == "unconscious") {
						return true
					}
				case world.NPCRemoved:
					if c.On == world.OnDefeat && ef.ID == c.Target {
						return true
					}
				case world.QuestStatusChanged:
					if c.On == world.OnQuestComplete && ef.Quest == c.Target && ef.To == world.QuestCompleted {
						return true
					}
				}
			}
		}
	}
	return false
}

// encounter starts a fight when the player is somewhere with a waiting
// encounter, or arrives where hostile characters are; enemies quicker than
// the player strike first. It reports whether a fight started.
func (e *Engine) encounter(ctx context.Context, w *world.State, r *rand.Rand, step Step, arrived bool) (bool, error) {
	pc := w.PC()
	if pc == nil || w.Combat != nil || !pc.Alive() || pc.HasCondition("unconscious") {
		return false, nil
	}
	l := w.Locations[pc.Location]
	if l == nil {
		return false, nil
	}
	standing := func(c *world.Character) bool {
		return c != nil && c.Location == l.ID && c.Alive() && !c.HasCondition("dead") && !c.HasCondition("unconscious")
	}
	var foes []*world.Character
	waiting := l.Encounter != nil && !l.Encounter.Triggered
	if waiting {
		for _, id := range l.Encounter.Creatures {
			if c := w.Characters[id]; standing(c) {
				foes = append(foes, c)
			}
		}
	} else if arrived {
		for _, c := range w.CharactersAt(l.ID) {
			if c.Hostile && standing(c) {
				foes = append(foes, c)
			}
		}
	}
	if len(foes) == 0 {
		return false, nil
	}
	x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{Intent: StartCombat{}}}
	switch {
	case waiting && l.Encounter.Text != "":
		x.res.add(Outcome{Action: "encounter", Target: l.ID, Text: l.Encounter.Text})
	case !waiting:
		x.res.add(Outcome{Action: "encounter", Target: l.ID, Text: List(nameList(foes), "and") + " turn on you as you return."})
	}
	if err := x.beginCombat(StartCombat{}, foes, "encounter"); err != nil {
		return false, err
	}
	// The foes are hostile from now on, whatever they were.
	for _, f := range foes {
		if !f.Hostile {
			x.res.Outcomes[len(x.res.Outcomes)-1].Effects = append(x.res.Outcomes[len(x.res.Outcomes)-1].Effects,
				world.NPCUpdated{ID: f.ID, Changes: map[string]any{"hostile": true}})
		}
	}
	if err := step(x.res); err != nil {
		return false, err
	}
	// Those who beat the player's initiative act before the player.
	var first []string
	pcIni := 0
	for _, cb := range w.Combat.Order {
		if cb.ID == pc.ID {
			pcIni = cb.Initiative
		}
	}
	for _, cb := range w.Combat.Order {
		if cb.ID != pc.ID && cb.Initiative > pcIni {
			first = append(first, cb.ID)
		}
	}
	if len(first) == 0 {
		return true, nil
	}
	return true, e.enemyTurns(ctx, w, r, step, first)
}

// enemyTurns lets hostile combatants act in initiative order (only those in
// only, when given). Each turn is applied before the next is decided.
func (e *Engine) enemyTurns(ctx context.Context, w *world.State, r *rand.Rand, step Step, only []string) error {
	if w.Combat == nil {
		return nil
	}
	order := append([]world.Combatant(nil), w.Combat.Order...)
	for _, cb := range order {
		if only != nil && !containsFold(only, cb.ID) {
			continue
		}
		pc := w.PC()
		if pc == nil || w.Combat == nil || !pc.Alive() || pc.HasCondition("unconscious") {
			return nil
		}
		npc := w.Characters[cb.ID]
		if npc == nil || npc.ID == pc.ID || !npc.Hostile || !npc.Alive() || npc.HasCondition("dead") ||
			npc.HasCondition("unconscious") || npc.Location != pc.Location {
			continue
		}
		in := Attack{Attacker: npc.ID, Target: pc.ID}
		x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{Intent: in}}
		if i := slices.IndexFunc(held, npc.HasCondition); i >= 0 {
			x.res.add(Outcome{Actor: npc.ID, Action: "enemy_held", Text: fmt.Sprintf("%s is %s and cannot act.", npc.Name, held[i])})
		} else {
			wp, err := x.weaponOf(in, npc, "")
			if err != nil {
				return err
			}
			adv := Advantage(0)
			if err := x.strike(npc, pc, wp, adv); err != nil {
				return err
			}
			for i := range x.res.Outcomes {
				x.res.Outcomes[i].Action = "enemy_attack"
			}
		}
		if err := x.endOfTurn(npc); err != nil {
			return err
		}
		if err := step(x.res); err != nil {
			return err
		}
	}
	return nil
}

// endFight ends the fight when one side is down, or (when nextRound) starts
// the next round.
func (e *Engine) endFight(ctx context.Context, w *world.State, r *rand.Rand, step Step, nextRound bool) error {
	if w.Combat == nil {
		return nil
	}
	pc := w.PC()
	if pc == nil {
		return nil
	}
	if !pc.Alive() || pc.HasCondition("unconscious") || pc.HasCondition("dead") {
		return e.defeat(ctx, w, r, step)
	}
	standing, fallen := 0, 0
	for _, cb := range w.Combat.Order {
		c := w.Characters[cb.ID]
		if c == nil || c.ID == pc.ID || !c.Hostile {
			continue
		}
		if c.Alive() && !c.HasCondition("dead") && !c.HasCondition("unconscious") && c.Location == pc.Location {
			standing++
		} else {
			fallen++
		}
	}
	res := &Resolution{}
	if standing == 0 {
		xp := 50 * max(1, fallen)
		// Spells measured in rounds end with the fight.
		es, text := expireSpells(w, 0)
		res.add(Outcome{Action: "combat_ended", Text: strings.Join(append([]string{"The fight is won."}, text...), " "), Details: map[string]any{"outcome": world.Victory},
			Effects: append(world.Effects{world.CombatEnded{Outcome: world.Victory}, world.XPGained{Character: pc.ID, Amount: xp, Reason: "victory"}}, es...)})
		return step(res)
	}
	if !nextRound {
		return nil
	}
	next := w.Combat.Round + 1
	es, text := expireSpells(w, next)
	res.add(Outcome{Action: "combat_round", Text: strings.Join(append([]string{fmt.Sprintf("Round %d.", next)}, text...), " "),
		Effects: append(world.Effects{world.CombatRound{Round: next}}, es...)})
	return step(res)
}

// scheduled fires events whose time has come, earliest first.
func (e *Engine) scheduled(ctx context.Context, w *world.State, r *rand.Rand, step Step) error {
	for range maxReactions {
		var due *world.ScheduledEvent
		for _, id := range world.SortedKeys(w.Scheduled) {
			ev := w.Scheduled[id]
			if !ev.Fired && ev.At <= w.Time && (due == nil || ev.At < due.At) {
				due = ev
			}
		}
		if due == nil {
			return nil
		}
		x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{}}
		x.res.add(Outcome{Action: "event", Target: due.ID, Text: due.Description,
			Effects: world.Effects{
				world.ScheduledEventFired{ID: due.ID},
				world.EventRecorded{Event: world.Event{ID: x.newID("event"), Name: due.Description, Description: due.Description,
					Turn: w.Turn, At: w.Time, Location: due.Location}},
			}})
		if err := step(x.res); err != nil {
			return err
		}
		if err := e.follow(ctx, w, due.Then, r, step); err != nil {
			return err
		}
	}
	return nil
}
