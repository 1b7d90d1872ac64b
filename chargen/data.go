package chargen

// Abilities in sheet order, by their lower-case names (the world sheet's keys).
var Abilities = []string{"strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"}

// SkillAbility maps each 5e skill (snake_case, as the rules engine reads
// it) to its ability.
var SkillAbility = map[string]string{
	"acrobatics": "dexterity", "animal_handling": "wisdom", "arcana": "intelligence",
	"athletics": "strength", "deception": "charisma", "history": "intelligence",
	"insight": "wisdom", "intimidation": "charisma", "investigation": "intelligence",
	"medicine": "wisdom", "nature": "intelligence", "perception": "wisdom",
	"performance": "charisma", "persuasion": "charisma", "religion": "intelligence",
	"sleight_of_hand": "dexterity", "stealth": "dexterity", "survival": "wisdom",
}

// StandardArray is the SRD's standard set of scores.
var StandardArray = []int{15, 14, 13, 12, 10, 8}

// PointBuyBudget and PointBuyCost are the SRD's point-buy rule: scores
// 8–15 before racial increases, costing this many points each.
const PointBuyBudget = 27

// PointBuyCost maps a score to its point-buy cost.
var PointBuyCost = map[int]int{8: 0, 9: 1, 10: 2, 11: 3, 12: 4, 13: 5, 14: 7, 15: 9}

// Languages a character may choose (SRD standard and exotic languages).
var Languages = []string{"Common", "Dwarvish", "Elvish", "Giant", "Gnomish", "Goblin", "Halfling", "Orc",
	"Abyssal", "Celestial", "Draconic", "Deep Speech", "Infernal", "Primordial", "Sylvan", "Undercommon"}

// Race is an SRD race or subrace, flattened: a subrace carries its
// parent's traits too.
type Race struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Subraces []string       `json:"subraces,omitempty"` // IDs; one must be chosen when present
	Bonus    map[string]int `json:"ability_bonus"`
	// ChooseBonus is how many other abilities get +1 of the player's
	// choice (half-elf: two, not charisma).
	ChooseBonus int      `json:"choose_ability_bonus,omitempty"`
	Speed       int      `json:"speed"`
	Size        string   `json:"size"`
	Languages   []string `json:"languages"`
	// ExtraLanguages the player chooses.
	ExtraLanguages int      `json:"extra_languages,omitempty"`
	Skills         []string `json:"skills,omitempty"`        // granted proficiencies
	ChooseSkills   int      `json:"choose_skills,omitempty"` // any skills of choice
	Weapons        []string `json:"weapon_proficiencies,omitempty"`
	Armor          []string `json:"armor_proficiencies,omitempty"`
	Tools          []string `json:"tool_proficiencies,omitempty"`
	HPPerLevel     int      `json:"hp_per_level,omitempty"`
	Traits         []string `json:"traits"`
	parent         string
}

// races holds base races and subraces by ID. A subrace lists only what it
// adds; Race() merges it with its parent.
var races = map[string]Race{
	"dwarf": {ID: "dwarf", Name: "Dwarf", Subraces: []string{"hill_dwarf"}, Bonus: map[string]int{"constitution": 2}, Speed: 25, Size: "Medium",
		Languages: []string{"Common", "Dwarvish"}, Weapons: []string{"battleaxe", "handaxe", "light_hammer", "warhammer"},
		Tools: []string{"smith's tools"}, Traits: []string{"Darkvision", "Dwarven Resilience", "Dwarven Combat Training", "Stonecunning"}},
	"hill_dwarf": {ID: "hill_dwarf", Name: "Hill Dwarf", parent: "dwarf", Bonus: map[string]int{"wisdom": 1}, HPPerLevel: 1,
		Traits: []string{"Dwarven Toughness"}},
	"elf": {ID: "elf", Name: "Elf", Subraces: []string{"high_elf"}, Bonus: map[string]int{"dexterity": 2}, Speed: 30, Size: "Medium",
		Languages: []string{"Common", "Elvish"}, Skills: []string{"perception"},
		Traits: []string{"Darkvision", "Keen Senses", "Fey Ancestry", "Trance"}},
	"high_elf": {ID: "high_elf", Name: "High Elf", parent: "elf", Bonus: map[string]int{"intelligence": 1}, ExtraLanguages: 1,
		Weapons: []string{"longsword", "shortsword", "shortbow", "longbow"}, Traits: []string{"Elf Weapon Training", "Cantrip", "Extra Language"}},
	"halfling": {ID: "halfling", Name: "Halfling", Subraces: []string{"lightfoot_halfling"}, Bonus: map[string]int{"dexterity": 2}, Speed: 25, Size: "Small",
		Languages: []string{"Common", "Halfling"}, Traits: []string{"Lucky", "Brave", "Halfling Nimbleness"}},
	"lightfoot_halfling": {ID: "lightfoot_halfling", Name: "Lightfoot Halfling", parent: "halfling", Bonus: map[string]int{"charisma": 1},
		Traits: []string{"Naturally Stealthy"}},
	"human": {ID: "human", Name: "Human", Bonus: map[string]int{"strength": 1, "dexterity": 1, "constitution": 1, "intelligence": 1, "wisdom": 1, "charisma": 1},
		Speed: 30, Size: "Medium", Languages: []string{"Common"}, ExtraLanguages: 1, Traits: []string{"Ability Score Increase"}},
	"dragonborn": {ID: "dragonborn", Name: "Dragonborn", Bonus: map[string]int{"strength": 2, "charisma": 1}, Speed: 30, Size: "Medium",
		Languages: []string{"Common", "Draconic"}, Traits: []string{"Draconic Ancestry", "Breath Weapon", "Damage Resistance"}},
	"gnome": {ID: "gnome", Name: "Gnome", Subraces: []string{"rock_gnome"}, Bonus: map[string]int{"intelligence": 2}, Speed: 25, Size: "Small",
		Languages: []string{"Common", "Gnomish"}, Traits: []string{"Darkvision", "Gnome Cunning"}},
	"rock_gnome": {ID: "rock_gnome", Name: "Rock Gnome", parent: "gnome", Bonus: map[string]int{"constitution": 1},
		Tools: []string{"tinker's tools"}, Traits: []string{"Artificer's Lore", "Tinker"}},
	"half_elf": {ID: "half_elf", Name: "Half-Elf", Bonus: map[string]int{"charisma": 2}, ChooseBonus: 2, Speed: 30, Size: "Medium",
		Languages: []string{"Common", "Elvish"}, ExtraLanguages: 1, ChooseSkills: 2,
		Traits: []string{"Darkvision", "Fey Ancestry", "Skill Versatility"}},
	"half_orc": {ID: "half_orc", Name: "Half-Orc", Bonus: map[string]int{"strength": 2, "constitution": 1}, Speed: 30, Size: "Medium",
		Languages: []string{"Common", "Orc"}, Skills: []string{"intimidation"},
		Traits: []string{"Darkvision", "Menacing", "Relentless Endurance", "Savage Attacks"}},
	"tiefling": {ID: "tiefling", Name: "Tiefling", Bonus: map[string]int{"charisma": 2, "intelligence": 1}, Speed: 30, Size: "Medium",
		Languages: []string{"Common", "Infernal"}, Traits: []string{"Darkvision", "Hellish Resistance", "Infernal Legacy"}},
}

// Caster kinds.
const (
	NoCaster   = ""
	FullCaster = "full"
	HalfCaster = "half" // paladin, ranger: slots from level 2
	PactCaster = "pact" // warlock's Pact Magic
)

// Class is one of the twelve SRD classes.
type Class struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	HitDie       int      `json:"hit_die"`
	Saves        []string `json:"saving_throws"`
	SkillChoices []string `json:"skill_choices"` // empty: any skill
	SkillCount   int      `json:"skill_count"`
	Armor        []string `json:"armor_proficiencies"` // light, medium, heavy, shields
	Weapons      []string `json:"weapon_proficiencies"`
	Tools        []string `json:"tool_proficiencies,omitempty"`
	Caster       string   `json:"caster,omitempty"`
	Spellcasting string   `json:"spellcasting_ability,omitempty"`
	// Unarmored is the class's unarmored defence: the abilities added to
	// Base when wearing no armor.
	Unarmored *Unarmored `json:"unarmored_defense,omitempty"`
	// HPPerLevel is a level-1 subclass's bonus (Draconic Resilience).
	HPPerLevel int `json:"hp_per_level,omitempty"`
	// FightingStyles the class chooses from, at FightingStyleLevel.
	FightingStyles     []string         `json:"fighting_styles,omitempty"`
	FightingStyleLevel int              `json:"fighting_style_level,omitempty"`
	Expertise          map[int]int      `json:"expertise,omitempty"` // level → total expertise skills
	Features           map[int][]string `json:"features"`
	Subclass           string           `json:"subclass,omitempty"` // the SRD's level-1 subclass
}

// Unarmored is an AC formula used when no armor is worn.
type Unarmored struct {
	Base      int      `json:"base"`
	Abilities []string `json:"abilities"`
	Shield    bool     `json:"shield_allowed"`
}

var (
	allSkills  []string
	simple     = []string{"simple"}
	martial    = []string{"simple", "martial"}
	lightArmor = []string{"light"}
	allArmor   = []string{"light", "medium", "heavy", "shields"}
)

func init() {
	for s := range SkillAbility {
		allSkills = append(allSkills, s)
	}
}

var classes = map[string]Class{
	"barbarian": {ID: "barbarian", Name: "Barbarian", HitDie: 12, Saves: []string{"strength", "constitution"},
		SkillChoices: []string{"animal_handling", "athletics", "intimidation", "nature", "perception", "survival"}, SkillCount: 2,
		Armor: []string{"light", "medium", "shields"}, Weapons: martial,
		Unarmored: &Unarmored{Base: 10, Abilities: []string{"dexterity", "constitution"}, Shield: true},
		Features:  map[int][]string{1: {"Rage", "Unarmored Defense"}, 2: {"Reckless Attack", "Danger Sense"}, 3: {"Primal Path (Path of the Berserker)"}, 5: {"Extra Attack", "Fast Movement"}}},
	"bard": {ID: "bard", Name: "Bard", HitDie: 8, Saves: []string{"dexterity", "charisma"}, SkillCount: 3,
		Armor: lightArmor, Weapons: []string{"simple", "hand_crossbow", "longsword", "rapier", "shortsword"},
		Tools: []string{"three musical instruments"}, Caster: FullCaster, Spellcasting: "charisma", Expertise: map[int]int{3: 2, 10: 4},
		Features: map[int][]string{1: {"Spellcasting", "Bardic Inspiration (d6)"}, 2: {"Jack of All Trades", "Song of Rest (d6)"}, 3: {"Bard College (College of Lore)", "Expertise"}, 5: {"Bardic Inspiration (d8)", "Font of Inspiration"}}},
	"cleric": {ID: "cleric", Name: "Cleric", HitDie: 8, Saves: []string{"wisdom", "charisma"},
		SkillChoices: []string{"history", "insight", "medicine", "persuasion", "religion"}, SkillCount: 2,
		Armor: allArmor, Weapons: simple, Caster: FullCaster, Spellcasting: "wisdom", Subclass: "Life Domain",
		Features: map[int][]string{1: {"Spellcasting", "Divine Domain (Life Domain)", "Disciple of Life"}, 2: {"Channel Divinity (1/rest)", "Preserve Life"}, 5: {"Destroy Undead (CR 1/2)"}}},
	"druid": {ID: "druid", Name: "Druid", HitDie: 8, Saves: []string{"intelligence", "wisdom"},
		SkillChoices: []string{"arcana", "animal_handling", "insight", "medicine", "nature", "perception", "religion", "survival"}, SkillCount: 2,
		Armor: []string{"light", "medium", "shields"}, Weapons: []string{"club", "dagger", "dart", "javelin", "mace", "quarterstaff", "scimitar", "sickle", "sling", "spear"},
		Tools: []string{"herbalism kit"}, Caster: FullCaster, Spellcasting: "wisdom",
		Features: map[int][]string{1: {"Druidic", "Spellcasting"}, 2: {"Wild Shape", "Druid Circle (Circle of the Land)"}}},
	"fighter": {ID: "fighter", Name: "Fighter", HitDie: 10, Saves: []string{"strength", "constitution"},
		SkillChoices: []string{"acrobatics", "animal_handling", "athletics", "history", "insight", "intimidation", "perception", "survival"}, SkillCount: 2,
		Armor: allArmor, Weapons: martial,
		FightingStyles: []string{"archery", "defense", "dueling", "great_weapon_fighting", "protection", "two_weapon_fighting"}, FightingStyleLevel: 1,
		Features: map[int][]string{1: {"Fighting Style", "Second Wind"}, 2: {"Action Surge"}, 3: {"Martial Archetype (Champion)", "Improved Critical"}, 5: {"Extra Attack"}}},
	"monk": {ID: "monk", Name: "Monk", HitDie: 8, Saves: []string{"strength", "dexterity"},
		SkillChoices: []string{"acrobatics", "athletics", "history", "insight", "religion", "stealth"}, SkillCount: 2,
		Weapons:   []string{"simple", "shortsword"},
		Unarmored: &Unarmored{Base: 10, Abilities: []string{"dexterity", "wisdom"}},
		Features:  map[int][]string{1: {"Unarmored Defense", "Martial Arts"}, 2: {"Ki", "Unarmored Movement"}, 3: {"Monastic Tradition (Way of the Open Hand)", "Deflect Missiles"}, 4: {"Slow Fall"}, 5: {"Extra Attack", "Stunning Strike"}}},
	"paladin": {ID: "paladin", Name: "Paladin", HitDie: 10, Saves: []string{"wisdom", "charisma"},
		SkillChoices: []string{"athletics", "insight", "intimidation", "medicine", "persuasion", "religion"}, SkillCount: 2,
		Armor: allArmor, Weapons: martial, Caster: HalfCaster, Spellcasting: "charisma",
		FightingStyles: []string{"defense", "dueling", "great_weapon_fighting", "protection"}, FightingStyleLevel: 2,
		Features: map[int][]string{1: {"Divine Sense", "Lay on Hands"}, 2: {"Fighting Style", "Spellcasting", "Divine Smite"}, 3: {"Divine Health", "Sacred Oath (Oath of Devotion)"}, 5: {"Extra Attack"}}},
	"ranger": {ID: "ranger", Name: "Ranger", HitDie: 10, Saves: []string{"strength", "dexterity"},
		SkillChoices: []string{"animal_handling", "athletics", "insight", "investigation", "nature", "perception", "stealth", "survival"}, SkillCount: 3,
		Armor: []string{"light", "medium", "shields"}, Weapons: martial, Caster: HalfCaster, Spellcasting: "wisdom",
		FightingStyles: []string{"archery", "defense", "dueling", "two_weapon_fighting"}, FightingStyleLevel: 2,
		Features: map[int][]string{1: {"Favored Enemy", "Natural Explorer"}, 2: {"Fighting Style", "Spellcasting"}, 3: {"Ranger Archetype (Hunter)", "Primeval Awareness"}, 5: {"Extra Attack"}}},
	"rogue": {ID: "rogue", Name: "Rogue", HitDie: 8, Saves: []string{"dexterity", "intelligence"},
		SkillChoices: []string{"acrobatics", "athletics", "deception", "insight", "intimidation", "investigation", "perception", "performance", "persuasion", "sleight_of_hand", "stealth"}, SkillCount: 4,
		Armor: lightArmor, Weapons: []string{"simple", "hand_crossbow", "longsword", "rapier", "shortsword"},
		Tools: []string{"thieves' tools"}, Expertise: map[int]int{1: 2, 6: 4},
		Features: map[int][]string{1: {"Expertise", "Sneak Attack", "Thieves' Cant"}, 2: {"Cunning Action"}, 3: {"Roguish Archetype (Thief)"}, 5: {"Uncanny Dodge"}}},
	"sorcerer": {ID: "sorcerer", Name: "Sorcerer", HitDie: 6, Saves: []string{"constitution", "charisma"},
		SkillChoices: []string{"arcana", "deception", "insight", "intimidation", "persuasion", "religion"}, SkillCount: 2,
		Weapons: []string{"dagger", "dart", "sling", "quarterstaff", "light_crossbow"}, Caster: FullCaster, Spellcasting: "charisma",
		Subclass: "Draconic Bloodline", HPPerLevel: 1,
		Unarmored: &Unarmored{Base: 13, Abilities: []string{"dexterity"}, Shield: true},
		Features:  map[int][]string{1: {"Spellcasting", "Sorcerous Origin (Draconic Bloodline)", "Dragon Ancestor", "Draconic Resilience"}, 2: {"Font of Magic"}, 3: {"Metamagic"}}},
	"warlock": {ID: "warlock", Name: "Warlock", HitDie: 8, Saves: []string{"wisdom", "charisma"},
		SkillChoices: []string{"arcana", "deception", "history", "intimidation", "investigation", "nature", "religion"}, SkillCount: 2,
		Armor: lightArmor, Weapons: simple, Caster: PactCaster, Spellcasting: "charisma", Subclass: "The Fiend",
		Features: map[int][]string{1: {"Otherworldly Patron (The Fiend)", "Dark One's Blessing", "Pact Magic"}, 2: {"Eldritch Invocations"}, 3: {"Pact Boon"}}},
	"wizard": {ID: "wizard", Name: "Wizard", HitDie: 6, Saves: []string{"intelligence", "wisdom"},
		SkillChoices: []string{"arcana", "history", "insight", "investigation", "medicine", "religion"}, SkillCount: 2,
		Weapons: []string{"dagger", "dart", "sling", "quarterstaff", "light_crossbow"}, Caster: FullCaster, Spellcasting: "intelligence",
		Features: map[int][]string{1: {"Spellcasting", "Arcane Recovery"}, 2: {"Arcane Tradition (School of Evocation)", "Evocation Savant", "Sculpt Spells"}}},
}

// Background gives two skills, tools or languages and suggested
// characteristics.
type Background struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	SRD            bool     `json:"srd"` // from SRD 5.1; otherwise Hearth's own text
	Skills         []string `json:"skills"`
	Tools          []string `json:"tool_proficiencies,omitempty"`
	ExtraLanguages int      `json:"extra_languages,omitempty"`
	Feature        string   `json:"feature"`
	Gold           int      `json:"gold"`
	Traits         []string `json:"-"`
	Ideals         []string `json:"-"`
	Bonds          []string `json:"-"`
	Flaws          []string `json:"-"`
	// Past is a phrase for backstories: "served in the temple of …".
	Past []string `json:"-"`
}

var backgrounds = map[string]Background{
	"acolyte": {ID: "acolyte", Name: "Acolyte", SRD: true, Skills: []string{"insight", "religion"}, ExtraLanguages: 2,
		Feature: "Shelter of the Faithful", Gold: 15,
		// SRD 5.1, "Suggested Acolyte Characteristics" (CC-BY-4.0).
		Traits: []string{
			"I idolize a particular hero of my faith, and constantly refer to that person's deeds and example.",
			"I can find common ground between the fiercest enemies, empathizing with them and always working toward peace.",
			"I see omens in every event and action. The gods try to speak to us, we just need to listen.",
			"Nothing can shake my optimistic attitude.",
			"I quote (or misquote) sacred texts and proverbs in almost every situation.",
			"I am tolerant (or intolerant) of other faiths and respect (or condemn) the worship of other gods.",
			"I've enjoyed fine food, drink, and high society among my temple's elite. Rough living grates on me.",
			"I've spent so long in the temple that I have little practical experience dealing with people in the outside world.",
		},
		Ideals: []string{
			"Tradition. The ancient traditions of worship and sacrifice must be preserved and upheld. (Lawful)",
			"Charity. I always try to help those in need, no matter what the personal cost. (Good)",
			"Change. We must help bring about the changes the gods are constantly working in the world. (Chaotic)",
			"Power. I hope to one day rise to the top of my faith's religious hierarchy. (Lawful)",
			"Faith. I trust that my deity will guide my actions. I have faith that if I work hard, things will go well. (Lawful)",
			"Aspiration. I seek to prove myself worthy of my god's favor by matching my actions against his or her teachings. (Any)",
		},
		Bonds: []string{
			"I would die to recover an ancient relic of my faith that was lost long ago.",
			"I will someday get revenge on the corrupt temple hierarchy who branded me a heretic.",
			"I owe my life to the priest who took me in when my parents died.",
			"Everything I do is for the common people.",
			"I will do anything to protect the temple where I served.",
			"I seek to preserve a sacred text that my enemies consider heretical and seek to destroy.",
		},
		Flaws: []string{
			"I judge others harshly, and myself even more severely.",
			"I put too much trust in those who wield power within my temple's hierarchy.",
			"My piety sometimes leads me to blindly trust those that profess faith in my god.",
			"I am inflexible in my thinking.",
			"I am suspicious of strangers and expect the worst of them.",
			"Once I pick a goal, I become obsessed with it to the detriment of everything else in my life.",
		},
		Past: []string{"served the rites of a small temple", "kept the candles and the records of a shrine", "was raised by priests after a hard winter"}},
	"criminal": {ID: "criminal", Name: "Criminal", Skills: []string{"deception", "stealth"}, Tools: []string{"thieves' tools", "one gaming set"},
		Feature: "Criminal Contact", Gold: 15,
		Traits: []string{"I always have an exit in mind before I walk into a room.", "I count the coins in a purse by its weight.", "I keep my voice low and my promises few."},
		Ideals: []string{"Freedom. Chains are meant to be broken. (Chaotic)", "Loyalty. The crew comes first. (Lawful)", "Redemption. I can still be better than what I did. (Good)"},
		Bonds:  []string{"I owe a fence a debt I mean to pay in full.", "Someone took the fall for me once, and I have not forgotten.", "My old crew still writes to me, in code."},
		Flaws:  []string{"I cannot pass up an unguarded purse.", "I lie even when the truth would serve me better.", "When things go wrong, I run first and think later."},
		Past:   []string{"worked the docks and the back alleys", "ran messages for a gang of smugglers", "picked locks for people who paid in silence"}},
	"folk_hero": {ID: "folk_hero", Name: "Folk Hero", Skills: []string{"animal_handling", "survival"}, Tools: []string{"one type of artisan's tools", "vehicles (land)"},
		Feature: "Rustic Hospitality", Gold: 10,
		Traits: []string{"I judge people by what they do, not what they say.", "I stand up for anyone who cannot stand up for themselves.", "I would rather work with my hands than talk."},
		Ideals: []string{"Fairness. No one should get special treatment before the law. (Lawful)", "Sincerity. There is no good in pretending to be something I am not. (Neutral)", "Destiny. Nothing will stop me from answering my calling. (Any)"},
		Bonds:  []string{"My home village still tells the story of the day I stood my ground.", "I protect the farmers who sheltered me.", "A tyrant's steward still hunts for me."},
		Flaws:  []string{"I am convinced I know better than anyone in charge.", "I trust too easily anyone who flatters my deeds.", "I take risks no one asked me to take."},
		Past:   []string{"stood against a cruel lord's soldiers", "drove off a beast that raided the village", "led neighbours through a flood"}},
	"noble": {ID: "noble", Name: "Noble", Skills: []string{"history", "persuasion"}, Tools: []string{"one gaming set"}, ExtraLanguages: 1,
		Feature: "Position of Privilege", Gold: 25,
		Traits: []string{"My manners are impeccable, even in a ditch.", "I take the measure of everyone I meet at once.", "I expect to be listened to."},
		Ideals: []string{"Responsibility. Rank is a debt owed to those beneath it. (Lawful)", "Family. Blood runs thicker than any oath. (Any)", "Independence. I will make my own name. (Chaotic)"},
		Bonds:  []string{"My house's honour rests on my shoulders.", "I am betrothed to someone I have never met.", "I will win back my family's lost estate."},
		Flaws:  []string{"I hide a scandal that could ruin my house.", "I think little of those who work with their hands.", "I spend coin as if it never ends."},
		Past:   []string{"grew up in a house with a name older than its walls", "was sent away from court after a family quarrel", "left an inheritance behind to see the world"}},
	"sage": {ID: "sage", Name: "Sage", Skills: []string{"arcana", "history"}, ExtraLanguages: 2,
		Feature: "Researcher", Gold: 10,
		Traits: []string{"I use long words where short ones would do.", "I answer questions nobody asked.", "I am happiest with a book and a quiet hour."},
		Ideals: []string{"Knowledge. The path to power and self-improvement is through learning. (Neutral)", "Truth. A lie written down is still a lie. (Lawful)", "Curiosity. Every door deserves to be opened. (Chaotic)"},
		Bonds:  []string{"I am searching for a book that may not exist.", "My old teacher vanished with an unfinished manuscript.", "The library that trained me is in danger."},
		Flaws:  []string{"I overlook obvious dangers when a puzzle is in front of me.", "I cannot keep a secret if it is interesting.", "I speak without thinking about who is listening."},
		Past:   []string{"copied manuscripts in a cold library", "studied under a scholar who asked too many questions", "catalogued the ruins of an old observatory"}},
	"soldier": {ID: "soldier", Name: "Soldier", Skills: []string{"athletics", "intimidation"}, Tools: []string{"one gaming set", "vehicles (land)"},
		Feature: "Military Rank", Gold: 10,
		Traits: []string{"I keep my kit clean and my boots cleaner.", "I can sleep anywhere, and wake at once.", "I tell war stories nobody asked for."},
		Ideals: []string{"Duty. I follow orders, and I see them through. (Lawful)", "People before coin. (Good)", "Might. The strongest decide. (Evil)"},
		Bonds:  []string{"I still answer to the captain who saved my life.", "I owe a debt to a fishing family down the coast.", "I fight for those who cannot."},
		Flaws:  []string{"I cannot walk away from a fight that looks unfair.", "I obey authority without asking why.", "I made a mistake in battle that cost lives, and I hide it."},
		Past:   []string{"held a line in a war that is already forgotten", "served in a border garrison for years", "marched with a mercenary company"}},
	"urchin": {ID: "urchin", Name: "Urchin", Skills: []string{"sleight_of_hand", "stealth"}, Tools: []string{"disguise kit", "thieves' tools"},
		Feature: "City Secrets", Gold: 10,
		Traits: []string{"I hide scraps of food in my pockets.", "I ask a lot of questions.", "I sleep with my back to a wall."},
		Ideals: []string{"Community. We look after our own. (Lawful)", "Change. The poor will rise. (Chaotic)", "Retribution. The rich need to be shown what life is like down here. (Evil)"},
		Bonds:  []string{"My town or city is my home, and I will fight to defend it.", "I owe my survival to another urchin who taught me to live on the streets.", "A kind stranger once fed me; I have never learned their name."},
		Flaws:  []string{"Gold seems like a lot of money to me, and I will do just about anything for more of it.", "I will never fully trust anyone other than myself.", "I would rather kill someone in their sleep than fight fair."},
		Past:   []string{"grew up on the rooftops of a crowded city", "slept under market stalls and ran errands for bread", "learned every alley of the harbour district"}},
}

// Armor is an SRD armor.
type Armor struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"` // light, medium, heavy
	Base     int    `json:"base"`
	// MaxDex caps the DEX bonus: -1 for none (light), 2 for medium, 0 for heavy.
	MaxDex   int  `json:"max_dex"`
	Strength int  `json:"strength,omitempty"` // below it, speed −10
	Stealth  bool `json:"stealth_disadvantage,omitempty"`
}

var armors = map[string]Armor{
	"padded":          {ID: "padded", Name: "Padded", Category: "light", Base: 11, MaxDex: -1, Stealth: true},
	"leather":         {ID: "leather", Name: "Leather", Category: "light", Base: 11, MaxDex: -1},
	"studded_leather": {ID: "studded_leather", Name: "Studded leather", Category: "light", Base: 12, MaxDex: -1},
	"hide":            {ID: "hide", Name: "Hide", Category: "medium", Base: 12, MaxDex: 2},
	"chain_shirt":     {ID: "chain_shirt", Name: "Chain shirt", Category: "medium", Base: 13, MaxDex: 2},
	"scale_mail":      {ID: "scale_mail", Name: "Scale mail", Category: "medium", Base: 14, MaxDex: 2, Stealth: true},
	"breastplate":     {ID: "breastplate", Name: "Breastplate", Category: "medium", Base: 14, MaxDex: 2},
	"half_plate":      {ID: "half_plate", Name: "Half plate", Category: "medium", Base: 15, MaxDex: 2, Stealth: true},
	"ring_mail":       {ID: "ring_mail", Name: "Ring mail", Category: "heavy", Base: 14, Stealth: true},
	"chain_mail":      {ID: "chain_mail", Name: "Chain mail", Category: "heavy", Base: 16, Strength: 13, Stealth: true},
	"splint":          {ID: "splint", Name: "Splint", Category: "heavy", Base: 17, Strength: 15, Stealth: true},
	"plate":           {ID: "plate", Name: "Plate", Category: "heavy", Base: 18, Strength: 15, Stealth: true},
}

// Weapon is an SRD weapon.
type Weapon struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Category   string `json:"category"` // simple, martial
	Damage     string `json:"damage"`
	DamageType string `json:"damage_type"`
	Finesse    bool   `json:"finesse,omitempty"`
	Ranged     bool   `json:"ranged,omitempty"`
}

var weapons = map[string]Weapon{
	"club":           {ID: "club", Name: "Club", Category: "simple", Damage: "1d4", DamageType: "bludgeoning"},
	"dagger":         {ID: "dagger", Name: "Dagger", Category: "simple", Damage: "1d4", DamageType: "piercing", Finesse: true},
	"handaxe":        {ID: "handaxe", Name: "Handaxe", Category: "simple", Damage: "1d6", DamageType: "slashing"},
	"javelin":        {ID: "javelin", Name: "Javelin", Category: "simple", Damage: "1d6", DamageType: "piercing"},
	"light_hammer":   {ID: "light_hammer", Name: "Light hammer", Category: "simple", Damage: "1d4", DamageType: "bludgeoning"},
	"mace":           {ID: "mace", Name: "Mace", Category: "simple", Damage: "1d6", DamageType: "bludgeoning"},
	"quarterstaff":   {ID: "quarterstaff", Name: "Quarterstaff", Category: "simple", Damage: "1d6", DamageType: "bludgeoning"},
	"scimitar":       {ID: "scimitar", Name: "Scimitar", Category: "martial", Damage: "1d6", DamageType: "slashing", Finesse: true},
	"sickle":         {ID: "sickle", Name: "Sickle", Category: "simple", Damage: "1d4", DamageType: "slashing"},
	"spear":          {ID: "spear", Name: "Spear", Category: "simple", Damage: "1d6", DamageType: "piercing"},
	"light_crossbow": {ID: "light_crossbow", Name: "Light crossbow", Category: "simple", Damage: "1d8", DamageType: "piercing", Ranged: true},
	"dart":           {ID: "dart", Name: "Dart", Category: "simple", Damage: "1d4", DamageType: "piercing", Finesse: true, Ranged: true},
	"shortbow":       {ID: "shortbow", Name: "Shortbow", Category: "simple", Damage: "1d6", DamageType: "piercing", Ranged: true},
	"sling":          {ID: "sling", Name: "Sling", Category: "simple", Damage: "1d4", DamageType: "bludgeoning", Ranged: true},
	"battleaxe":      {ID: "battleaxe", Name: "Battleaxe", Category: "martial", Damage: "1d8", DamageType: "slashing"},
	"greataxe":       {ID: "greataxe", Name: "Greataxe", Category: "martial", Damage: "1d12", DamageType: "slashing"},
	"greatsword":     {ID: "greatsword", Name: "Greatsword", Category: "martial", Damage: "2d6", DamageType: "slashing"},
	"longsword":      {ID: "longsword", Name: "Longsword", Category: "martial", Damage: "1d8", DamageType: "slashing"},
	"maul":           {ID: "maul", Name: "Maul", Category: "martial", Damage: "2d6", DamageType: "bludgeoning"},
	"rapier":         {ID: "rapier", Name: "Rapier", Category: "martial", Damage: "1d8", DamageType: "piercing", Finesse: true},
	"shortsword":     {ID: "shortsword", Name: "Shortsword", Category: "martial", Damage: "1d6", DamageType: "piercing", Finesse: true},
	"warhammer":      {ID: "warhammer", Name: "Warhammer", Category: "martial", Damage: "1d8", DamageType: "bludgeoning"},
	"hand_crossbow":  {ID: "hand_crossbow", Name: "Hand crossbow", Category: "martial", Damage: "1d6", DamageType: "piercing", Ranged: true},
	"longbow":        {ID: "longbow", Name: "Longbow", Category: "martial", Damage: "1d8", DamageType: "piercing", Ranged: true},
}

// fullSlots is the SRD's spell slots per spell level (index 0 = 1st) for a
// full caster of each level 1–20.
var fullSlots = [21][]int{
	1: {2}, 2: {3}, 3: {4, 2}, 4: {4, 3}, 5: {4, 3, 2}, 6: {4, 3, 3}, 7: {4, 3, 3, 1}, 8: {4, 3, 3, 2},
	9: {4, 3, 3, 3, 1}, 10: {4, 3, 3, 3, 2}, 11: {4, 3, 3, 3, 2, 1}, 12: {4, 3, 3, 3, 2, 1},
	13: {4, 3, 3, 3, 2, 1, 1}, 14: {4, 3, 3, 3, 2, 1, 1}, 15: {4, 3, 3, 3, 2, 1, 1, 1}, 16: {4, 3, 3, 3, 2, 1, 1, 1},
	17: {4, 3, 3, 3, 2, 1, 1, 1, 1}, 18: {4, 3, 3, 3, 3, 1, 1, 1, 1}, 19: {4, 3, 3, 3, 3, 2, 1, 1, 1}, 20: {4, 3, 3, 3, 3, 2, 2, 1, 1},
}

// pactSlots is the warlock's Pact Magic: slot count and slot level.
var pactSlots = [21][2]int{
	1: {1, 1}, 2: {2, 1}, 3: {2, 2}, 4: {2, 2}, 5: {2, 3}, 6: {2, 3}, 7: {2, 4}, 8: {2, 4}, 9: {2, 5}, 10: {2, 5},
	11: {3, 5}, 12: {3, 5}, 13: {3, 5}, 14: {3, 5}, 15: {3, 5}, 16: {3, 5}, 17: {4, 5}, 18: {4, 5}, 19: {4, 5}, 20: {4, 5},
}

// SpellSlots returns the spell slots (spell level → count) of a class at
// a level, nil for none.
func SpellSlots(caster string, level int) map[int]int {
	if level < 1 || level > 20 {
		return nil
	}
	var row []int
	switch caster {
	case FullCaster:
		row = fullSlots[level]
	case HalfCaster:
		if level < 2 {
			return nil
		}
		row = fullSlots[(level+1)/2]
	case PactCaster:
		p := pactSlots[level]
		return map[int]int{p[1]: p[0]}
	default:
		return nil
	}
	out := make(map[int]int, len(row))
	for i, n := range row {
		out[i+1] = n
	}
	return out
}

// ProficiencyBonus is the SRD's bonus for a character level.
func ProficiencyBonus(level int) int { return 2 + (max(level, 1)-1)/4 }

// Modifier is an ability score's modifier.
func Modifier(score int) int {
	d := score - 10
	if d < 0 {
		return (d - 1) / 2
	}
	return d / 2
}
