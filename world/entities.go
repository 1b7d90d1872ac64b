package world

import (
	"encoding/json"
	"fmt"

	"github.com/hearth-rpg/hearth/access"
)

// Kind names what sort of character a Character is.
type Kind string

// Character kinds.
const (
	PC       Kind = "pc"       // a player character
	NPC      Kind = "npc"      // a person the player can talk to
	Creature Kind = "creature" // a beast or monster
)

// Character is anyone who can act or be acted on: player characters, NPCs
// and creatures. The sheet fields follow the D&D 5e character sheet; other
// systems use the subset that applies and campaign-defined Stats.
type Character struct {
	ID          string   `json:"id"`
	Kind        Kind     `json:"kind"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Description string   `json:"description,omitempty"`
	Personality string   `json:"personality,omitempty"`
	Disposition string   `json:"disposition,omitempty"` // friendly, neutral, wary, hostile
	Location    string   `json:"location,omitempty"`
	Faction     string   `json:"faction,omitempty"`
	Knowledge   []string `json:"knowledge,omitempty"` // what they know and will share
	// Topics maps a subject to what the character says about it.
	Topics   map[string]string `json:"topics,omitempty"`
	Greeting string            `json:"greeting,omitempty"`
	// Secret is what the character hides; GM-only until revealed.
	Secret         string   `json:"secret,omitempty"`
	SecretRevealed bool     `json:"secret_revealed,omitempty"`
	Hostile        bool     `json:"hostile,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	// OnDefeat is what this foe does with a player it has beaten: capture,
	// rob or leave; with several, the dice choose. Empty: beasts leave,
	// people may do any of the three.
	OnDefeat []string `json:"on_defeat,omitempty"`
	// CaptureAt is the location a player this foe captures wakes in;
	// empty: where they fell.
	CaptureAt string `json:"capture_at,omitempty"`

	Sheet

	// Stats are campaign-defined gauges (seed 001 stats/), clamped to their
	// StatDef ranges.
	Stats map[string]int `json:"stats,omitempty"`
	// Inventory maps item IDs to quantities.
	Inventory map[string]int `json:"inventory,omitempty"`
	Equipped  []string       `json:"equipped,omitempty"`
	Attacks   []Attack       `json:"attacks,omitempty"`

	// Perception is this NPC's opinion of the player, -100..100, as set at
	// PerceptionAt; read it through State.Perception, which applies decay.
	Perception   int      `json:"perception,omitempty"`
	PerceptionAt GameTime `json:"perception_at,omitempty"`

	// MentionedTurn is the last turn the character was part of the action;
	// its importance decays from there.
	MentionedTurn int `json:"mentioned_turn,omitempty"`

	// HPBand is set only in a player's view of another party member, in
	// place of its exact hit points: see HPBand.
	HPBand string `json:"hp_band,omitempty"`
}

// Sheet holds the D&D 5e character sheet fields.
type Sheet struct {
	Race            string `json:"race,omitempty"`
	Class           string `json:"class,omitempty"`
	Level           int    `json:"level,omitempty"`
	Background      string `json:"background,omitempty"`
	Alignment       string `json:"alignment,omitempty"`
	ChallengeRating string `json:"challenge_rating,omitempty"`

	// Abilities maps lower-case ability names (strength … charisma, or a
	// system's own such as education) to scores.
	Abilities map[string]int `json:"abilities,omitempty"`

	HP              int    `json:"hit_points"`
	MaxHP           int    `json:"max_hit_points"`
	TempHP          int    `json:"temporary_hp,omitempty"`
	AC              int    `json:"armor_class,omitempty"`
	InitiativeBonus int    `json:"initiative_bonus,omitempty"`
	Speed           int    `json:"speed,omitempty"`
	HitDice         string `json:"hit_dice,omitempty"` // e.g. "3d8"
	HitDiceUsed     int    `json:"hit_dice_used,omitempty"`

	ProficiencyBonus int      `json:"proficiency_bonus,omitempty"`
	SavingThrows     []string `json:"saving_throws,omitempty"` // proficient saves
	// Skills maps a skill to the bonus added on top of the ability modifier
	// (d20: proficiency or expertise) or the skill level (Traveller, 2d6).
	Skills            map[string]int `json:"skills,omitempty"`
	Languages         []string       `json:"languages,omitempty"`
	ToolProficiencies []string       `json:"tool_proficiencies,omitempty"`

	Gold int `json:"gold,omitempty"`

	SpellcastingAbility string      `json:"spellcasting_ability,omitempty"`
	SpellSaveDC         int         `json:"spell_save_dc,omitempty"`
	SpellAttackBonus    int         `json:"spell_attack_bonus,omitempty"`
	SpellSlots          map[int]int `json:"spell_slots,omitempty"`      // level → maximum
	SpellSlotsUsed      map[int]int `json:"spell_slots_used,omitempty"` // level → spent
	SpellsKnown         []string    `json:"spells_known,omitempty"`
	Cantrips            []string    `json:"cantrips,omitempty"`
	// Concentration is the spell the character keeps going, if any.
	Concentration *Concentration `json:"concentration,omitempty"`

	ClassFeatures     []string `json:"class_features,omitempty"`
	RacialTraits      []string `json:"racial_traits,omitempty"`
	PersonalityTraits []string `json:"personality_traits,omitempty"`
	Ideals            []string `json:"ideals,omitempty"`
	Bonds             []string `json:"bonds,omitempty"`
	Flaws             []string `json:"flaws,omitempty"`
	Backstory         string   `json:"backstory,omitempty"`

	Conditions []string `json:"conditions,omitempty"`
	// GrappledBy is who holds this character while it is grappled; the
	// grapple ends when they are incapacitated or apart (see
	// ConditionApplied and CharacterMoved). Empty for a grapple from
	// before it was tracked.
	GrappledBy string     `json:"grappled_by,omitempty"`
	DeathSaves DeathSaves `json:"death_saves,omitzero"`
	XP         int        `json:"xp,omitempty"`
}

// Concentration is a spell its caster keeps going (5e): one at a time,
// ended by casting another, by failing a Constitution save when hurt, by
// falling unconscious, by a rest, or when its rounds run out.
type Concentration struct {
	Spell string `json:"spell"`
	// Targets are the characters the spell holds with Condition; Save is
	// the ability they repeat their saving throw with against DC at the
	// end of each of their turns, when the spell allows it.
	Targets   []string `json:"targets,omitempty"`
	Condition string   `json:"condition,omitempty"`
	Save      string   `json:"save,omitempty"`
	DC        int      `json:"dc,omitempty"`
	// EndsRound is the combat round the spell runs out at; 0: it lasts
	// until something ends it.
	EndsRound int `json:"ends_round,omitempty"`
}

// SlotsLeft is how many spell slots of a level the character has unspent.
func (s *Sheet) SlotsLeft(level int) int {
	return max(0, s.SpellSlots[level]-s.SpellSlotsUsed[level])
}

// DeathSaves counts a dying character's death saving throws (5e): three
// successes and they are stable, three failures and they die.
type DeathSaves struct {
	Successes int `json:"successes,omitempty"`
	Failures  int `json:"failures,omitempty"`
}

// Attack is a natural or signature attack of an NPC or creature.
type Attack struct {
	Name       string `json:"name"`
	Bonus      int    `json:"bonus"`
	Damage     string `json:"damage"` // dice notation
	DamageType string `json:"damage_type,omitempty"`
}

// Location is a place joined to others by exits.
type Location struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Description string   `json:"description,omitempty"`
	// Atmosphere is flavour a narrator may use on return visits.
	Atmosphere string   `json:"atmosphere,omitempty"`
	Parent     string   `json:"parent,omitempty"` // enclosing location
	Exits      []Exit   `json:"exits,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	// Items lying here, item ID → quantity.
	Items         map[string]int `json:"items,omitempty"`
	Discoverables []Discoverable `json:"discoverables,omitempty"`
	Visited       bool           `json:"visited,omitempty"`
	// Danger is an encounter that starts when the player arrives.
	Encounter *Encounter `json:"encounter,omitempty"`
}

// Exit leads from one location to another.
type Exit struct {
	To          string `json:"to"`
	Direction   string `json:"direction,omitempty"` // north, up, "through the arch"
	Description string `json:"description,omitempty"`
	Locked      bool   `json:"locked,omitempty"`
	Key         string `json:"key,omitempty"`    // item that unlocks it
	Hidden      bool   `json:"hidden,omitempty"` // until discovered
}

// Discoverable is something a search of a location can turn up.
type Discoverable struct {
	ID    string `json:"id"`
	Text  string `json:"text"`            // what the player learns
	Skill string `json:"skill,omitempty"` // e.g. investigation
	DC    int    `json:"dc,omitempty"`
	Item  string `json:"item,omitempty"` // placed in the location when found
	Exit  string `json:"exit,omitempty"` // hidden exit revealed when found (its To)
	Found bool   `json:"found,omitempty"`
}

// Encounter is a fight waiting at a location.
type Encounter struct {
	Creatures []string `json:"creatures"`      // character IDs
	Text      string   `json:"text,omitempty"` // how it begins
	Triggered bool     `json:"triggered,omitempty"`
}

// Item is an item definition; who holds how many lives in inventories.
type Item struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Type        string   `json:"type,omitempty"` // weapon, armor, consumable, key, treasure, misc
	Description string   `json:"description,omitempty"`
	Flavor      string   `json:"flavor,omitempty"`
	Damage      string   `json:"damage,omitempty"` // weapons: dice notation
	DamageType  string   `json:"damage_type,omitempty"`
	// Ability used to attack with a weapon (strength, dexterity); finesse
	// weapons list both.
	Ability []string `json:"ability,omitempty"`
	ACBonus int      `json:"ac_bonus,omitempty"`
	// Effect of using a consumable, e.g. "heal 2d4+2", "health +25",
	// "remove poisoned".
	Effect string   `json:"effect,omitempty"`
	Uses   int      `json:"uses,omitempty"`
	Weight float64  `json:"weight,omitempty"`
	Value  int      `json:"value,omitempty"` // in gold
	Fixed  bool     `json:"fixed,omitempty"` // cannot be picked up
	Tags   []string `json:"tags,omitempty"`
}

// Quest statuses.
const (
	QuestAvailable = "available" // known to the campaign, not yet taken
	QuestActive    = "active"
	QuestCompleted = "completed"
	QuestFailed    = "failed"
)

// Quest is a mission with objectives.
type Quest struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Giver       string      `json:"giver,omitempty"`
	Status      string      `json:"status"`
	Objectives  []Objective `json:"objectives,omitempty"`
	RewardGold  int         `json:"reward_gold,omitempty"`
	RewardItems []string    `json:"reward_items,omitempty"`
	RewardXP    int         `json:"reward_xp,omitempty"`
}

// Objective is one step of a quest.
type Objective struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Done     bool   `json:"done,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// Faction is a group the player has a standing with.
type Faction struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Reputation is the player's standing, -100..100, as set at
	// ReputationAt; read it through State.Reputation.
	Reputation   int      `json:"reputation"`
	ReputationAt GameTime `json:"reputation_at,omitempty"`
}

// Fact categories (seed 003). Stable categories decay at half speed.
const (
	CategoryAppearance   = "appearance"
	CategoryPersonality  = "personality"
	CategoryEvent        = "event"
	CategoryRelationship = "relationship"
	CategoryBackstory    = "backstory"
	CategoryMotivation   = "motivation"
	CategoryCapability   = "capability"
	CategoryLocation     = "location"
	CategoryPossession   = "possession"
	CategoryStatus       = "status"
	CategorySecret       = "secret"
)

// Fact is something true in the story, with who may know it.
type Fact struct {
	ID         string       `json:"id"`
	Subject    string       `json:"subject,omitempty"` // entity ID
	Text       string       `json:"text"`
	Category   string       `json:"category,omitempty"`
	Visibility access.Level `json:"visibility"`
	// Importance in 0..1 as of Turn; read through State.FactImportance.
	Importance float64 `json:"importance"`
	Turn       int     `json:"turn"`
	Source     string  `json:"source,omitempty"` // campaign, play, model
}

// Relationship links two entities.
type Relationship struct {
	A         string `json:"a"`
	B         string `json:"b"`
	Type      string `json:"type"`
	Intensity int    `json:"intensity,omitempty"` // -100..100
	Notes     string `json:"notes,omitempty"`
}

// Clock is a progress clock (Blades-style): when Value reaches Max, what it
// stands for happens: OnFull is told and Then resolved, once, at the end of
// the turn that filled it.
type Clock struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Value  int      `json:"value"`
	Max    int      `json:"max"`
	OnFull string   `json:"on_full,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	// Every ticks the clock once each time this much game time passes
	// ("1h", "30m", "1d"); empty: time alone does not move it.
	Every string `json:"every,omitempty"`
	// TickOn names effect kinds ("combat_started", "rested") that tick
	// the clock once in a turn that has any of them.
	TickOn []string `json:"tick_on,omitempty"`
	// Thread ties the clock to a story thread: it ticks on its own only
	// while that thread is open.
	Thread string `json:"thread,omitempty"`
	// Then holds intents (as the rules package encodes them) to resolve
	// when the clock fills.
	Then []RawIntent `json:"then,omitempty"`
	// Fired is set when the clock filled and its consequence happened; a
	// clock ticked back below Max may fill and fire again.
	Fired bool `json:"fired,omitempty"`
}

// Full reports whether the clock has filled and not yet fired.
func (c *Clock) Full() bool { return c.Max > 0 && c.Value >= c.Max && !c.Fired }

// Ticks is how many times the clock ticks by itself between two game
// times: each multiple of Every passed counts once, so turns that each
// pass ten minutes still tick an hourly clock on the hour. A clock tied
// to a thread that is no longer open does not tick.
func (c *Clock) Ticks(s *State, from, to GameTime) (int, error) {
	if c.Every == "" || to <= from || c.Fired {
		return 0, nil
	}
	if t := s.Threads[c.Thread]; c.Thread != "" && (t == nil || t.Status != "open") {
		return 0, nil
	}
	every, err := ParseDuration(c.Every)
	if err != nil {
		return 0, fmt.Errorf("clock %q: every: %w", c.ID, err)
	}
	if every <= 0 {
		return 0, fmt.Errorf("clock %q: every %q must be longer than no time", c.ID, c.Every)
	}
	return int(to/every - from/every), nil
}

// Thread is an open storyline.
type Thread struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Status  string   `json:"status"` // open, resolved, abandoned
	Stakes  string   `json:"stakes,omitempty"`
	Related []string `json:"related,omitempty"`
	Tags    []string `json:"tags,omitempty"`
}

// Condition kinds a consequence can wait for. Text-only triggers are matched
// against player input by whoever builds context.
const (
	OnEnter         = "enter_location"  // Target: location ID
	OnTake          = "take_item"       // Target: item ID
	OnDefeat        = "defeat"          // Target: character ID
	OnQuestComplete = "quest_completed" // Target: quest ID
	OnTalk          = "talk"            // Target: character ID
	OnUse           = "use_item"        // Target: item ID; At: where, if it matters
)

// Consequence is a story seed that blooms when its trigger happens.
type Consequence struct {
	ID          string   `json:"id"`
	Trigger     string   `json:"trigger"` // in words
	On          string   `json:"on,omitempty"`
	Target      string   `json:"target,omitempty"`
	At          string   `json:"at,omitempty"` // location the trigger must happen at, if any
	Description string   `json:"description"`
	Severity    string   `json:"severity,omitempty"` // minor, moderate, major
	Related     []string `json:"related,omitempty"`
	// Then holds intents (as the rules package encodes them) to resolve when
	// the consequence triggers.
	Then          []RawIntent `json:"then,omitempty"`
	Importance    float64     `json:"importance"`
	Turn          int         `json:"turn"`
	Triggered     bool        `json:"triggered,omitempty"`
	TriggeredTurn int         `json:"triggered_turn,omitempty"`
}

// RawIntent is an intent encoded as JSON. The world stores intents it
// cannot interpret (consequences, scheduled events); the rules engine
// decodes them.
type RawIntent = json.RawMessage

// ScheduledEvent happens at a game time.
type ScheduledEvent struct {
	ID          string      `json:"id"`
	At          GameTime    `json:"at"`
	Description string      `json:"description"`
	Location    string      `json:"location,omitempty"`
	Then        []RawIntent `json:"then,omitempty"`
	Fired       bool        `json:"fired,omitempty"`
}

// Event is a notable happening, recorded as an entity so later play can
// refer to it.
type Event struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Turn        int      `json:"turn"`
	At          GameTime `json:"at"`
	Location    string   `json:"location,omitempty"`
}

// Whisper is a private message from the GM to one character.
type Whisper struct {
	ID           string `json:"id"`
	From         string `json:"from"`
	To           string `json:"to"`
	Text         string `json:"text"`
	Revealed     bool   `json:"revealed,omitempty"`
	Turn         int    `json:"turn"`
	RevealedTurn int    `json:"revealed_turn,omitempty"`
}

// StatDef defines a campaign stat (seed 001 stats/).
type StatDef struct {
	ID       string `json:"id"`
	Label    string `json:"label,omitempty"`
	Min      int    `json:"min"`
	Max      int    `json:"max"`
	Default  int    `json:"default"`
	Display  string `json:"display,omitempty"`
	Category string `json:"category,omitempty"`
	Hidden   bool   `json:"hidden,omitempty"`
	Prompt   string `json:"behavioral_prompt,omitempty"`
}

// Scene is the current situation: where, since when, in what mood.
type Scene struct {
	Number   int      `json:"number"`
	Title    string   `json:"title,omitempty"`
	Location string   `json:"location"`
	Mood     string   `json:"mood,omitempty"`
	Started  int      `json:"started_turn"`
	StartAt  GameTime `json:"started_at"`
}

// Combat is an ongoing fight.
type Combat struct {
	Round    int         `json:"round"`
	Location string      `json:"location"`
	Order    []Combatant `json:"order"` // initiative order, highest first
}

// Combatant is one entry of the initiative order.
type Combatant struct {
	ID         string `json:"id"`
	Initiative int    `json:"initiative"`
}

// Combat outcomes.
const (
	Victory = "victory"
	Defeat  = "defeat"
	Fled    = "fled"
	Truce   = "truce"
)
