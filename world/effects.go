package world

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Effect is a decided change to the state. The set is closed: only this
// package defines effects. Each has a stable JSON name returned by Kind.
type Effect interface {
	Kind() string
	apply(s *State) error
}

// Apply changes the state by one effect. It is the only way state changes.
// An error means the effect does not fit this state (a bug upstream or a
// stale effect); the state may then be partly changed and the caller must
// reload it.
func (s *State) Apply(e Effect) error {
	if e == nil {
		return fmt.Errorf("apply: nil effect")
	}
	if err := e.apply(s); err != nil {
		return fmt.Errorf("apply %s: %w", e.Kind(), err)
	}
	return nil
}

// ApplyAll applies effects in order, stopping at the first error.
func (s *State) ApplyAll(es []Effect) error {
	for _, e := range es {
		if err := s.Apply(e); err != nil {
			return err
		}
	}
	return nil
}

func (s *State) character(id string) (*Character, error) {
	if c := s.Characters[id]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("no character %q", id)
}

func (s *State) location(id string) (*Location, error) {
	if l := s.Locations[id]; l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("no location %q", id)
}

func (s *State) quest(id string) (*Quest, error) {
	if q := s.Quests[id]; q != nil {
		return q, nil
	}
	return nil, fmt.Errorf("no quest %q", id)
}

// TurnBegan starts a turn; facts and consequences age from here.
type TurnBegan struct {
	Turn int `json:"turn"`
}

func (TurnBegan) Kind() string { return "turn_began" }
func (e TurnBegan) apply(s *State) error {
	s.Turn = e.Turn
	return nil
}

// HPChanged sets a character's hit points.
type HPChanged struct {
	Target string `json:"target"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason,omitempty"`
}

func (HPChanged) Kind() string { return "hp_changed" }
func (e HPChanged) apply(s *State) error {
	c, err := s.character(e.Target)
	if err != nil {
		return err
	}
	c.HP = e.To
	return nil
}

// TempHPChanged sets a character's temporary hit points.
type TempHPChanged struct {
	Target string `json:"target"`
	From   int    `json:"from"`
	To     int    `json:"to"`
}

func (TempHPChanged) Kind() string { return "temp_hp_changed" }
func (e TempHPChanged) apply(s *State) error {
	c, err := s.character(e.Target)
	if err != nil {
		return err
	}
	c.TempHP = e.To
	return nil
}

// ConditionApplied gives a character a condition (poisoned, prone, dead …).
// For "grappled", By is who holds them. A character who becomes
// incapacitated (unconscious, stunned, dead …) lets go of anyone they held
// (5e: the grapple ends when the grappler is incapacitated).
type ConditionApplied struct {
	Target    string `json:"target"`
	Condition string `json:"condition"`
	Reason    string `json:"reason,omitempty"`
	By        string `json:"by,omitempty"`
}

func (ConditionApplied) Kind() string { return "condition_applied" }
func (e ConditionApplied) apply(s *State) error {
	c, err := s.character(e.Target)
	if err != nil {
		return err
	}
	if !c.HasCondition(e.Condition) {
		c.Conditions = append(c.Conditions, e.Condition)
	}
	if strings.EqualFold(e.Condition, "grappled") && e.By != "" {
		c.GrappledBy = e.By
	}
	if slices.Contains(Incapacitating, strings.ToLower(e.Condition)) {
		for _, id := range s.HeldBy(c.ID) {
			s.Characters[id].release()
		}
	}
	return nil
}

// Incapacitating are the 5e conditions that include incapacitated, and
// death: a character with one cannot hold anyone.
var Incapacitating = []string{"incapacitated", "unconscious", "paralyzed", "petrified", "stunned", "dead"}

// HeldBy lists, sorted, the characters id holds in a grapple.
func (s *State) HeldBy(id string) []string {
	var out []string
	for _, k := range SortedKeys(s.Characters) {
		if c := s.Characters[k]; id != "" && c.GrappledBy == id && c.HasCondition("grappled") {
			out = append(out, k)
		}
	}
	return out
}

// release ends c's grapple.
func (c *Character) release() {
	c.Conditions = slices.DeleteFunc(c.Conditions, func(x string) bool { return strings.EqualFold(x, "grappled") })
	c.GrappledBy = ""
}

// ConditionRemoved takes a condition away.
type ConditionRemoved struct {
	Target    string `json:"target"`
	Condition string `json:"condition"`
}

func (ConditionRemoved) Kind() string { return "condition_removed" }
func (e ConditionRemoved) apply(s *State) error {
	c, err := s.character(e.Target)
	if err != nil {
		return err
	}
	if strings.EqualFold(e.Condition, "grappled") {
		c.GrappledBy = ""
	}
	c.Conditions = slices.DeleteFunc(c.Conditions, func(x string) bool { return strings.EqualFold(x, e.Condition) })
	return nil
}

// DeathSavesChanged sets a dying character's death saving throws.
type DeathSavesChanged struct {
	Target string     `json:"target"`
	From   DeathSaves `json:"from"`
	To     DeathSaves `json:"to"`
}

func (DeathSavesChanged) Kind() string { return "death_saves_changed" }
func (e DeathSavesChanged) apply(s *State) error {
	c, err := s.character(e.Target)
	if err != nil {
		return err
	}
	c.DeathSaves = e.To
	return nil
}

// CharacterMoved moves a character (player or NPC) to a location.
// With are characters moved along (the ones Character drags in a
// grapple). A grapple whose two sides end up apart ends: a grappler who
// leaves without dragging lets go, and a grappled character taken away
// from its grappler is free.
type CharacterMoved struct {
	Character string   `json:"character"`
	From      string   `json:"from,omitempty"`
	To        string   `json:"to"`
	With      []string `json:"with,omitempty"`
}

func (CharacterMoved) Kind() string { return "character_moved" }
func (e CharacterMoved) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	l, err := s.location(e.To)
	if err != nil {
		return err
	}
	moved := []*Character{c}
	for _, id := range e.With {
		w, err := s.character(id)
		if err != nil {
			return err
		}
		moved = append(moved, w)
	}
	for _, m := range moved {
		m.Location = e.To
		if s.InParty(m.ID) {
			l.Visited = true
		}
	}
	for _, m := range moved {
		for _, id := range s.HeldBy(m.ID) {
			if h := s.Characters[id]; h.Location != m.Location {
				h.release()
			}
		}
		if h := s.Characters[m.GrappledBy]; m.GrappledBy != "" && (h == nil || h.Location != m.Location) {
			m.release()
		}
	}
	return nil
}

// ItemTransferred moves items between owners: a character or a location.
// An empty From creates the items; an empty To consumes or destroys them.
type ItemTransferred struct {
	Item string `json:"item"`
	Qty  int    `json:"qty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

func (ItemTransferred) Kind() string { return "item_transferred" }
func (e ItemTransferred) apply(s *State) error {
	if e.Qty <= 0 {
		return fmt.Errorf("quantity %d of %q: must be positive", e.Qty, e.Item)
	}
	if s.Items[e.Item] == nil {
		return fmt.Errorf("no item %q", e.Item)
	}
	if e.From != "" {
		inv, err := s.holdings(e.From)
		if err != nil {
			return err
		}
		if (*inv)[e.Item] < e.Qty {
			return fmt.Errorf("%s holds %d %q, not %d", e.From, (*inv)[e.Item], e.Item, e.Qty)
		}
		(*inv)[e.Item] -= e.Qty
		if (*inv)[e.Item] == 0 {
			delete(*inv, e.Item)
			if c := s.Characters[e.From]; c != nil {
				c.Equipped = slices.DeleteFunc(c.Equipped, func(x string) bool { return x == e.Item })
			}
		}
	}
	if e.To != "" {
		inv, err := s.holdings(e.To)
		if err != nil {
			return err
		}
		if *inv == nil {
			*inv = map[string]int{}
		}
		(*inv)[e.Item] += e.Qty
	}
	return nil
}

// holdings returns the inventory map of a character or location.
func (s *State) holdings(owner string) (*map[string]int, error) {
	if c := s.Characters[owner]; c != nil {
		return &c.Inventory, nil
	}
	if l := s.Locations[owner]; l != nil {
		return &l.Items, nil
	}
	return nil, fmt.Errorf("no character or location %q to hold items", owner)
}

// ItemEquipped equips or unequips an item the character holds.
type ItemEquipped struct {
	Character string `json:"character"`
	Item      string `json:"item"`
	Equipped  bool   `json:"equipped"`
}

func (ItemEquipped) Kind() string { return "item_equipped" }
func (e ItemEquipped) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	c.Equipped = slices.DeleteFunc(c.Equipped, func(x string) bool { return x == e.Item })
	if e.Equipped {
		c.Equipped = append(c.Equipped, e.Item)
	}
	return nil
}

// ItemCreated defines a new kind of item.
type ItemCreated struct {
	Item Item `json:"item"`
}

func (ItemCreated) Kind() string { return "item_created" }
func (e ItemCreated) apply(s *State) error {
	if e.Item.ID == "" {
		return fmt.Errorf("item without id")
	}
	it := e.Item
	s.Items[it.ID] = &it
	return nil
}

// GoldChanged sets a character's gold.
type GoldChanged struct {
	Character string `json:"character"`
	From      int    `json:"from"`
	To        int    `json:"to"`
	Reason    string `json:"reason,omitempty"`
}

func (GoldChanged) Kind() string { return "gold_changed" }
func (e GoldChanged) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	c.Gold = e.To
	return nil
}

// XPGained adds experience points.
type XPGained struct {
	Character string `json:"character"`
	Amount    int    `json:"amount"`
	Reason    string `json:"reason,omitempty"`
}

func (XPGained) Kind() string { return "xp_gained" }
func (e XPGained) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	c.XP += e.Amount
	return nil
}

// StatChanged sets a campaign stat, clamped to its range.
type StatChanged struct {
	Character string `json:"character"`
	Stat      string `json:"stat"`
	From      int    `json:"from"`
	To        int    `json:"to"`
	Reason    string `json:"reason,omitempty"`
}

func (StatChanged) Kind() string { return "stat_changed" }
func (e StatChanged) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	if c.Stats == nil {
		c.Stats = map[string]int{}
	}
	c.Stats[e.Stat] = s.StatDef(c.ID, e.Stat).Clamp(e.To)
	return nil
}

// Rested records a short or long rest: a long rest restores spent hit dice
// (half the level, at least one) and spell slots; a short rest spends hit
// dice. Hit points change through HPChanged.
type Rested struct {
	Character    string `json:"character"`
	Rest         string `json:"rest"` // short or long
	HitDiceSpent int    `json:"hit_dice_spent,omitempty"`
}

func (Rested) Kind() string { return "rested" }
func (e Rested) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	switch e.Rest {
	case "short":
		c.HitDiceUsed += e.HitDiceSpent
	case "long":
		c.HitDiceUsed = max(0, c.HitDiceUsed-max(1, c.Level/2))
		c.SpellSlotsUsed = nil
	default:
		return fmt.Errorf("rest %q: want short or long", e.Rest)
	}
	return nil
}

// SpellSlotSpent spends one spell slot of a level.
type SpellSlotSpent struct {
	Character string `json:"character"`
	Level     int    `json:"level"`
	Spell     string `json:"spell,omitempty"`
}

func (SpellSlotSpent) Kind() string { return "spell_slot_spent" }
func (e SpellSlotSpent) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	if c.SlotsLeft(e.Level) <= 0 {
		return fmt.Errorf("%s has no level %d spell slot left", e.Character, e.Level)
	}
	if c.SpellSlotsUsed == nil {
		c.SpellSlotsUsed = map[int]int{}
	}
	c.SpellSlotsUsed[e.Level]++
	return nil
}

// ConcentrationStarted begins a caster's concentration on a spell,
// replacing any other (whose end is its own ConcentrationEnded).
type ConcentrationStarted struct {
	Character     string        `json:"character"`
	Concentration Concentration `json:"concentration"`
}

func (ConcentrationStarted) Kind() string { return "concentration_started" }
func (e ConcentrationStarted) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	cc := e.Concentration
	cc.Targets = slices.Clone(cc.Targets)
	c.Concentration = &cc
	return nil
}

// ConcentrationEnded ends a caster's concentration; the conditions it
// held end through their own ConditionRemoved.
type ConcentrationEnded struct {
	Character string `json:"character"`
	Spell     string `json:"spell"`
	Reason    string `json:"reason,omitempty"`
}

func (ConcentrationEnded) Kind() string { return "concentration_ended" }
func (e ConcentrationEnded) apply(s *State) error {
	c, err := s.character(e.Character)
	if err != nil {
		return err
	}
	if c.Concentration == nil || !strings.EqualFold(c.Concentration.Spell, e.Spell) {
		return fmt.Errorf("%s is not concentrating on %q", e.Character, e.Spell)
	}
	c.Concentration = nil
	return nil
}

// SpellTargetFreed lets one target out of the spell a caster concentrates
// on (it saved at the end of its turn).
type SpellTargetFreed struct {
	Caster string `json:"caster"`
	Target string `json:"target"`
}

func (SpellTargetFreed) Kind() string { return "spell_target_freed" }
func (e SpellTargetFreed) apply(s *State) error {
	c, err := s.character(e.Caster)
	if err != nil {
		return err
	}
	if c.Concentration == nil {
		return fmt.Errorf("%s is not concentrating", e.Caster)
	}
	c.Concentration.Targets = slices.DeleteFunc(c.Concentration.Targets, func(x string) bool { return x == e.Target })
	return nil
}

// CombatStarted begins a fight with an initiative order.
type CombatStarted struct {
	Location string      `json:"location"`
	Order    []Combatant `json:"order"`
	// Encounter is set when the fight is a location's waiting encounter,
	// which then does not start again.
	Encounter string `json:"encounter,omitempty"`
}

func (CombatStarted) Kind() string { return "combat_started" }
func (e CombatStarted) apply(s *State) error {
	if s.Combat != nil {
		return fmt.Errorf("a fight is already going on")
	}
	s.Combat = &Combat{Round: 1, Location: e.Location, Order: slices.Clone(e.Order)}
	if e.Encounter != "" {
		if l := s.Locations[e.Encounter]; l != nil && l.Encounter != nil {
			l.Encounter.Triggered = true
		}
	}
	return nil
}

// CombatRound advances the fight to a new round.
type CombatRound struct {
	Round int `json:"round"`
}

func (CombatRound) Kind() string { return "combat_round" }
func (e CombatRound) apply(s *State) error {
	if s.Combat == nil {
		return fmt.Errorf("no fight is going on")
	}
	s.Combat.Round = e.Round
	return nil
}

// CombatantJoined adds a character to the initiative order.
type CombatantJoined struct {
	Combatant Combatant `json:"combatant"`
}

func (CombatantJoined) Kind() string { return "combatant_joined" }
func (e CombatantJoined) apply(s *State) error {
	if s.Combat == nil {
		return fmt.Errorf("no fight is going on")
	}
	s.Combat.Order = append(s.Combat.Order, e.Combatant)
	slices.SortStableFunc(s.Combat.Order, func(a, b Combatant) int { return b.Initiative - a.Initiative })
	return nil
}

// CombatEnded ends the fight with an outcome: victory, defeat, fled, truce.
type CombatEnded struct {
	Outcome string `json:"outcome"`
}

func (CombatEnded) Kind() string { return "combat_ended" }
func (e CombatEnded) apply(s *State) error {
	if s.Combat == nil {
		return fmt.Errorf("no fight is going on")
	}
	s.Combat = nil
	return nil
}

// NPCCreated brings a new NPC or creature into the world.
type NPCCreated struct {
	NPC Character `json:"npc"`
}

func (NPCCreated) Kind() string { return "npc_created" }
func (e NPCCreated) apply(s *State) error {
	if e.NPC.ID == "" {
		return fmt.Errorf("npc without id")
	}
	if s.Characters[e.NPC.ID] != nil {
		return fmt.Errorf("character %q already exists", e.NPC.ID)
	}
	c := e.NPC
	c.MentionedTurn = s.Turn
	s.Characters[c.ID] = &c
	return nil
}

// NPCUpdated deep-merges changes into an NPC's record (description,
// personality, disposition, knowledge …). The ID never changes.
type NPCUpdated struct {
	ID      string         `json:"id"`
	Changes map[string]any `json:"changes"`
}

func (NPCUpdated) Kind() string { return "npc_updated" }
func (e NPCUpdated) apply(s *State) error {
	c, err := s.character(e.ID)
	if err != nil {
		return err
	}
	var updated Character
	if err := mergeInto(c, e.Changes, &updated); err != nil {
		return fmt.Errorf("npc %q: %w", e.ID, err)
	}
	updated.ID = c.ID
	*c = updated
	return nil
}

// NPCRemoved takes a character out of the world (left, died off-screen …).
type NPCRemoved struct {
	ID     string `json:"id"`
	Reason string `json:"reason,omitempty"`
}

func (NPCRemoved) Kind() string { return "npc_removed" }
func (e NPCRemoved) apply(s *State) error {
	if _, err := s.character(e.ID); err != nil {
		return err
	}
	if e.ID == s.Player {
		return fmt.Errorf("cannot remove the player's character")
	}
	delete(s.Characters, e.ID)
	if s.Combat != nil {
		s.Combat.Order = slices.DeleteFunc(s.Combat.Order, func(c Combatant) bool { return c.ID == e.ID })
	}
	return nil
}

// LocationCreated adds a location.
type LocationCreated struct {
	Location Location `json:"location"`
}

func (LocationCreated) Kind() string { return "location_created" }
func (e LocationCreated) apply(s *State) error {
	if e.Location.ID == "" {
		return fmt.Errorf("location without id")
	}
	if s.Locations[e.Location.ID] != nil {
		return fmt.Errorf("location %q already exists", e.Location.ID)
	}
	l := e.Location
	s.Locations[l.ID] = &l
	return nil
}

// LocationsConnected adds an exit from From to To and, unless OneWay, back.
type LocationsConnected struct {
	From          string `json:"from"`
	To            string `json:"to"`
	Direction     string `json:"direction,omitempty"`
	BackDirection string `json:"back_direction,omitempty"`
	Description   string `json:"description,omitempty"`
	OneWay        bool   `json:"one_way,omitempty"`
}

func (LocationsConnected) Kind() string { return "locations_connected" }
func (e LocationsConnected) apply(s *State) error {
	from, err := s.location(e.From)
	if err != nil {
		return err
	}
	to, err := s.location(e.To)
	if err != nil {
		return err
	}
	if _, ok := from.Exit(e.To); !ok {
		from.Exits = append(from.Exits, Exit{To: e.To, Direction: e.Direction, Description: e.Description})
	}
	if !e.OneWay {
		if _, ok := to.Exit(e.From); !ok {
			to.Exits = append(to.Exits, Exit{To: e.From, Direction: e.BackDirection})
		}
	}
	return nil
}

// LocationUpdated deep-merges changes into a location's record.
type LocationUpdated struct {
	ID      string         `json:"id"`
	Changes map[string]any `json:"changes"`
}

func (LocationUpdated) Kind() string { return "location_updated" }
func (e LocationUpdated) apply(s *State) error {
	l, err := s.location(e.ID)
	if err != nil {
		return err
	}
	var updated Location
	if err := mergeInto(l, e.Changes, &updated); err != nil {
		return fmt.Errorf("location %q: %w", e.ID, err)
	}
	updated.ID = l.ID
	*l = updated
	return nil
}

// ExitChanged locks, unlocks, hides or reveals an exit.
type ExitChanged struct {
	Location string `json:"location"`
	To       string `json:"to"`
	Locked   bool   `json:"locked"`
	Hidden   bool   `json:"hidden"`
}

func (ExitChanged) Kind() string { return "exit_changed" }
func (e ExitChanged) apply(s *State) error {
	l, err := s.location(e.Location)
	if err != nil {
		return err
	}
	for i := range l.Exits {
		if l.Exits[i].To == e.To {
			l.Exits[i].Locked, l.Exits[i].Hidden = e.Locked, e.Hidden
			return nil
		}
	}
	return fmt.Errorf("no exit from %q to %q", e.Location, e.To)
}

// DiscoveryMade marks a location's discoverable as found.
type DiscoveryMade struct {
	Location     string `json:"location"`
	Discoverable string `json:"discoverable"`
}

func (DiscoveryMade) Kind() string { return "discovery_made" }
func (e DiscoveryMade) apply(s *State) error {
	l, err := s.location(e.Location)
	if err != nil {
		return err
	}
	for i := range l.Discoverables {
		if l.Discoverables[i].ID == e.Discoverable {
			l.Discoverables[i].Found = true
			return nil
		}
	}
	return fmt.Errorf("no discoverable %q at %q", e.Discoverable, e.Location)
}

// FactRecorded remembers a fact (or replaces one with the same ID).
type FactRecorded struct {
	Fact Fact `json:"fact"`
}

func (FactRecorded) Kind() string { return "fact_recorded" }
func (e FactRecorded) apply(s *State) error {
	if e.Fact.ID == "" {
		return fmt.Errorf("fact without id")
	}
	f := e.Fact
	s.Facts[f.ID] = &f
	return nil
}

// EntitiesMentioned marks characters as part of this turn, resetting their
// importance decay.
type EntitiesMentioned struct {
	IDs []string `json:"ids"`
}

func (EntitiesMentioned) Kind() string { return "entities_mentioned" }
func (e EntitiesMentioned) apply(s *State) error {
	for _, id := range e.IDs {
		if c := s.Characters[id]; c != nil {
			c.MentionedTurn = s.Turn
		}
	}
	return nil
}

// RelationshipSet creates or replaces the relationship of a type between
// two entities.
type RelationshipSet struct {
	Relationship Relationship `json:"relationship"`
}

func (RelationshipSet) Kind() string { return "relationship_set" }
func (e RelationshipSet) apply(s *State) error {
	r := e.Relationship
	for i, x := range s.Relationships {
		if x.A == r.A && x.B == r.B && x.Type == r.Type {
			s.Relationships[i] = r
			return nil
		}
	}
	s.Relationships = append(s.Relationships, r)
	return nil
}

// ConsequenceRegistered plants a consequence.
type ConsequenceRegistered struct {
	Consequence Consequence `json:"consequence"`
}

func (ConsequenceRegistered) Kind() string { return "consequence_registered" }
func (e ConsequenceRegistered) apply(s *State) error {
	if e.Consequence.ID == "" {
		return fmt.Errorf("consequence without id")
	}
	c := e.Consequence
	s.Consequences[c.ID] = &c
	return nil
}

// ConsequenceTriggered marks a consequence as having happened.
type ConsequenceTriggered struct {
	ID string `json:"id"`
}

func (ConsequenceTriggered) Kind() string { return "consequence_triggered" }
func (e ConsequenceTriggered) apply(s *State) error {
	c := s.Consequences[e.ID]
	if c == nil {
		return fmt.Errorf("no consequence %q", e.ID)
	}
	c.Triggered, c.TriggeredTurn = true, s.Turn
	return nil
}

// QuestCreated adds a quest.
type QuestCreated struct {
	Quest Quest `json:"quest"`
}

func (QuestCreated) Kind() string { return "quest_created" }
func (e QuestCreated) apply(s *State) error {
	if e.Quest.ID == "" {
		return fmt.Errorf("quest without id")
	}
	if s.Quests[e.Quest.ID] != nil {
		return fmt.Errorf("quest %q already exists", e.Quest.ID)
	}
	q := e.Quest
	q.Objectives = slices.Clone(q.Objectives)
	s.Quests[q.ID] = &q
	return nil
}

// QuestStatusChanged starts, completes or fails a quest.
type QuestStatusChanged struct {
	Quest string `json:"quest"`
	From  string `json:"from"`
	To    string `json:"to"`
}

func (QuestStatusChanged) Kind() string { return "quest_status_changed" }
func (e QuestStatusChanged) apply(s *State) error {
	q, err := s.quest(e.Quest)
	if err != nil {
		return err
	}
	q.Status = e.To
	return nil
}

// ObjectiveAdded adds an objective to a quest.
type ObjectiveAdded struct {
	Quest     string    `json:"quest"`
	Objective Objective `json:"objective"`
}

func (ObjectiveAdded) Kind() string { return "objective_added" }
func (e ObjectiveAdded) apply(s *State) error {
	q, err := s.quest(e.Quest)
	if err != nil {
		return err
	}
	if q.Objective(e.Objective.ID) != nil {
		return fmt.Errorf("quest %q already has objective %q", e.Quest, e.Objective.ID)
	}
	q.Objectives = append(q.Objectives, e.Objective)
	return nil
}

// ObjectiveCompleted ticks off a quest objective.
type ObjectiveCompleted struct {
	Quest     string `json:"quest"`
	Objective string `json:"objective"`
}

func (ObjectiveCompleted) Kind() string { return "objective_completed" }
func (e ObjectiveCompleted) apply(s *State) error {
	q, err := s.quest(e.Quest)
	if err != nil {
		return err
	}
	o := q.Objective(e.Objective)
	if o == nil {
		return fmt.Errorf("quest %q has no objective %q", e.Quest, e.Objective)
	}
	o.Done = true
	return nil
}

// EventScheduled plans something to happen at a game time.
type EventScheduled struct {
	Event ScheduledEvent `json:"event"`
}

func (EventScheduled) Kind() string { return "event_scheduled" }
func (e EventScheduled) apply(s *State) error {
	if e.Event.ID == "" {
		return fmt.Errorf("scheduled event without id")
	}
	ev := e.Event
	s.Scheduled[ev.ID] = &ev
	return nil
}

// ScheduledEventFired marks a scheduled event as having happened.
type ScheduledEventFired struct {
	ID string `json:"id"`
}

func (ScheduledEventFired) Kind() string { return "scheduled_event_fired" }
func (e ScheduledEventFired) apply(s *State) error {
	ev := s.Scheduled[e.ID]
	if ev == nil {
		return fmt.Errorf("no scheduled event %q", e.ID)
	}
	ev.Fired = true
	return nil
}

// EventRecorded records a notable happening as an entity.
type EventRecorded struct {
	Event Event `json:"event"`
}

func (EventRecorded) Kind() string { return "event_recorded" }
func (e EventRecorded) apply(s *State) error {
	if e.Event.ID == "" {
		return fmt.Errorf("event without id")
	}
	ev := e.Event
	s.Events[ev.ID] = &ev
	return nil
}

// StatePatched deep-merges a patch into the session state (seed 001 §2.4);
// player.stats.*, npcs.<id>.stats.* and npcs.<id>.perception are clamped to
// their ranges.
type StatePatched struct {
	Patch map[string]any `json:"patch"`
}

func (StatePatched) Kind() string           { return "state_patched" }
func (e StatePatched) apply(s *State) error { return s.applyPatch(e.Patch) }

// ReputationChanged sets the player's standing with a faction.
type ReputationChanged struct {
	Faction string `json:"faction"`
	From    int    `json:"from"`
	To      int    `json:"to"`
	Reason  string `json:"reason,omitempty"`
}

func (ReputationChanged) Kind() string { return "reputation_changed" }
func (e ReputationChanged) apply(s *State) error {
	f := s.Factions[e.Faction]
	if f == nil {
		return fmt.Errorf("no faction %q", e.Faction)
	}
	f.Reputation, f.ReputationAt = ClampOpinion(e.To), s.Time
	return nil
}

// PerceptionChanged sets an NPC's opinion of the player.
type PerceptionChanged struct {
	NPC    string `json:"npc"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason,omitempty"`
}

func (PerceptionChanged) Kind() string { return "perception_changed" }
func (e PerceptionChanged) apply(s *State) error {
	c, err := s.character(e.NPC)
	if err != nil {
		return err
	}
	c.Perception, c.PerceptionAt = ClampOpinion(e.To), s.Time
	return nil
}

// ClockCreated adds a progress clock.
type ClockCreated struct {
	Clock Clock `json:"clock"`
}

func (ClockCreated) Kind() string { return "clock_created" }
func (e ClockCreated) apply(s *State) error {
	if e.Clock.ID == "" || e.Clock.Max <= 0 {
		return fmt.Errorf("clock %q: needs an id and a positive max", e.Clock.ID)
	}
	c := e.Clock
	s.Clocks[c.ID] = &c
	return nil
}

// ClockTicked moves a clock, within 0..Max.
type ClockTicked struct {
	Clock string `json:"clock"`
	From  int    `json:"from"`
	To    int    `json:"to"`
}

func (ClockTicked) Kind() string { return "clock_ticked" }
func (e ClockTicked) apply(s *State) error {
	c := s.Clocks[e.Clock]
	if c == nil {
		return fmt.Errorf("no clock %q", e.Clock)
	}
	c.Value = max(0, min(c.Max, e.To))
	if c.Value < c.Max {
		c.Fired = false // it can fill, and fire, again
	}
	return nil
}

// ClockFired records that a full clock's consequence happened.
type ClockFired struct {
	Clock string `json:"clock"`
}

func (ClockFired) Kind() string { return "clock_fired" }
func (e ClockFired) apply(s *State) error {
	c := s.Clocks[e.Clock]
	if c == nil {
		return fmt.Errorf("no clock %q", e.Clock)
	}
	if c.Value < c.Max {
		return fmt.Errorf("clock %q is at %d/%d, not full", c.ID, c.Value, c.Max)
	}
	c.Fired = true
	return nil
}

// ThreadUpdated opens, changes or closes a story thread.
type ThreadUpdated struct {
	Thread Thread `json:"thread"`
}

func (ThreadUpdated) Kind() string { return "thread_updated" }
func (e ThreadUpdated) apply(s *State) error {
	if e.Thread.ID == "" {
		return fmt.Errorf("thread without id")
	}
	t := e.Thread
	s.Threads[t.ID] = &t
	return nil
}

// SceneChanged starts a new scene.
type SceneChanged struct {
	Scene Scene `json:"scene"`
}

func (SceneChanged) Kind() string { return "scene_changed" }
func (e SceneChanged) apply(s *State) error {
	s.Scene = e.Scene
	return nil
}

// WhisperSent records a private message to one character.
type WhisperSent struct {
	Whisper Whisper `json:"whisper"`
}

func (WhisperSent) Kind() string { return "whisper_sent" }
func (e WhisperSent) apply(s *State) error {
	if e.Whisper.ID == "" {
		return fmt.Errorf("whisper without id")
	}
	w := e.Whisper
	s.Whispers[w.ID] = &w
	return nil
}

// SecretRevealed makes a whisper or a character's secret known to all.
type SecretRevealed struct {
	Whisper   string `json:"whisper,omitempty"`
	Character string `json:"character,omitempty"`
	Text      string `json:"text"`
	How       string `json:"how,omitempty"`
}

func (SecretRevealed) Kind() string { return "secret_revealed" }
func (e SecretRevealed) apply(s *State) error {
	switch {
	case e.Whisper != "":
		w := s.Whispers[e.Whisper]
		if w == nil {
			return fmt.Errorf("no whisper %q", e.Whisper)
		}
		w.Revealed, w.RevealedTurn = true, s.Turn
	case e.Character != "":
		c, err := s.character(e.Character)
		if err != nil {
			return err
		}
		c.SecretRevealed = true
	default:
		return fmt.Errorf("secret_revealed names neither a whisper nor a character")
	}
	return nil
}

// TimeAdvanced moves game time forward.
type TimeAdvanced struct {
	From GameTime `json:"from"`
	To   GameTime `json:"to"`
}

func (TimeAdvanced) Kind() string { return "time_advanced" }
func (e TimeAdvanced) apply(s *State) error {
	if e.To < s.Time {
		return fmt.Errorf("time cannot go back from %v to %v", s.Time, e.To)
	}
	s.Time = e.To
	return nil
}

// mergeInto deep-merges changes into the JSON form of v and decodes the
// result into out, so updates follow the same rules as state patches.
func mergeInto(v any, changes map[string]any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	DeepMerge(m, changes)
	b, err = json.Marshal(m)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("changes do not fit: %w", err)
	}
	return nil
}

// Note kinds: what a NoteRecorded says about its turn.
const (
	NoteNudge    = "nudge"    // a suggestion from someone at the table
	NoteFallback = "fallback" // a model failed and the turn was played offline
	NoteReroll   = "reroll"   // the player chose to reseed the dice (reroll fate)
	NoteSkipped  = "skipped"  // a consequence's follow-up no longer fit the world
)

// Note is something said about a turn rather than done in the world: a
// nudge the table suggested, a fallback the game made.
type Note struct {
	Kind string `json:"kind"`
	// By is who said it: a user's name for a nudge.
	By   string `json:"by,omitempty"`
	Text string `json:"text"`
}

// NoteRecorded keeps a note with its turn, so that transcripts, restores
// and forks show it; it changes nothing in the world.
type NoteRecorded struct {
	Note Note `json:"note"`
}

func (NoteRecorded) Kind() string { return "note_recorded" }
func (e NoteRecorded) apply(*State) error {
	if e.Note.Kind == "" || e.Note.Text == "" {
		return fmt.Errorf("a note names its kind and says something")
	}
	return nil
}
