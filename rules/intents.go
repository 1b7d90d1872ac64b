package rules

import "encoding/json"

// Intent is a request to change the world, from the player, a model's tool
// call, a skill, a consequence or a scheduled event. Type returns its stable
// JSON name, which is also the name of the model tool that produces it.
//
// References to characters, locations, items, quests, factions and clocks
// may be IDs or names (case-insensitive, aliases too); the engine resolves
// them and says what is valid when it cannot. An empty actor-like field
// (character, attacker …) means the player's character.
type Intent interface {
	Type() string
}

// Ability and skill checks, saves and attacks.

// Check is an ability or skill check against a DC (d20), the 2d6 bands or a
// Traveller difficulty.
type Check struct {
	Character string `json:"character,omitempty" jsonschema:"who makes the check; empty for the player"`
	Ability   string `json:"ability,omitempty" jsonschema:"ability, e.g. strength, dexterity, wisdom; inferred from the skill when empty"`
	Skill     string `json:"skill,omitempty" jsonschema:"skill, e.g. athletics, stealth, persuasion"`
	DC        int    `json:"dc,omitempty" jsonschema:"difficulty class (d20) or target number (Traveller); default 10 or 8"`
	Advantage string `json:"advantage,omitempty" jsonschema:"advantage, disadvantage or empty"`
	Target    string `json:"target,omitempty" jsonschema:"the character a social check is aimed at; their opinion of the player modifies it"`
	Reason    string `json:"reason,omitempty" jsonschema:"what the check is for"`
}

// SavingThrow is a saving throw against an effect.
type SavingThrow struct {
	Character string `json:"character,omitempty" jsonschema:"who saves; empty for the player"`
	Ability   string `json:"ability" jsonschema:"ability of the save, e.g. dexterity"`
	DC        int    `json:"dc" jsonschema:"difficulty class"`
	Advantage string `json:"advantage,omitempty" jsonschema:"advantage, disadvantage or empty"`
	Reason    string `json:"reason,omitempty"`
}

// Attack is one attack; a hit deals the weapon's or attack's damage.
type Attack struct {
	Attacker  string `json:"attacker,omitempty" jsonschema:"who attacks; empty for the player"`
	Target    string `json:"target" jsonschema:"who is attacked"`
	Weapon    string `json:"weapon,omitempty" jsonschema:"weapon or attack name; default the equipped weapon or first attack"`
	Advantage string `json:"advantage,omitempty" jsonschema:"advantage, disadvantage or empty"`
}

// Grapple is a 5e contest in place of an attack: the attacker's Strength
// (Athletics) against the target's Athletics or Acrobatics, whichever is
// better, a tie changing nothing. A grapple that wins leaves the target
// grappled (speed 0) and a shove knocks it prone; neither works on a
// target more than one size larger (size tags: tiny … gargantuan, default
// medium). Escape is the grappled creature's Athletics or Acrobatics
// against its grappler's Athletics; winning ends the grapple. Release
// lets go of the one named, or of everyone the attacker holds. The
// grapple also ends when the grappler is incapacitated or the two are
// apart; a grappler who moves drags the grappled along at half speed,
// and one who flees lets go.
type Grapple struct {
	Attacker string `json:"attacker,omitempty" jsonschema:"who grapples, shoves or escapes; empty for the player"`
	Target   string `json:"target,omitempty" jsonschema:"who is grappled, shoved or let go of; to escape, who holds on (default: the grappler)"`
	Maneuver string `json:"maneuver,omitempty" jsonschema:"grapple (default), shove, escape or release"`
}

// Damage deals damage directly (a trap, a fall, a spell the GM adjudicates).
type Damage struct {
	Target     string `json:"target" jsonschema:"who takes the damage"`
	Amount     int    `json:"amount,omitempty" jsonschema:"fixed damage; use dice instead for rolled damage"`
	Dice       string `json:"dice,omitempty" jsonschema:"dice notation, e.g. 2d6"`
	DamageType string `json:"damage_type,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Heal restores hit points, up to the maximum.
type Heal struct {
	Target string `json:"target,omitempty" jsonschema:"who is healed; empty for the player"`
	Amount int    `json:"amount,omitempty"`
	Dice   string `json:"dice,omitempty" jsonschema:"dice notation, e.g. 2d4+2"`
	Reason string `json:"reason,omitempty"`
}

// CastSpell casts a spell from the spell list (the SRD's): a slot of the
// spell's level or higher is spent (cantrips are free; a long rest restores
// slots), targets save against the caster's spell save DC (8 + proficiency
// + spellcasting modifier) or are attacked with the spell attack bonus,
// darts such as Magic Missile's strike home, healing heals, a failed save
// applies the spell's condition, and a concentration spell ends the one
// held before. An area spell with no targets named catches the foes
// present, as many as its area holds.
type CastSpell struct {
	Caster    string   `json:"caster,omitempty" jsonschema:"who casts; empty for the player"`
	Spell     string   `json:"spell" jsonschema:"the spell's name, e.g. fire bolt, magic missile, cure wounds, hold person"`
	Targets   []string `json:"targets,omitempty" jsonschema:"who it is aimed at; a name may mean a group for an area spell (the goblins); default: a healing spell the caster, a harmful one the only foe present"`
	SlotLevel int      `json:"slot_level,omitempty" jsonschema:"spell slot level to spend, higher than the spell's to upcast; default the lowest slot left"`
	At        string   `json:"at,omitempty" jsonschema:"where an area spell is centred: a character present, whom the area then holds, or the current location"`
}

// ApplyCondition gives a condition such as poisoned, prone or frightened.
type ApplyCondition struct {
	Target    string `json:"target"`
	Condition string `json:"condition"`
	Reason    string `json:"reason,omitempty"`
}

// RemoveCondition takes a condition away.
type RemoveCondition struct {
	Target    string `json:"target"`
	Condition string `json:"condition"`
}

// Movement and rest.

// Move goes to a connected location, by name, ID or direction.
type Move struct {
	Character   string `json:"character,omitempty" jsonschema:"who moves; empty for the player"`
	Destination string `json:"destination" jsonschema:"location name or id, or a direction such as north"`
}

// Rest is a short (1 hour) or long (8 hours) rest.
type Rest struct {
	Character string `json:"character,omitempty"`
	Rest      string `json:"rest" jsonschema:"short or long"`
}

// Items and gold.

// UseItem uses an item the character carries: drink a potion, read a
// scroll, use a key on a door, light the lamp.
type UseItem struct {
	Character string `json:"character,omitempty"`
	Item      string `json:"item"`
	Target    string `json:"target,omitempty" jsonschema:"who or what the item is used on"`
}

// TakeItem picks an item up from the location or takes it from a willing
// (or defeated) character.
type TakeItem struct {
	Character string `json:"character,omitempty"`
	Item      string `json:"item"`
	Qty       int    `json:"qty,omitempty" jsonschema:"how many; default 1"`
	From      string `json:"from,omitempty" jsonschema:"character to take it from; default the location"`
}

// GiveItem hands an item to another character present.
type GiveItem struct {
	Character string `json:"character,omitempty"`
	Item      string `json:"item"`
	Qty       int    `json:"qty,omitempty"`
	To        string `json:"to"`
}

// DropItem leaves an item at the location.
type DropItem struct {
	Character string `json:"character,omitempty"`
	Item      string `json:"item"`
	Qty       int    `json:"qty,omitempty"`
}

// EquipItem wields or wears an item, or puts it away.
type EquipItem struct {
	Character string `json:"character,omitempty"`
	Item      string `json:"item"`
	Unequip   bool   `json:"unequip,omitempty"`
}

// ChangeGold adds (positive) or spends (negative) gold.
type ChangeGold struct {
	Character string `json:"character,omitempty"`
	Amount    int    `json:"amount"`
	Reason    string `json:"reason,omitempty"`
}

// Exploration and dialogue.

// Look examines the surroundings or one thing.
type Look struct {
	Target string `json:"target,omitempty" jsonschema:"a character, item or exit to examine; empty for the surroundings"`
}

// Search searches the location for what is hidden.
type Search struct {
	Character string `json:"character,omitempty"`
	Skill     string `json:"skill,omitempty" jsonschema:"default investigation"`
}

// Talk speaks with a character present, optionally about a topic.
type Talk struct {
	Character string `json:"character,omitempty"`
	NPC       string `json:"npc" jsonschema:"who to talk to"`
	Topic     string `json:"topic,omitempty" jsonschema:"what about"`
}

// RollDice rolls dice that decide nothing by themselves.
type RollDice struct {
	Notation string `json:"notation" jsonschema:"dice notation, e.g. 2d6+3, 4d6kh3, 1d20 adv"`
	Reason   string `json:"reason,omitempty"`
}

// Combat.

// StartCombat begins a fight with the named characters (default: every
// hostile character present).
type StartCombat struct {
	Combatants []string `json:"combatants,omitempty" jsonschema:"characters who fight the player"`
	Reason     string   `json:"reason,omitempty"`
}

// EndCombat ends the fight with an outcome: victory, defeat, fled or truce.
type EndCombat struct {
	Outcome string `json:"outcome"`
}

// Flee tries to escape the fight (a Dexterity (Acrobatics) or Athletics
// check); escaping ends combat as fled.
type Flee struct {
	Character   string `json:"character,omitempty"`
	Destination string `json:"destination,omitempty" jsonschema:"where to run; default the way the player came"`
}

// DeathSave is a downed character's turn: a death saving throw (5e SRD:
// 10 or more succeeds, three successes stabilise, three failures kill, a
// natural 20 regains 1 hit point, a natural 1 counts twice). Once stable,
// the turn is the 1d4 hours until they come to with 1 hit point.
type DeathSave struct {
	Character string `json:"character,omitempty" jsonschema:"who is dying; empty for the player"`
}

// World building (seed 003's tools).

// CreateNPC introduces a character.
type CreateNPC struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Personality string   `json:"personality,omitempty"`
	Disposition string   `json:"disposition,omitempty" jsonschema:"friendly, neutral, wary or hostile"`
	Location    string   `json:"location,omitempty" jsonschema:"where they are; default the player's location"`
	Knowledge   []string `json:"known_information,omitempty"`
	Faction     string   `json:"faction,omitempty"`
	Secret      string   `json:"secret,omitempty"`
	Creature    bool     `json:"creature,omitempty" jsonschema:"a beast or monster rather than a person"`
	HP          int      `json:"hit_points,omitempty"`
	AC          int      `json:"armor_class,omitempty"`
	AttackName  string   `json:"attack_name,omitempty"`
	AttackBonus int      `json:"attack_bonus,omitempty"`
	Damage      string   `json:"damage,omitempty" jsonschema:"dice notation of the attack's damage"`
	Hostile     bool     `json:"hostile,omitempty"`
}

// UpdateNPC changes an NPC's description, personality, disposition or
// knowledge.
type UpdateNPC struct {
	NPC         string   `json:"npc"`
	Description string   `json:"description,omitempty"`
	Personality string   `json:"personality,omitempty"`
	Disposition string   `json:"disposition,omitempty"`
	Knowledge   []string `json:"add_known_information,omitempty"`
	Hostile     *bool    `json:"hostile,omitempty"`
}

// MoveNPC sends an NPC to a location.
type MoveNPC struct {
	NPC      string `json:"npc"`
	Location string `json:"location"`
}

// RemoveNPC takes an NPC out of the world.
type RemoveNPC struct {
	NPC    string `json:"npc"`
	Reason string `json:"reason,omitempty"`
}

// CreateLocation adds a location, optionally connected to another.
type CreateLocation struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Parent        string `json:"parent,omitempty"`
	ConnectTo     string `json:"connect_to,omitempty" jsonschema:"an existing location to connect it to"`
	Direction     string `json:"direction,omitempty" jsonschema:"direction from connect_to to the new location"`
	BackDirection string `json:"back_direction,omitempty"`
}

// ConnectLocations joins two locations.
type ConnectLocations struct {
	From          string `json:"from"`
	To            string `json:"to"`
	Direction     string `json:"direction,omitempty"`
	BackDirection string `json:"back_direction,omitempty"`
	Description   string `json:"description,omitempty"`
	OneWay        bool   `json:"one_way,omitempty"`
}

// UpdateLocation changes a location's description or atmosphere.
type UpdateLocation struct {
	Location    string `json:"location"`
	Description string `json:"description,omitempty"`
	Atmosphere  string `json:"atmosphere,omitempty"`
}

// RememberFact records something true in the story.
type RememberFact struct {
	Subject    string  `json:"subject,omitempty" jsonschema:"the entity the fact is about"`
	Fact       string  `json:"fact"`
	Category   string  `json:"category,omitempty" jsonschema:"appearance, personality, event, relationship, backstory, motivation, capability, location, possession, status or secret"`
	Visibility string  `json:"visibility,omitempty" jsonschema:"player, trusted, assistant or gm_only; default player"`
	Importance float64 `json:"importance,omitempty" jsonschema:"0 to 1; default 0.5"`
}

// RegisterConsequence plants a story seed that blooms when its trigger
// happens.
type RegisterConsequence struct {
	Trigger     string            `json:"trigger" jsonschema:"in words, when it happens"`
	Description string            `json:"description" jsonschema:"what happens then"`
	Severity    string            `json:"severity,omitempty" jsonschema:"minor, moderate or major"`
	Related     []string          `json:"related_entities,omitempty"`
	Importance  float64           `json:"importance,omitempty"`
	On          string            `json:"on,omitempty" jsonschema:"enter_location, take_item, defeat, quest_completed, talk or use_item"`
	Target      string            `json:"target,omitempty" jsonschema:"the location, item, character or quest of 'on'"`
	At          string            `json:"at,omitempty" jsonschema:"location where the trigger must happen, if it matters"`
	Then        []json.RawMessage `json:"then,omitempty" jsonschema:"intents to resolve when it triggers"`
}

// CreateQuest adds a quest; it starts active unless Available is set.
type CreateQuest struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Giver       string   `json:"giver,omitempty"`
	Objectives  []string `json:"objectives,omitempty"`
	RewardGold  int      `json:"reward_gold,omitempty"`
	Available   bool     `json:"available,omitempty" jsonschema:"offered but not yet taken"`
}

// StartQuest accepts an offered quest.
type StartQuest struct {
	Quest string `json:"quest"`
}

// AddObjective adds an objective to a quest.
type AddObjective struct {
	Quest     string `json:"quest"`
	Objective string `json:"objective"`
	Optional  bool   `json:"optional,omitempty"`
}

// CompleteObjective ticks off an objective (by ID or text).
type CompleteObjective struct {
	Quest     string `json:"quest"`
	Objective string `json:"objective"`
}

// CompleteQuest completes a quest and grants its rewards.
type CompleteQuest struct {
	Quest string `json:"quest"`
}

// FailQuest fails a quest.
type FailQuest struct {
	Quest  string `json:"quest"`
	Reason string `json:"reason,omitempty"`
}

// ScheduleEvent plans something for later in game time.
type ScheduleEvent struct {
	Description string            `json:"description"`
	In          string            `json:"in" jsonschema:"how long from now, e.g. 2h, 1d"`
	Location    string            `json:"location,omitempty"`
	Then        []json.RawMessage `json:"then,omitempty" jsonschema:"intents to resolve when it happens"`
}

// AssertState deep-merges a patch into the session state (seed 001 §2.4);
// stats are clamped to their ranges.
type AssertState struct {
	Patch map[string]any `json:"patch"`
}

// ChangeReputation shifts the player's standing with a faction.
type ChangeReputation struct {
	Faction string `json:"faction"`
	Delta   int    `json:"delta" jsonschema:"-100 to 100"`
	Reason  string `json:"reason,omitempty"`
}

// ChangePerception shifts an NPC's opinion of the player.
type ChangePerception struct {
	NPC    string `json:"npc"`
	Delta  int    `json:"delta" jsonschema:"-100 to 100"`
	Reason string `json:"reason,omitempty"`
}

// ChangeStat shifts a campaign stat of a character.
type ChangeStat struct {
	Character string `json:"character,omitempty"`
	Stat      string `json:"stat"`
	Delta     int    `json:"delta"`
	Reason    string `json:"reason,omitempty"`
}

// CreateClock adds a progress clock.
type CreateClock struct {
	Name   string `json:"name"`
	Max    int    `json:"max" jsonschema:"segments, e.g. 4, 6 or 8"`
	OnFull string `json:"on_full,omitempty" jsonschema:"what happens when it fills"`
}

// AdvanceClock ticks a clock forward (or back, with a negative amount).
type AdvanceClock struct {
	Clock  string `json:"clock"`
	Amount int    `json:"amount"`
}

// UpdateThread opens, changes or closes a story thread.
type UpdateThread struct {
	Thread string `json:"thread" jsonschema:"title of the thread"`
	Status string `json:"status,omitempty" jsonschema:"open, resolved or abandoned"`
	Stakes string `json:"stakes,omitempty"`
}

// ChangeScene moves the story to a new scene.
type ChangeScene struct {
	Title    string `json:"title"`
	Location string `json:"location,omitempty" jsonschema:"default the player's location"`
	Mood     string `json:"mood,omitempty"`
}

// Whisper tells one character something privately.
type Whisper struct {
	To   string `json:"to" jsonschema:"the character who hears it; empty for the player"`
	Text string `json:"text"`
}

// RevealSecret makes a whisper or a character's secret known.
type RevealSecret struct {
	Whisper   string `json:"whisper,omitempty" jsonschema:"id of the whisper"`
	Character string `json:"character,omitempty" jsonschema:"whose secret comes out"`
	How       string `json:"how,omitempty" jsonschema:"the dramatic moment"`
}

// AdvanceTime moves game time forward.
type AdvanceTime struct {
	Duration string `json:"duration" jsonschema:"e.g. 30m, 2h, 1d"`
	Reason   string `json:"reason,omitempty"`
}

func (DeathSave) Type() string           { return "death_save" }
func (Check) Type() string               { return "ability_check" }
func (SavingThrow) Type() string         { return "saving_throw" }
func (Attack) Type() string              { return "attack" }
func (Grapple) Type() string             { return "grapple" }
func (Damage) Type() string              { return "damage" }
func (CastSpell) Type() string           { return "cast_spell" }
func (Heal) Type() string                { return "heal" }
func (ApplyCondition) Type() string      { return "apply_condition" }
func (RemoveCondition) Type() string     { return "remove_condition" }
func (Move) Type() string                { return "move" }
func (Rest) Type() string                { return "rest" }
func (UseItem) Type() string             { return "use_item" }
func (TakeItem) Type() string            { return "take_item" }
func (GiveItem) Type() string            { return "give_item" }
func (DropItem) Type() string            { return "drop_item" }
func (EquipItem) Type() string           { return "equip_item" }
func (ChangeGold) Type() string          { return "change_gold" }
func (Look) Type() string                { return "look" }
func (Search) Type() string              { return "search" }
func (Talk) Type() string                { return "talk" }
func (RollDice) Type() string            { return "roll_dice" }
func (StartCombat) Type() string         { return "start_combat" }
func (EndCombat) Type() string           { return "end_combat" }
func (Flee) Type() string                { return "flee" }
func (CreateNPC) Type() string           { return "create_npc" }
func (UpdateNPC) Type() string           { return "update_npc" }
func (MoveNPC) Type() string             { return "move_npc" }
func (RemoveNPC) Type() string           { return "remove_npc" }
func (CreateLocation) Type() string      { return "create_location" }
func (ConnectLocations) Type() string    { return "connect_locations" }
func (UpdateLocation) Type() string      { return "update_location" }
func (RememberFact) Type() string        { return "remember_fact" }
func (RegisterConsequence) Type() string { return "register_consequence" }
func (CreateQuest) Type() string         { return "create_quest" }
func (StartQuest) Type() string          { return "start_quest" }
func (AddObjective) Type() string        { return "add_quest_objective" }
func (CompleteObjective) Type() string   { return "complete_objective" }
func (CompleteQuest) Type() string       { return "complete_quest" }
func (FailQuest) Type() string           { return "fail_quest" }
func (ScheduleEvent) Type() string       { return "schedule_event" }
func (AssertState) Type() string         { return "assert_state" }
func (ChangeReputation) Type() string    { return "change_reputation" }
func (ChangePerception) Type() string    { return "change_perception" }
func (ChangeStat) Type() string          { return "change_stat" }
func (CreateClock) Type() string         { return "create_clock" }
func (AdvanceClock) Type() string        { return "advance_clock" }
func (UpdateThread) Type() string        { return "update_thread" }
func (ChangeScene) Type() string         { return "change_scene" }
func (Whisper) Type() string             { return "whisper" }
func (RevealSecret) Type() string        { return "reveal_secret" }
func (AdvanceTime) Type() string         { return "advance_time" }
