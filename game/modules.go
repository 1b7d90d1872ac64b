package game

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/world"
)

// Module selection (seed 002 FR56–FR59): the game master asks the DM's
// model for adventure modules it knows, chooses one, and the module's
// context goes into the game master's context alone, never a party
// member's nor a player's.

// Module sources: who answered a module list. A list is never presented
// as the model's knowledge unless the model gave it.
const (
	ModulesFromModel     = "model"     // the DM's model, from what it knows
	ModulesFromCampaigns = "campaigns" // the server's campaigns, offline
)

// Module limits: what a list may hold, and the longest field kept.
const (
	ModulesMax     = 20
	moduleNameMax  = 120
	moduleShortMax = 120 // setting, level range
	moduleTextMax  = 1200
)

// ModuleFinder lists the adventure modules a model knows for the game's
// campaign (modelgm.ModuleFinder). Its list is checked by ValidModules.
type ModuleFinder interface {
	FindModules(ctx context.Context, c Campaign) ([]world.Module, error)
}

// UseModuleFinder sets the model that lists adventure modules; without
// one the game has none, and a door lists its campaigns instead.
func (s *Session) UseModuleFinder(f ModuleFinder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modules = f
}

// ModuleFinder is the model that lists modules, or nil.
func (s *Session) ModuleFinder() ModuleFinder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modules
}

// ValidModules normalises a list: fields trimmed and cut to their limits,
// a module without a name dropped, numbers 1… given where missing or
// repeated, at most ModulesMax kept. It reports what it dropped; the
// valid rest is returned either way.
func ValidModules(in []world.Module, source string) ([]world.Module, error) {
	var out []world.Module
	var bad []string
	used := map[int]bool{}
	for i, m := range in {
		m.Name = clipText(oneLineText(m.Name), moduleNameMax)
		if m.Name == "" {
			bad = append(bad, fmt.Sprintf("module %d has no name", i+1))
			continue
		}
		if len(out) == ModulesMax {
			bad = append(bad, fmt.Sprintf("%d modules, more than %d", len(in), ModulesMax))
			break
		}
		m.Description = clipText(strings.TrimSpace(m.Description), moduleTextMax)
		m.Setting = clipText(oneLineText(m.Setting), moduleShortMax)
		m.LevelRange = clipText(oneLineText(m.LevelRange), moduleShortMax)
		m.Hooks = clipText(strings.TrimSpace(m.Hooks), moduleTextMax)
		m.NPCs = clipText(strings.TrimSpace(m.NPCs), moduleTextMax)
		m.Guidelines = clipText(strings.TrimSpace(m.Guidelines), moduleTextMax)
		m.Source = source
		if m.Number <= 0 || used[m.Number] {
			m.Number = 0
		}
		out = append(out, m)
		if m.Number > 0 {
			used[m.Number] = true
		}
	}
	next := 1
	for i := range out {
		if out[i].Number == 0 {
			for used[next] {
				next++
			}
			out[i].Number, used[next] = next, true
		}
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("invalid modules: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

// FindModule picks from list the module numbered number (when > 0) or
// named name (case-insensitive).
func FindModule(list []world.Module, number int, name string) (world.Module, error) {
	name = oneLineText(name)
	for _, m := range list {
		if (number > 0 && m.Number == number) || (number <= 0 && name != "" && strings.EqualFold(m.Name, name)) {
			return m, nil
		}
	}
	switch {
	case number > 0:
		return world.Module{}, hearth.Errorf(hearth.NotFound, "no module number %d in the list", number)
	case name != "":
		return world.Module{}, hearth.Errorf(hearth.NotFound, "no module named %q in the list", clipText(name, moduleNameMax))
	}
	return world.Module{}, hearth.Errorf(hearth.Invalid, "choose a module by number or name")
}

// SelectModule makes m the module the game runs, as a turn of the DM's
// with a module_selected effect and no narrative, so restore, fork and
// replay keep it and players are shown nothing of it; by names who chose.
func (s *Session) SelectModule(ctx context.Context, m world.Module, by string) (*Response, error) {
	ms, err := ValidModules([]world.Module{m}, m.Source)
	if err != nil || len(ms) != 1 {
		return nil, hearth.Errorf(hearth.Invalid, "module: %v", err)
	}
	m = ms[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.w.Module; cur != nil && *cur == m {
		return nil, hearth.Errorf(hearth.Conflict, "the game already runs %s", m.Name)
	}
	if by == "" {
		by = DM
	}
	s.by = by
	defer func() { s.by = "" }()
	return s.runTurn(ctx, "", func(string) {}, "", func(t *Turn) error {
		e := world.ModuleSelected{Module: m}
		if err := s.w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
		t.dm = true
		return nil
	})
}

// ModuleContext is seed 002's MODULE_CONTEXT_TEMPLATE filled in for m; a
// part the list left empty asks the DM for what it knows of the module.
func ModuleContext(m *world.Module) string {
	if m == nil {
		return ""
	}
	or := func(s, dflt string) string {
		if strings.TrimSpace(s) == "" {
			return dflt
		}
		return s
	}
	setting := or(m.Setting, "As the module describes it.")
	if m.LevelRange != "" {
		setting += " (levels " + m.LevelRange + ")"
	}
	if m.Description != "" {
		setting += "\n" + m.Description
	}
	const known = "Draw on what you know of this module."
	return fmt.Sprintf(`## Current Module: %s

### Setting
%s

### Campaign Hooks
%s

### Key NPCs
%s

### Encounter Guidelines
%s

Use this module as inspiration while maintaining improvisational flexibility.`,
		m.Name, setting, or(m.Hooks, known), or(m.NPCs, known), or(m.Guidelines, known))
}

// ModuleSections gives the game master's context the chosen module, in
// its system prompt (a stable section). A context below the GM's (a
// player's projection, as the multi-pass narrator's is) gets nothing: the
// module is the GM's plan.
func (t *Turn) ModuleSections(_ context.Context, role access.Level) []contextpack.Section {
	if role < access.GM || t.s.w.Module == nil {
		return nil
	}
	text := ModuleContext(t.s.w.Module)
	return []contextpack.Section{{Name: "module", Tier: contextpack.TierCanon, Stable: true, Text: text, Tokens: len(text)/4 + 1}}
}

// clipText cuts s to n runes, marking the cut.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
