package lore

import (
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
)

// Passage is one piece of lore in a cache.
type Passage struct {
	ID     string       `json:"id"`
	Source string       `json:"source"` // "file › heading", for the reader
	Text   string       `json:"text"`
	Tokens int          `json:"tokens"`
	Access access.Level `json:"access"`
	Score  float64      `json:"score,omitempty"`
	// Why names the signals that found it: "fulltext#2 vector#1".
	Why string `json:"why,omitempty"`
}

// Briefing is what the GM knows of one character present in a scene.
type Briefing struct {
	Character string    `json:"character"`
	Name      string    `json:"name"`
	Passages  []Passage `json:"passages"`
}

// Cut is a passage that was considered and left out, and why.
type Cut struct {
	ID      string `json:"id"`
	Section string `json:"section"`
	Reason  string `json:"reason"` // role, filter, budget, duplicate, limit
	Why     string `json:"why,omitempty"`
}

// Cache is a scene's materialised lore (seed 004): atmosphere for the
// narrator's voice, briefings on the characters present for the
// interpreter and planner, what can be discovered here for the resolver,
// and how the scene connects to open threads for the planner's tension
// moves.
type Cache struct {
	Scene             int        `json:"scene"`
	Location          string     `json:"location"`
	Atmosphere        []Passage  `json:"atmosphere,omitempty"`
	NPCBriefings      []Briefing `json:"npc_briefings,omitempty"`
	Discoverable      []Passage  `json:"discoverable,omitempty"`
	ThreadConnections []Passage  `json:"thread_connections,omitempty"`
	// Cuts is the explain trace: what retrieval considered and left out.
	Cuts []Cut `json:"cuts,omitempty"`
	// Pending says why the cache is empty: the index was still being
	// built ("lore index still building (12 of 160 files)"). A pending
	// cache is prepared again on the next turn.
	Pending string `json:"pending,omitempty"`
}

// Briefed reports whether the cache has a briefing on character id.
func (c *Cache) Briefed(id string) bool {
	for _, b := range c.NPCBriefings {
		if b.Character == id {
			return true
		}
	}
	return false
}

// Sections projects the cache for a reader with role: passages the role
// may not see are left out, and empty sections are omitted. Scene lore is
// tier 3 in the packet (after the rules and the scene, before facts).
func (c *Cache) Sections(role access.Level, count func(string) int) []contextpack.Section {
	return c.sections(role, count, func(string) bool { return true })
}

func (c *Cache) sections(role access.Level, count func(string) int, keep func(id string) bool) []contextpack.Section {
	if c == nil {
		return nil
	}
	render := func(role access.Level, ps []Passage) string {
		var b strings.Builder
		for _, p := range ps {
			if keep(p.ID) && role.CanSee(p.Access) {
				fmt.Fprintf(&b, "- (%s) %s\n", p.Source, oneLine(p.Text))
			}
		}
		return strings.TrimRight(b.String(), "\n")
	}
	var out []contextpack.Section
	add := func(name string, ps []Passage) {
		text := render(role, ps)
		if text != "" {
			out = append(out, contextpack.Section{Name: name, Tier: 3, Text: text, Tokens: count(text)})
		}
	}
	add("lore: atmosphere", c.Atmosphere)
	var b strings.Builder
	for _, br := range c.NPCBriefings {
		if text := render(role, br.Passages); text != "" {
			fmt.Fprintf(&b, "%s:\n%s\n", br.Name, text)
		}
	}
	if b.Len() > 0 {
		text := strings.TrimRight(b.String(), "\n")
		out = append(out, contextpack.Section{Name: "lore: npc briefings", Tier: 3, Text: text, Tokens: count(text)})
	}
	add("lore: discoverable", c.Discoverable)
	add("lore: thread connections", c.ThreadConnections)
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
