package world

import (
	"fmt"
	"strings"
)

// Module is an adventure module the game master chose to run (seed 002
// FR56–FR59, ModuleInfo): number, name, description, setting and level
// range as listed, and the hooks, key NPCs and encounter guidelines that
// MODULE_CONTEXT_TEMPLATE gives the DM. It is the GM's alone: View drops
// it below access.GM, and Source says who listed it ("model": the DM's
// model from what it knows; "campaigns": the server's campaigns).
type Module struct {
	Number      int    `json:"number"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Setting     string `json:"setting,omitempty"`
	LevelRange  string `json:"level_range,omitempty"`
	Hooks       string `json:"hooks,omitempty"`
	NPCs        string `json:"npcs,omitempty"`
	Guidelines  string `json:"guidelines,omitempty"`
	Source      string `json:"source,omitempty"`
}

// ModuleSelected records the module the game master chose; it replaces
// any chosen before.
type ModuleSelected struct {
	Module Module `json:"module"`
}

func (ModuleSelected) Kind() string { return "module_selected" }
func (e ModuleSelected) apply(s *State) error {
	if strings.TrimSpace(e.Module.Name) == "" {
		return fmt.Errorf("module without a name")
	}
	m := e.Module
	s.Module = &m
	return nil
}
