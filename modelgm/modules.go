package modelgm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/world"
)

// ModuleFinder asks the game master's model which published adventure
// modules it knows (seed 002 FR56), as JSON read by ParseModules.
type ModuleFinder struct {
	Role Role
}

var _ game.ModuleFinder = ModuleFinder{}

// MaxModulesAnswer is the longest model answer ParseModules reads.
const MaxModulesAnswer = 64 << 10

const modulesSystem = `You are a tabletop role-playing game master who knows published adventure modules.
List the adventure modules you know well enough to run, for the game described, at most 12.
Answer with JSON only: {"modules":[{"number":1,"name":"...","description":"one or two sentences","setting":"...","level_range":"1-3","hooks":"how the party is drawn in","npcs":"key NPCs, a few words each","guidelines":"encounter guidelines"}]}.
Only modules you really know; no invented titles.`

// FindModules implements game.ModuleFinder.
func (f ModuleFinder) FindModules(ctx context.Context, c game.Campaign) ([]world.Module, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The game: %s", c.Title)
	if c.Genre != "" {
		fmt.Fprintf(&b, " (%s)", c.Genre)
	}
	if c.Description != "" {
		fmt.Fprintf(&b, ". %s", strings.TrimSpace(c.Description))
	}
	b.WriteString("\nWhich adventure modules could the game master run?")
	resp, err := f.Role.Provider.Chat(ctx, llm.Request{Model: f.Role.Model, MaxTokens: 3000, Messages: []llm.Message{
		{Role: llm.System, Content: modulesSystem},
		{Role: llm.User, Content: b.String()},
	}}, nil)
	if err != nil {
		return nil, fmt.Errorf("list adventure modules: %w", err)
	}
	return ParseModules(resp.Message.Content)
}

// ParseModules reads a model's list of modules, tolerantly: the JSON may
// sit in a code fence or prose, be {"modules": [...]} or a bare array;
// numbers may be strings; level ranges numbers or [min, max]; hooks,
// NPCs and guidelines strings or lists. Entries without a name are
// dropped and fields cut to game.ValidModules' limits. An answer that
// holds no module, or more than MaxModulesAnswer bytes, is an error that
// says so.
func ParseModules(text string) ([]world.Module, error) {
	if len(text) > MaxModulesAnswer {
		return nil, fmt.Errorf("the model's module list is %d bytes, more than %d", len(text), MaxModulesAnswer)
	}
	raw, err := structured.Extract(text)
	if err != nil {
		return nil, fmt.Errorf("the model's answer is not a JSON list of modules: %w", err)
	}
	var items []map[string]json.RawMessage
	var wrapped map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			return nil, errors.New("the model's answer is neither a list of modules nor an object holding one")
		}
		list, ok := wrapped["modules"]
		if !ok {
			return nil, errors.New(`the model's answer has no "modules" list`)
		}
		if err := json.Unmarshal(list, &items); err != nil {
			return nil, fmt.Errorf(`the model's "modules" is not a list of objects: %w`, err)
		}
	}
	var ms []world.Module
	for _, it := range items {
		ms = append(ms, world.Module{
			Number:      looseInt(it["number"]),
			Name:        looseText(first(it, "name", "title")),
			Description: looseText(it["description"]),
			Setting:     looseText(it["setting"]),
			LevelRange:  looseLevels(first(it, "level_range", "levels", "level")),
			Hooks:       looseText(first(it, "hooks", "campaign_hooks")),
			NPCs:        looseText(first(it, "npcs", "key_npcs")),
			Guidelines:  looseText(first(it, "guidelines", "encounter_guidelines")),
		})
	}
	out, err := game.ValidModules(ms, game.ModulesFromModel)
	if len(out) == 0 {
		if err == nil {
			err = errors.New("the list is empty")
		}
		return nil, fmt.Errorf("the model listed no usable module: %w", err)
	}
	return out, nil // what was dropped is the model's loss, not the caller's
}

func first(m map[string]json.RawMessage, keys ...string) json.RawMessage {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// looseInt reads 3, 3.0, "3" or "#3"; 0 when it is none of them.
func looseInt(r json.RawMessage) int {
	var f float64
	if json.Unmarshal(r, &f) == nil && f >= 1 && f <= 1e6 {
		return int(f)
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "#")); err == nil && n > 0 && n <= 1e6 {
			return n
		}
	}
	return 0
}

// looseText reads a string, a number, or a list of them (one a line).
func looseText(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	var f float64
	if json.Unmarshal(r, &f) == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(r, &obj) == nil {
		// {"name": "Meepo", "role": "a kobold"}: the name, then the rest.
		head := strings.TrimSpace(looseText(obj["name"]))
		var rest []string
		for _, k := range world.SortedKeys(obj) {
			if t := strings.TrimSpace(looseText(obj[k])); k != "name" && t != "" {
				rest = append(rest, t)
			}
		}
		if head == "" {
			return strings.Join(rest, "; ")
		}
		if len(rest) == 0 {
			return head
		}
		return head + ": " + strings.Join(rest, "; ")
	}
	var list []json.RawMessage
	if json.Unmarshal(r, &list) == nil {
		var parts []string
		for _, x := range list {
			if t := strings.TrimSpace(looseText(x)); t != "" {
				parts = append(parts, "- "+t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// looseLevels reads "1-3", 5 or [1, 3].
func looseLevels(r json.RawMessage) string {
	var pair []float64
	if json.Unmarshal(r, &pair) == nil && len(pair) == 2 {
		return fmt.Sprintf("%g-%g", pair[0], pair[1])
	}
	return looseText(r)
}
