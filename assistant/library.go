package assistant

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/retrieve"
)

// Selection is the library a chat searches: the uploaded documents (only
// those with Tags, when given) and, of the bundled packs, those of System
// and those named in Packs. Without it a Traveller question would read the
// bundled D&D SRD's "Jumping" as an answer.
type Selection struct {
	// System is the game system of the chat: a Foundry system id
	// (mgt2e, dnd5e) or a pack system (traveller, d20).
	System string
	// Packs are bundled packs searched whatever the system.
	Packs []string
	// Tags limit the documents searched when a search names none.
	Tags []string
}

// systemFamily maps the names a game system goes by (Foundry's
// game.system.id, a pack manifest's system) to one.
var systemFamily = map[string]string{
	"dnd5e": "d20", "5e": "d20", "d20": "d20", "dnd": "d20", "srd51": "d20",
	"mgt2e": "traveller", "traveller": "traveller", "mgt": "traveller", "cepheus": "traveller",
}

// family returns the system family of name, or name itself lower-cased.
func family(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if f, ok := systemFamily[name]; ok {
		return f
	}
	return name
}

// filter narrows f to the selection: bundled packs (pack id → system) it
// does not select are excluded, and its tags apply when f has none.
func (s Selection) filter(f retrieve.Filter, bundled map[string]string) retrieve.Filter {
	sys := family(s.System)
	for id, packSystem := range bundled {
		if slices.Contains(s.Packs, id) || (sys != "" && family(packSystem) == sys) {
			continue
		}
		f.ExcludePacks = append(f.ExcludePacks, id)
	}
	slices.Sort(f.ExcludePacks)
	if len(f.Tags) == 0 {
		f.Tags = s.Tags
	}
	return f
}

// gameSystem is the system a request is about: the one it names, else its
// Foundry schema's, else the server's default.
func gameSystem(req Request, schema json.RawMessage, def string) string {
	if req.System != "" {
		return req.System
	}
	var caps struct {
		System string `json:"system"`
	}
	if len(schema) > 0 && json.Unmarshal(schema, &caps) == nil && caps.System != "" {
		return caps.System
	}
	return def
}
