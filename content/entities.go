package content

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/world"
)

// prefixes maps file-name prefixes and directory names to entity types.
var prefixes = []struct{ prefix, kind string }{
	{"player_character_", "player_character"}, {"player_", "player_character"}, {"pc_", "player_character"},
	{"npc_", "npc"}, {"character_", "character"}, {"creature_", "creature"}, {"monster_", "creature"},
	{"location_", "location"}, {"loc_", "location"}, {"place_", "location"},
	{"quest_", "quest"}, {"faction_", "faction"}, {"lore_", "lore"}, {"world_", "world"},
	{"consequence_", "consequence"}, {"item_", "item"},
}

var dirKinds = map[string]string{
	"npcs": "npc", "characters": "character", "creatures": "creature", "monsters": "creature",
	"locations": "location", "places": "location", "quests": "quest", "factions": "faction",
	"lore": "lore", "world": "world", "consequences": "consequence",
}

// infer tells a file's entity type and ID from its name and directory.
func infer(rel string) (kind, id string) {
	base := strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	for _, p := range prefixes {
		if strings.HasPrefix(base, p.prefix) && len(base) > len(p.prefix) {
			return p.kind, base[len(p.prefix):]
		}
	}
	dir := strings.ToLower(filepath.Base(filepath.Dir(rel)))
	if k, ok := dirKinds[dir]; ok {
		return k, base
	}
	return "", base
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func (c *Campaign) define(kind, id, where string, errs *problems, file string, line int) bool {
	key := kind + ":" + id
	if prev, ok := c.origin[key]; ok {
		errs.add(file, line, "%s %q is defined twice; the other is at %s", kind, id, prev)
		return false
	}
	c.origin[key] = where
	if f := c.pending; f != nil {
		c.src[key] = *f
	}
	return true
}

// loadFile reads a Markdown or text file with frontmatter.
func (c *Campaign) loadFile(rel string, b []byte, errs *problems) {
	fm, body, bodyLine, err := ParseFrontmatter(b)
	if err != nil {
		errs.add(rel, 0, "%v", err)
		return
	}
	kind, id := infer(rel)
	if v := str(fm.Values["entity_type"]); v != "" {
		kind = v
	}
	if v := str(fm.Values["entity_id"]); v != "" {
		id = v
	} else if v, ok := fm.Values["id"].(string); ok && v != "" {
		id = v
	}
	f := File{Path: rel, Frontmatter: fm, Body: strings.TrimSpace(string(body)), BodyLine: bodyLine, EntityType: kind, EntityID: id}
	c.Files = append(c.Files, f)
	where := rel + ":" + itoa(max(fm.Line, 1))
	text := unwrap(f.Body)
	c.pending = &source{rel, fm}
	defer func() { c.pending = nil }()
	name := str(fm.Values["name"])
	if name == "" {
		name = titleCase(id)
	}
	switch kind {
	case "location":
		var l world.Location
		if err := viaJSON(fm.Values, &l); err != nil {
			errs.add(rel, lineOf(fm, err), "%v", err)
			return
		}
		l.ID, l.Name = id, name
		if l.Description == "" {
			l.Description = text
		}
		if c.define("location", id, where, errs, rel, fm.Line) {
			c.Locations[id] = &l
		}
	case "npc", "character", "creature", "player_character":
		var ch world.Character
		if err := viaJSON(fm.Values, &ch); err != nil {
			errs.add(rel, lineOf(fm, err), "%v", err)
			return
		}
		ch.ID, ch.Name = id, name
		switch {
		case kind == "player_character" || fm.Values["player"] == true || (c.Meta.Player != "" && c.Meta.Player == id):
			ch.Kind = world.PC
		case kind == "creature":
			ch.Kind = world.Creature
		case ch.Kind == "":
			ch.Kind = world.NPC
		}
		if ch.Description == "" {
			ch.Description = text
		}
		if ch.MaxHP == 0 {
			ch.MaxHP = ch.HP
		}
		if p := ch.Perception; p < -100 || p > 100 {
			errs.add(rel, fm.Lines["perception"], "perception %d: use -100 to 100", p)
		}
		if c.define("character", id, where, errs, rel, fm.Line) {
			c.Characters[id] = &ch
		}
	case "quest":
		var q world.Quest
		if err := viaJSON(fm.Values, &q); err != nil {
			errs.add(rel, lineOf(fm, err), "%v", err)
			return
		}
		q.ID, q.Name = id, name
		if q.Description == "" {
			q.Description = text
		}
		switch q.Status {
		case "":
			q.Status = world.QuestAvailable
		case world.QuestAvailable, world.QuestActive, world.QuestCompleted, world.QuestFailed:
		default:
			errs.add(rel, fm.Lines["status"], "quest status %q: use available, active, completed or failed", q.Status)
		}
		for i := range q.Objectives {
			if q.Objectives[i].ID == "" {
				q.Objectives[i].ID = "o" + itoa(i+1)
			}
		}
		if c.define("quest", id, where, errs, rel, fm.Line) {
			c.Quests[id] = &q
		}
	case "faction":
		var fa world.Faction
		if err := viaJSON(fm.Values, &fa); err != nil {
			errs.add(rel, lineOf(fm, err), "%v", err)
			return
		}
		fa.ID, fa.Name = id, name
		if fa.Description == "" {
			fa.Description = text
		}
		if c.define("faction", id, where, errs, rel, fm.Line) {
			c.Factions[id] = &fa
		}
	case "lore", "world":
		vis, err := access.Parse(str(fm.Values["visibility"]))
		if err != nil {
			errs.add(rel, fm.Lines["visibility"], "%v", err)
			return
		}
		prio := 1.0
		if p, ok := fm.Values["priority"].(int); ok {
			if p < 1 || p > 5 {
				errs.add(rel, fm.Lines["priority"], "priority %d: use 1 (most important) to 5", p)
			}
			prio = float64(p)
		}
		subject := str(fm.Values["subject"])
		if subject == "" {
			subject = id
		}
		category := str(fm.Values["category"])
		if category == "" {
			category = str(fm.Values["content_type"])
		}
		if text == "" {
			errs.add(rel, bodyLine, "lore file has no text")
			return
		}
		if c.define("lore", id, where, errs, rel, fm.Line) {
			c.Facts = append(c.Facts, world.Fact{ID: "lore-" + id, Subject: subject, Text: text, Category: category,
				Visibility: vis, Importance: 1.2 - 0.2*prio, Source: "campaign"})
		}
	case "consequence":
		var raw struct {
			world.Consequence
			Then []json.RawMessage `json:"then"`
		}
		if err := viaJSON(fm.Values, &raw); err != nil {
			errs.add(rel, lineOf(fm, err), "%v", err)
			return
		}
		cq := raw.Consequence
		cq.ID = id
		cq.Then = nil
		for _, r := range raw.Then {
			cq.Then = append(cq.Then, world.RawIntent(r))
		}
		if cq.Description == "" {
			cq.Description = text
		}
		if cq.Importance == 0 {
			cq.Importance = 0.7
		}
		switch cq.On {
		case "", world.OnEnter, world.OnTake, world.OnDefeat, world.OnQuestComplete, world.OnTalk, world.OnUse:
		default:
			errs.add(rel, fm.Lines["on"], "on %q: use enter_location, take_item, defeat, quest_completed, talk or use_item", cq.On)
		}
		if cq.Trigger == "" {
			errs.add(rel, fm.Line, "a consequence needs a trigger (in words)")
		}
		if c.define("consequence", id, where, errs, rel, fm.Line) {
			c.Consequences = append(c.Consequences, cq)
		}
	case "item":
		c.itemFrom(rel, fm.Values, fm, text, errs)
	case "":
		c.Warnings = append(c.Warnings, rel+": cannot tell what this file describes; add entity_type to its frontmatter (kept as text only)")
	default:
		c.Warnings = append(c.Warnings, rel+": entity_type "+kind+" is not used in play yet (kept as text only)")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func titleCase(id string) string {
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// unwrap joins the lines of each paragraph, so prose wrapped for the
// author's editor flows in whatever width the player reads it.
func unwrap(s string) string {
	paras := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.TrimSpace(strings.Join(paras, "\n\n"))
}
