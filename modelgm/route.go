package modelgm

import (
	"slices"
	"strings"

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

var (
	general = subagent{name: "dm", prompt: "dm"}
	combat  = subagent{name: "combat", prompt: "combat",
		tools: []string{"attack", "cast_spell", "damage", "heal", "saving_throw", "ability_check", "apply_condition", "remove_condition",
			"flee", "end_combat", "use_item", "equip_item", "move", "roll_dice"},
		sections: []string{"campaign", "module", "state", "characters", "recent", "action"}}
	npc = subagent{name: "npc", prompt: "npc",
		tools: []string{"talk", "ability_check", "give_item", "change_perception", "change_reputation", "start_quest",
			"complete_objective", "reveal_secret", "whisper", "remember_fact", "start_combat", "roll_dice"},
		sections: []string{"campaign", "module", "state", "characters", "quests", "whispers", "facts", "lore: npc briefings", "lore: atmosphere", "memories",
			"summary", "recent", "action"}}
	rulesAgent = subagent{name: "rules", prompt: "rules",
		tools:    []string{"document_search", "document_get", "roll_dice"},
		sections: []string{"campaign", "state", "action"}}
	exploration = subagent{name: "exploration", prompt: "exploration",
		tools: []string{"move", "look", "search", "take_item", "drop_item", "use_item", "equip_item", "ability_check",
			"rest", "advance_time", "talk", "start_combat", "change_scene", "roll_dice", "document_search", "document_get"}}
)

var speech = []string{"ask", "tell", "talk", "say", "speak", "greet", "persuade", "convince", "threaten", "bribe",
	"lie", "chat", "thank", "answer", "reply", "\"", "'"}

var rulesWords = []string{"rule", "rules", "how does", "how do", "what happens if", "can i", "am i allowed", "what's the dc", "what is the dc"}

// route picks the subagent for the player's words: combat while a fight
// is on, rules for questions about the rules, npc when the player speaks
// to someone present, exploration otherwise.
func route(w *world.State, input string) subagent {
	if w.Combat != nil {
		return combat
	}
	in := strings.ToLower(input)
	if strings.HasSuffix(strings.TrimSpace(in), "?") {
		for _, k := range rulesWords {
			if strings.Contains(in, k) {
				return rulesAgent
			}
		}
	}
	fields := strings.FieldsFunc(in, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' || r == '?' })
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
