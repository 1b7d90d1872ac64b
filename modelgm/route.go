package modelgm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/world"
)

// subagent is a focused game master: its own prompt, tools and slice of
// the context.
type subagent struct {
	name, prompt string
	tools        []string // nil: every tool
	sections     []string // nil: every section
}

func (s subagent) keep(name string) bool {
	return s.sections == nil || slices.Contains(s.sections, name)
}

// Every subagent can roll (roll_dice, ability_check); the npc agent can
// fight when a talk turns violent and introduce someone; exploration can
// put a new place or person on the map; the worldbuilder holds the rest
// of the world-building tools. Each list stays short for small models
// (TestCallSizes).
var (
	general = subagent{name: "dm", prompt: "dm"}
	combat  = subagent{name: "combat", prompt: "combat",
		tools: []string{"attack", "cast_spell", "damage", "heal", "saving_throw", "ability_check", "apply_condition", "remove_condition",
			"grapple", "flee", "end_combat", "use_item", "equip_item", "move", "roll_dice"},
		sections: []string{"campaign", "module", "state", "characters", "recent", "action"}}
	npc = subagent{name: "npc", prompt: "npc",
		tools: []string{"talk", "ability_check", "give_item", "change_perception", "change_reputation", "start_quest",
			"complete_objective", "reveal_secret", "whisper", "remember_fact", "start_combat", "attack", "create_npc", "roll_dice"},
		sections: []string{"campaign", "module", "state", "characters", "quests", "whispers", "facts", "lore: npc briefings", "lore: atmosphere", "memories",
			"summary", "recent", "action"}}
	rulesAgent = subagent{name: "rules", prompt: "rules",
		tools:    []string{"document_search", "document_get", "roll_dice", "ability_check"},
		sections: []string{"campaign", "state", "action"}}
	exploration = subagent{name: "exploration", prompt: "exploration",
		tools: []string{"move", "look", "search", "take_item", "drop_item", "use_item", "equip_item", "ability_check",
			"rest", "advance_time", "talk", "start_combat", "change_scene", "roll_dice", "create_location", "create_npc",
			"document_search", "document_get"}}
	worldbuilder = subagent{name: "worldbuilder", prompt: "worldbuilder",
		tools: []string{"create_npc", "update_npc", "move_npc", "create_location", "connect_locations", "update_location",
			"create_quest", "add_quest_objective", "register_consequence", "schedule_event", "create_clock", "advance_clock",
			"advance_time", "remember_fact", "check_schedule", "roll_dice", "ability_check"}}
)

// subagents are the routed game masters, in the order the router offers
// them.
var subagents = []subagent{combat, npc, exploration, rulesAgent, worldbuilder}

func subagentNamed(name string) (subagent, bool) {
	i := slices.IndexFunc(subagents, func(s subagent) bool { return s.name == name })
	if i < 0 {
		return subagent{}, false
	}
	return subagents[i], true
}

// routing is the router's answer.
type routing struct {
	Agent string `json:"agent" jsonschema:"combat, npc, exploration, rules or worldbuilder"`
}

// aliases are words a small model answers with instead of the names asked.
var aliases = map[string]string{"social": "npc", "conversation": "npc", "dialogue": "npc", "talk": "npc", "fight": "combat",
	"explore": "exploration", "rule": "rules", "worldbuilding": "worldbuilder", "world": "worldbuilder", "world-building": "worldbuilder"}

// routeTurn picks the subagent for the turn. During a fight it is combat.
// Otherwise a small JSON call asks the router model (the interpreter role)
// which subagent the player's words need; when that call fails or answers
// nonsense, the keyword router decides. The call is recorded with the
// turn as the "router" pass.
func (p *Pipeline) routeTurn(ctx context.Context, t *game.Turn) (subagent, error) {
	w := t.World()
	if w.Combat != nil {
		return combat, nil
	}
	start := time.Now()
	role := p.cfg.Interpreter
	system, pid, err := p.system(t, "router", nil)
	if err != nil {
		return subagent{}, err
	}
	call := Call{Pass: "router", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system}
	req := llm.Request{Model: role.Model, Schema: p.router.Schema(), Messages: []llm.Message{
		{Role: llm.System, Content: system},
		{Role: llm.User, Content: scene(w) + "\nThe player: " + t.Input},
	}}
	// An offline interpreter cannot classify; the keywords are its answer,
	// expected rather than a failure worth a warning every turn.
	if role.Provider.Name() == "offline" {
		sub := route(w, t.Input)
		call.Fallback = "keyword router"
		call.Output = raw(routing{Agent: sub.name})
		return sub, t.Record(call)
	}
	sub, err := p.classify(ctx, req, &call)
	call.Millis = time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return subagent{}, ctx.Err()
	}
	if err != nil {
		call.Error, call.Fallback = err.Error(), "keyword router"
		p.cfg.Logger.Warn("router model failed; routing by keywords", "err", err)
		sub = route(w, t.Input)
	}
	call.Output = raw(routing{Agent: sub.name})
	return sub, t.Record(call)
}

// classify makes the router's one call: no repair round, since the
// keyword router is a good enough answer to a bad one.
func (p *Pipeline) classify(ctx context.Context, req llm.Request, call *Call) (subagent, error) {
	resp, err := p.cfg.Interpreter.Provider.Chat(ctx, req, nil)
	if err != nil {
		return subagent{}, err
	}
	call.Usage = resp.Usage
	v, err := p.router.Parse(resp.Message.Content)
	if err != nil {
		return subagent{}, err
	}
	name := strings.ToLower(strings.TrimSpace(v.Agent))
	if a, ok := aliases[name]; ok {
		name = a
	}
	sub, ok := subagentNamed(name)
	if !ok {
		return subagent{}, fmt.Errorf("the router answered %q, not one of combat, npc, exploration, rules or worldbuilder", v.Agent)
	}
	return sub, nil
}

// scene is what the router is told besides the player's words: where the
// player is and who is there, hostile or not, in a line or two.
func scene(w *world.State) string {
	here := w.Here()
	if here == nil {
		return "Scene: unknown."
	}
	var who []string
	for _, c := range w.CharactersAt(here.ID) {
		if c.ID == w.Player || !c.Alive() {
			continue
		}
		if c.Hostile {
			who = append(who, c.Name+" (hostile)")
		} else {
			who = append(who, c.Name)
		}
	}
	s := "Scene: " + here.Name + "."
	if len(who) > 0 {
		s += " Present: " + strings.Join(who, ", ") + "."
	}
	return s
}

var speech = []string{"ask", "tell", "talk", "say", "speak", "greet", "persuade", "convince", "threaten", "bribe",
	"lie", "chat", "thank", "answer", "reply", "\"", "'"}

var violence = []string{"attack", "hit", "kill", "fight", "strike", "stab", "slash", "shoot", "punch", "kick", "smite"}

var rulesWords = []string{"rule", "rules", "how does", "how do", "what happens if", "can i", "am i allowed", "what's the dc", "what is the dc"}

// route is the keyword router, the fallback when the router model fails:
// combat while a fight is on or when the player strikes, rules for
// questions about the rules, npc when the player speaks to someone
// present, exploration otherwise.
func route(w *world.State, input string) subagent {
	if w.Combat != nil {
		return combat
	}
	in := strings.ToLower(input)
	fields := strings.FieldsFunc(in, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' || r == '?' })
	for _, k := range violence {
		if slices.Contains(fields, k) {
			return combat
		}
	}
	if strings.HasSuffix(strings.TrimSpace(in), "?") {
		for _, k := range rulesWords {
			if strings.Contains(in, k) {
				return rulesAgent
			}
		}
	}
	for _, k := range speech {
		if slices.Contains(fields, k) || (len(k) == 1 && strings.Contains(in, k)) {
			return npc
		}
	}
	if here := w.Here(); here != nil {
		for _, c := range w.CharactersAt(here.ID) {
			if c.ID == w.Player || c.Hostile {
				continue
			}
			for _, name := range append([]string{c.Name}, c.Aliases...) {
				if first := strings.ToLower(strings.Fields(name + " x")[0]); len(first) > 2 && slices.Contains(fields, first) {
					return npc
				}
			}
		}
	}
	return exploration
}
