package world

import (
	"maps"
	"slices"

	"github.com/hearth-rpg/hearth/access"
)

// View returns a deep copy of the state holding only what a reader with
// access level may see, playing character (the reader's own character, whose
// sheet and whispers are theirs; "" for a spectator). The game master
// (access.GM) sees everything; below that the copy is pruned as memory's
// player context is (design principle 3):
//
//   - facts the level may not read, consequences, scheduled events, clocks,
//     threads, the free-form Vars (but for the portraits of the characters
//     and places below) and the chosen adventure module are left out;
//   - whispers stay only when revealed or sent to or by character;
//   - hidden stats (and their definitions) are removed from every character,
//     and no stat definition keeps its behavioural prompt, which is written
//     for the narrator;
//   - locations are those the player's character has been to or stands in,
//     with their hidden exits, unfound discoverables and waiting encounters
//     removed, and, by name only, the places their open exits lead to;
//   - other characters are those present, in the fight or met in play, each
//     with only what a stranger can see (no personality, knowledge, topics,
//     inventory, sheet or unrevealed secret); character's own sheet is whole
//     but for hidden stats and an unrevealed secret; the other members of a
//     party are what its summary shows (a stranger's view with race, class,
//     level and an HP band instead of exact hit points, whose changes are
//     left out of the effects too): allies know roughly how hurt a friend
//     is, not their sheet;
//   - items, factions and events are kept only when something visible names
//     them, quests only once taken, relationships only character's own,
//     without notes.
//
// Parts are kept by listing what may be seen, so a field added to the model
// later stays hidden from players until it is listed here. A state that
// cannot be copied (a value JSON cannot encode) yields an empty state of the
// same system, turn and time: nothing leaks when something is wrong.
func (s *State) View(level access.Level, character string) *State {
	c, err := s.Clone()
	if err != nil {
		e := New(s.System)
		e.Turn, e.Time, e.Player = s.Turn, s.Time, s.Player
		return e
	}
	if level >= access.GM {
		return c
	}
	c.prune(level, character)
	return c
}

// prune removes from s, a private copy, what the reader may not see.
func (s *State) prune(level access.Level, own string) {
	if s.Characters[own] == nil {
		own = ""
	}
	viewpoint := own
	if viewpoint == "" {
		viewpoint = s.Player
	}

	for id, f := range s.Facts {
		if !level.CanSee(f.Visibility) {
			delete(s.Facts, id)
		}
	}
	s.Consequences = map[string]*Consequence{}
	s.Scheduled = map[string]*ScheduledEvent{}
	s.Clocks = map[string]*Clock{}
	s.Threads = map[string]*Thread{}
	portraits, _ := s.Vars["portraits"].(map[string]any)
	s.Vars = nil
	s.Module = nil // the module is the GM's plan
	// An agent's memory is its own: a player sees only their character's.
	for id := range s.Memory {
		if id != own {
			delete(s.Memory, id)
		}
	}
	// Elements drawn from what the GM alone sees stay the GM's.
	for id, e := range s.Elements {
		if e.Private {
			delete(s.Elements, id)
		}
	}
	for id, w := range s.Whispers {
		if !w.Revealed && (own == "" || (w.To != own && w.From != own)) {
			delete(s.Whispers, id)
		}
	}

	// Places: where the viewpoint character is or has been, and by name
	// the places its open exits lead to.
	known := map[string]bool{}
	for id, l := range s.Locations {
		if l.Visited {
			known[id] = true
		}
	}
	if pc := s.Characters[viewpoint]; pc != nil && pc.Location != "" {
		known[pc.Location] = true
	}
	if s.Scene.Location != "" {
		known[s.Scene.Location] = true
	}
	named := map[string]bool{}
	for id := range known {
		if l := s.Locations[id]; l != nil {
			for _, e := range l.Exits {
				if !e.Hidden && !known[e.To] {
					named[e.To] = true
				}
			}
		}
	}
	for id, l := range s.Locations {
		switch {
		case known[id]:
			s.Locations[id] = visibleLocation(l, known, named)
		case named[id]:
			s.Locations[id] = &Location{ID: l.ID, Name: l.Name, Aliases: l.Aliases}
		default:
			delete(s.Locations, id)
		}
	}

	// People: the viewpoint character, who is here, who fights, who was met.
	seen := map[string]bool{own: own != "", s.Player: s.Player != ""}
	if pc := s.Characters[viewpoint]; pc != nil {
		for _, c := range s.Characters {
			if c.Location != "" && c.Location == pc.Location {
				seen[c.ID] = true
			}
		}
	}
	if s.Combat != nil {
		for _, cb := range s.Combat.Order {
			seen[cb.ID] = true
		}
	}
	for id, c := range s.Characters {
		if c.MentionedTurn > 0 {
			seen[id] = true
		}
	}
	// Other members of a party are seen as the party summary shows them.
	allies := map[string]bool{}
	for _, m := range s.Party {
		if m.Character != own {
			allies[m.Character] = true
		}
	}
	for id, c := range s.Characters {
		switch {
		case !seen[id]:
			delete(s.Characters, id)
		case id == own:
			s.Characters[id] = s.ownCharacter(c)
		case allies[id]:
			s.Characters[id] = s.ally(c)
		default:
			s.Characters[id] = s.stranger(c)
		}
	}
	if s.Combat != nil {
		s.Combat.Order = slices.DeleteFunc(s.Combat.Order, func(cb Combatant) bool { return s.Characters[cb.ID] == nil })
	}

	for id, d := range s.StatDefs {
		if hiddenStat(d) {
			delete(s.StatDefs, id)
			continue
		}
		d.Prompt = ""
	}

	for id, q := range s.Quests {
		if q.Status == QuestAvailable || q.Status == "" {
			delete(s.Quests, id)
		}
	}

	items := map[string]bool{}
	factions := map[string]bool{}
	for _, c := range s.Characters {
		for id := range c.Inventory {
			items[id] = true
		}
		for _, id := range c.Equipped {
			items[id] = true
		}
		if c.Faction != "" {
			factions[c.Faction] = true
		}
	}
	for _, l := range s.Locations {
		for id := range l.Items {
			items[id] = true
		}
		for _, d := range l.Discoverables {
			if d.Item != "" {
				items[d.Item] = true
			}
		}
	}
	for _, q := range s.Quests {
		for _, id := range q.RewardItems {
			items[id] = true
		}
	}
	for id := range s.Items {
		if !items[id] {
			delete(s.Items, id)
		}
	}
	for id, f := range s.Factions {
		if !factions[id] && f.Reputation == 0 {
			delete(s.Factions, id)
		}
	}

	var rels []Relationship
	for _, r := range s.Relationships {
		if own != "" && (r.A == own || r.B == own) {
			r.Notes = ""
			rels = append(rels, r)
		}
	}
	s.Relationships = rels

	for id, e := range s.Events {
		if e.Location != "" && s.Locations[e.Location] == nil {
			delete(s.Events, id)
		}
	}

	// The art of those seen and the places known (vars.portraits, from
	// the portrait skill) stays, so a browser can show it; a portrait
	// of anyone else would give them away.
	kept := map[string]any{}
	for id, v := range portraits {
		if p, ok := v.(string); ok && p != "" && (s.Characters[id] != nil || known[id]) {
			kept[id] = p
		}
	}
	if len(kept) > 0 {
		s.Vars = map[string]any{"portraits": kept}
	}
}

// visibleLocation is a place the player knows, without what is hidden there.
func visibleLocation(l *Location, known, named map[string]bool) *Location {
	v := *l
	v.Exits = nil
	for _, e := range l.Exits {
		if !e.Hidden {
			v.Exits = append(v.Exits, e)
		}
	}
	v.Discoverables = nil
	for _, d := range l.Discoverables {
		if d.Found {
			v.Discoverables = append(v.Discoverables, d)
		}
	}
	if l.Encounter != nil && !l.Encounter.Triggered {
		v.Encounter = nil
	}
	if v.Parent != "" && !known[v.Parent] && !named[v.Parent] {
		v.Parent = ""
	}
	return &v
}

// ownCharacter is the reader's own character: all of it but hidden stats
// and a secret the GM keeps.
func (s *State) ownCharacter(c *Character) *Character {
	v := *c
	v.Stats = s.visibleStats(c)
	if !c.SecretRevealed {
		v.Secret = ""
	}
	return &v
}

// stranger is what anyone at the table can see of a character.
func (s *State) stranger(c *Character) *Character {
	v := &Character{
		ID:            c.ID,
		Kind:          c.Kind,
		Name:          c.Name,
		Aliases:       c.Aliases,
		Description:   c.Description,
		Faction:       c.Faction,
		Hostile:       c.Hostile,
		Equipped:      c.Equipped,
		Stats:         s.visibleStats(c),
		Perception:    c.Perception,
		PerceptionAt:  c.PerceptionAt,
		MentionedTurn: c.MentionedTurn,
	}
	if s.Locations[c.Location] != nil {
		v.Location = c.Location
	}
	if c.SecretRevealed {
		v.Secret, v.SecretRevealed = c.Secret, true
	}
	v.HP, v.MaxHP, v.TempHP = c.HP, c.MaxHP, c.TempHP
	// Who holds whom is plain to see; the holder stands beside them.
	v.Conditions, v.GrappledBy = c.Conditions, c.GrappledBy
	return v
}

// ally is another member of the reader's party as the table knows them: a
// stranger's view with their race, class and level, and how hurt they look
// (HPBand) rather than their exact hit points. Their sheet (abilities,
// skills, spells, gold) and inventory stay with their player.
func (s *State) ally(c *Character) *Character {
	v := s.stranger(c)
	v.Race, v.Class, v.Level = c.Race, c.Class, c.Level
	v.HP, v.MaxHP, v.TempHP = 0, 0, 0
	v.HPBand = HPBand(c)
	return v
}

// HPBand is how hurt a character looks: healthy, wounded, bloodied,
// critical or down; "" when it has no hit points.
func HPBand(c *Character) string {
	switch {
	case c.MaxHP <= 0:
		return ""
	case c.HP <= 0:
		return "down"
	case c.HP*4 <= c.MaxHP:
		return "critical"
	case c.HP*2 <= c.MaxHP:
		return "bloodied"
	case c.HP < c.MaxHP:
		return "wounded"
	}
	return "healthy"
}

func (s *State) visibleStats(c *Character) map[string]int {
	if len(c.Stats) == 0 {
		return nil
	}
	out := make(map[string]int, len(c.Stats))
	for k, n := range c.Stats {
		if !hiddenStat(s.StatDef(c.ID, k)) {
			out[k] = n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func hiddenStat(d *StatDef) bool {
	return d != nil && (d.Hidden || d.Display == "hidden")
}

// VisibleEffects returns the effects of es a reader with access level,
// playing character, may see. v is what that reader sees: View(level,
// character) of the state the effects led to. An effect about something v
// does not hold is left out, and so is every kind that only changes what v
// hides (consequences, scheduled events, clocks, threads, Vars); the others
// are copied with their hidden parts removed. Copies may share memory with v
// and es. The game master sees es whole.
func (v *State) VisibleEffects(es Effects, level access.Level, character string) Effects {
	if level >= access.GM {
		return slices.Clone(es)
	}
	if v.Characters[character] == nil {
		character = ""
	}
	var out Effects
	for _, e := range es {
		if e, ok := v.visibleEffect(e, level, character); ok {
			out = append(out, e)
		}
	}
	return out
}

func (v *State) visibleEffect(e Effect, level access.Level, own string) (Effect, bool) {
	hasChar := func(id string) bool { return v.Characters[id] != nil }
	hasLoc := func(id string) bool { return v.Locations[id] != nil }
	// open owners are those whose belongings the reader sees: their own
	// character and the places they know (not those known by name only).
	open := func(id string) bool { return id != "" && (id == own || v.knownPlace(id)) }
	seenOwner := func(id string) bool { return id == "" || hasChar(id) || hasLoc(id) }

	switch e := e.(type) {
	case TurnBegan, TimeAdvanced, CombatRound, CombatEnded, SceneChanged, SecretRevealed, NoteRecorded:
		return e, true
	case CombatStarted:
		e.Order = slices.DeleteFunc(slices.Clone(e.Order), func(c Combatant) bool { return !hasChar(c.ID) })
		if !hasLoc(e.Location) {
			e.Location = ""
		}
		e.Encounter = ""
		return e, true
	case CombatantJoined:
		return e, hasChar(e.Combatant.ID)
	case HPChanged:
		return e, hasChar(e.Target) && !v.isAlly(e.Target, own)
	case TempHPChanged:
		return e, hasChar(e.Target) && !v.isAlly(e.Target, own)
	case ConditionApplied:
		return e, hasChar(e.Target)
	case ConditionRemoved:
		return e, hasChar(e.Target)
	case CharacterMoved:
		if !hasChar(e.Character) || !hasLoc(e.To) {
			return nil, false
		}
		if !hasLoc(e.From) {
			e.From = ""
		}
		return e, true
	case ItemTransferred:
		return e, (open(e.From) || open(e.To)) && seenOwner(e.From) && seenOwner(e.To)
	case ItemEquipped:
		return e, hasChar(e.Character)
	case ItemCreated:
		if it := v.Items[e.Item.ID]; it != nil {
			return ItemCreated{Item: *it}, true
		}
		return nil, false
	case GoldChanged:
		return e, own != "" && e.Character == own
	case XPGained:
		return e, own != "" && e.Character == own
	case Rested:
		return e, own != "" && e.Character == own
	case StatChanged:
		c := v.Characters[e.Character]
		if c == nil {
			return nil, false
		}
		if _, ok := c.Stats[e.Stat]; !ok || hiddenStat(v.StatDef(e.Character, e.Stat)) {
			return nil, false
		}
		return e, true
	case NPCCreated:
		if c := v.Characters[e.NPC.ID]; c != nil {
			return NPCCreated{NPC: *c}, true
		}
		return nil, false
	case NPCUpdated:
		c := v.Characters[e.ID]
		if c == nil {
			return nil, false
		}
		var ch map[string]any
		if e.ID == own {
			ch = maps.Clone(e.Changes)
			if !c.SecretRevealed {
				delete(ch, "secret")
			}
		} else {
			ch = allowedChanges(e.Changes, strangerFields)
			if v.isAlly(e.ID, own) {
				delete(ch, "hit_points")
				delete(ch, "max_hit_points")
				delete(ch, "temporary_hp")
			}
		}
		if st, ok := ch["stats"].(map[string]any); ok {
			kept := map[string]any{}
			for k, n := range st {
				if _, vis := c.Stats[k]; vis {
					kept[k] = n
				}
			}
			ch["stats"] = kept
		}
		if loc, ok := ch["location"].(string); ok && !hasLoc(loc) {
			delete(ch, "location")
		}
		if len(ch) == 0 {
			return nil, false
		}
		return NPCUpdated{ID: e.ID, Changes: ch}, true
	case NPCRemoved:
		return nil, false
	case LocationCreated:
		if l := v.Locations[e.Location.ID]; l != nil {
			return LocationCreated{Location: *l}, true
		}
		return nil, false
	case LocationUpdated:
		if !hasLoc(e.ID) {
			return nil, false
		}
		fields := placeFields
		if !v.knownPlace(e.ID) {
			fields = []string{"name", "aliases"}
		}
		ch := allowedChanges(e.Changes, fields)
		if len(ch) == 0 {
			return nil, false
		}
		return LocationUpdated{ID: e.ID, Changes: ch}, true
	case LocationsConnected:
		return e, hasLoc(e.From) && hasLoc(e.To)
	case ExitChanged:
		return e, !e.Hidden && hasLoc(e.Location) && hasLoc(e.To)
	case DiscoveryMade:
		if l := v.Locations[e.Location]; l != nil {
			return e, slices.ContainsFunc(l.Discoverables, func(d Discoverable) bool { return d.ID == e.Discoverable })
		}
		return nil, false
	case FactRecorded:
		return e, level.CanSee(e.Fact.Visibility)
	case EntitiesMentioned:
		ids := slices.DeleteFunc(slices.Clone(e.IDs), func(id string) bool { return !hasChar(id) })
		return EntitiesMentioned{IDs: ids}, len(ids) > 0
	case RelationshipSet:
		r := e.Relationship
		if own == "" || (r.A != own && r.B != own) {
			return nil, false
		}
		r.Notes = ""
		return RelationshipSet{Relationship: r}, true
	case QuestCreated:
		if q := v.Quests[e.Quest.ID]; q != nil {
			return QuestCreated{Quest: *q}, true
		}
		return nil, false
	case QuestStatusChanged:
		return e, v.Quests[e.Quest] != nil
	case ObjectiveAdded:
		return e, v.Quests[e.Quest] != nil
	case ObjectiveCompleted:
		return e, v.Quests[e.Quest] != nil
	case EventRecorded:
		return e, v.Events[e.Event.ID] != nil
	case ReputationChanged:
		return e, v.Factions[e.Faction] != nil
	case PerceptionChanged:
		return e, hasChar(e.NPC)
	case WhisperSent:
		return e, v.Whispers[e.Whisper.ID] != nil
	case MemoryRecorded:
		return e, own != "" && e.Character == own
	case MemoryCompressed:
		return e, own != "" && e.Character == own
	case ElementExtracted:
		return e, !e.Element.Private
	case ElementReferenced:
		return e, v.Elements[e.ID] != nil
	case ElementResolved:
		return e, v.Elements[e.ID] != nil
	}
	// Consequences, scheduled events, clocks, threads, state patches and any
	// kind not listed above.
	return nil, false
}

// strangerFields are the JSON names of what stranger keeps.
var strangerFields = []string{"name", "aliases", "description", "faction", "hostile", "equipped", "stats",
	"perception", "perception_at", "mentioned_turn", "location", "hit_points", "max_hit_points", "temporary_hp",
	"conditions"}

// placeFields are the JSON names of a location's parts that a visible place
// shows whatever happens to its hidden ones.
var placeFields = []string{"name", "aliases", "description", "atmosphere", "items", "visited", "tags"}

func allowedChanges(changes map[string]any, allowed []string) map[string]any {
	out := map[string]any{}
	for k, x := range changes {
		if slices.Contains(allowed, k) {
			out[k] = x
		}
	}
	return out
}

// knownPlace reports whether the reader has been to or stands in the
// location, rather than knowing it by name.
func (v *State) knownPlace(id string) bool {
	l := v.Locations[id]
	if l == nil {
		return false
	}
	if l.Visited || v.Scene.Location == id {
		return true
	}
	pc := v.PC()
	return pc != nil && pc.Location == id
}

// isAlly reports whether id is a member of the reader's party other than
// their own character, whose exact hit points the reader does not see.
func (v *State) isAlly(id, own string) bool {
	return id != own && slices.ContainsFunc(v.Party, func(m PartyMember) bool { return m.Character == id })
}
