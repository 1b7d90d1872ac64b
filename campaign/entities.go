package campaign

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// prefixes maps file-name prefixes and directory names to entity types.
var prefixes = []struct{ prefix, kind string }{
	{"player_character_", "player_character"}, {"player_", "player_character"}, {"pc_", "player_character"},
	{"npc_", "npc"}, {"character_", "character"}, {"creature_", "creature"}, {"monster_", "creature"},
	{"location_", "location"}, {"loc_", "location"}, {"place_", "location"},
	{"quest_", "quest"}, {"faction_", "faction"}, {"lore_", "lore"}, {"world_", "world"},
	{"consequence_", "consequence"}, {"item_", "item"}, {"plot_beat_", "plot_beat"}, {"beat_", "plot_beat"},
	{"stat_", "stat"},
}

var dirKinds = map[string]string{
	"npcs": "npc", "characters": "character", "creatures": "creature", "monsters": "creature",
	"locations": "location", "places": "location", "quests": "quest", "factions": "faction",
	"lore": "lore", "world": "world", "consequences": "consequence",
}

// infer tells a file's entity type and ID from its name and directory.
func infer(rel string) (kind, id string) {
	kind, id, _ = inferFrom(rel)
	return kind, id
}

// inferFrom is infer that also says whether only the directory told.
func inferFrom(rel string) (kind, id string, byDir bool) {
	base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	for _, p := range prefixes {
		if strings.HasPrefix(base, p.prefix) && len(base) > len(p.prefix) {
			return p.kind, base[len(p.prefix):], false
		}
	}
	dir := strings.ToLower(path.Base(path.Dir(rel)))
	if k, ok := dirKinds[dir]; ok {
		return k, base, true
	}
	return "", base, false
}

// textKinds are entity types that are read as text only: they describe,
// but no game rule acts on them.
var textKinds = []string{"relationship", "rules", "mechanics", "setting", "history", "spell", "class", "race",
	"background", "feat", "condition", "equipment", "table", "chapter", "section", "note"}

// playKinds are the entity types play uses, for messages.
const playKinds = "character, npc, creature, player_character, location, quest, faction, lore, world, consequence, item, stat, plot_beat"

// aspectTypes are file-name endings that say what a file tells of its
// entity (character_merlin_backstory.txt is background).
var aspectTypes = map[string]string{"backstory": "background", "background": "background", "personality": "personality",
	"goals": "goals", "speech": "speech", "relationship": "relationship", "history": "history", "rules": "mechanics",
	"mechanics": "mechanics", "setting": "setting", "secret": "secret", "secrets": "secret"}

// inferContentType tells what a file is about when its frontmatter does
// not say: an aspect in its name, else its folder (Spells/ → spell), else
// its entity type.
func inferContentType(f File) string {
	base := strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path))
	if i := strings.LastIndexByte(base, '_'); i > 0 {
		if t, ok := aspectTypes[strings.ToLower(base[i+1:])]; ok {
			return t
		}
	}
	if d := path.Dir(f.Path); d != "." && f.EntityType == "" {
		return singular(strings.ToLower(strings.ReplaceAll(path.Base(d), " ", "_")))
	}
	return f.EntityType
}

func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "sses"):
		return strings.TrimSuffix(s, "es")
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return strings.TrimSuffix(s, "ies") + "y"
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 3:
		return strings.TrimSuffix(s, "s")
	}
	return s
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func (c *Campaign) define(kind, id, where string, errs *pack.Problems, file string, line int) bool {
	key := kind + ":" + id
	if prev, ok := c.origin[key]; ok {
		errs.Add(file, line, "%s %q is defined twice; the other is at %s", kind, id, prev)
		return false
	}
	c.origin[key] = where
	d := def{kind: kind, id: id, file: file, line: max(line, 1)}
	if f := c.pending; f != nil {
		c.src[key] = *f
		d.overrides = str(f.fm.Values["overrides"])
		d.line = max(f.fm.Lines["overrides"], d.line)
		if d.overrides == "" {
			d.line = max(line, 1)
		}
	}
	c.defs = append(c.defs, d)
	return true
}

// def is an entity as defined, for layering packs.
type def struct {
	kind, id  string
	file      string
	line      int
	overrides string // "pack:id" it replaces, if any
}

// loadFile reads a Markdown or text file with frontmatter.
func (c *Campaign) loadFile(rel string, b []byte, errs *pack.Problems) (File, bool) {
	fm, body, bodyLine, err := pack.ParseFrontmatter(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return File{}, false
	}
	f, ok := c.loadEntity(rel, fm, body, bodyLine, errs)
	if ok {
		c.Files = append(c.Files, f)
	}
	return f, ok
}

// loadEntity reads one entity from its frontmatter (or a YAML file's
// values) and its prose body. The file is returned even when the entity
// has errors; they are in errs.
func (c *Campaign) loadEntity(rel string, fm pack.Frontmatter, body []byte, bodyLine int, errs *pack.Problems) (File, bool) {
	kind, id, byDir := inferFrom(rel)
	if byDir && !c.pack.campaign && fm.Line == 0 {
		// In a pack, a folder's name alone does not make plain prose an
		// entity: Monsters/Creatures A-C.md is a chapter, not a creature.
		kind = ""
	}
	if v, ok := fm.Values["entity_type"]; ok {
		if s, isStr := v.(string); !isStr || s == "" {
			errs.Add(rel, fm.Lines["entity_type"], "entity_type should be text, one of %s", playKinds)
		} else {
			kind = s
		}
	}
	if v := str(fm.Values["entity_id"]); v != "" {
		id = v
	} else if v, ok := fm.Values["id"].(string); ok && v != "" {
		id = v
	}
	f := File{Path: rel, Frontmatter: fm, Body: strings.TrimSpace(string(body)), BodyLine: bodyLine, EntityType: kind, EntityID: id,
		ContentType: str(fm.Values["content_type"])}
	c.loadKind(f, kind, id, errs)
	return f, true
}

// loadKind turns a file into the entity its kind says.
func (c *Campaign) loadKind(f File, kind, id string, errs *pack.Problems) {
	rel, fm, bodyLine := f.Path, f.Frontmatter, f.BodyLine
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
			errs.Add(rel, lineOf(fm, err), "%v", err)
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
			errs.Add(rel, lineOf(fm, err), "%v", err)
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
			errs.Add(rel, fm.Lines["perception"], "perception %d: use -100 to 100", p)
		}
		if c.define("character", id, where, errs, rel, fm.Line) {
			c.Characters[id] = &ch
		}
	case "quest":
		var q world.Quest
		if err := viaJSON(fm.Values, &q); err != nil {
			errs.Add(rel, lineOf(fm, err), "%v", err)
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
			errs.Add(rel, fm.Lines["status"], "quest status %q: use available, active, completed or failed", q.Status)
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
			errs.Add(rel, lineOf(fm, err), "%v", err)
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
			errs.Add(rel, fm.Lines["visibility"], "%v", err)
			return
		}
		prio := 1.0
		if p, ok := fm.Values["priority"].(int); ok {
			if p < 1 || p > 5 {
				errs.Add(rel, fm.Lines["priority"], "priority %d: use 1 (most important) to 5", p)
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
			errs.Add(rel, bodyLine, "lore file has no text")
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
			errs.Add(rel, lineOf(fm, err), "%v", err)
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
			errs.Add(rel, fm.Lines["on"], "on %q: use enter_location, take_item, defeat, quest_completed, talk or use_item", cq.On)
		}
		if cq.Trigger == "" {
			errs.Add(rel, fm.Line, "a consequence needs a trigger (in words)")
		}
		if c.define("consequence", id, where, errs, rel, fm.Line) {
			c.Consequences = append(c.Consequences, cq)
		}
	case "item":
		c.itemFrom(rel, fm.Values, fm, text, errs)
	case "stat":
		c.loadStat(rel, fm, errs)
	case "plot_beat":
		// Parsed by the pack, which checks beats against each other.
	case "":
		if c.pack.campaign {
			errs.Warn(rel, 0, "cannot tell what this file describes; add entity_type to its frontmatter (kept as text only)")
		}
	default:
		if !slices.Contains(textKinds, kind) {
			errs.Warn(rel, fm.Lines["entity_type"], "entity_type %s is not used in play (kept as text only); play uses %s", kind, playKinds)
		}
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
