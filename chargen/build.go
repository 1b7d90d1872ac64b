package chargen

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/dice"
)

// Ability score methods.
const (
	StandardArrayMethod = "standard_array"
	PointBuyMethod      = "point_buy"
	RolledMethod        = "rolled"
)

// Choices are what a player decides; Build derives the rest.
type Choices struct {
	Name       string `json:"name"`
	Race       string `json:"race"`
	Subrace    string `json:"subrace,omitempty"`
	Class      string `json:"class"`
	Background string `json:"background"`
	Level      int    `json:"level,omitempty"` // 0 means 1
	Alignment  string `json:"alignment,omitempty"`

	// Method is standard_array, point_buy or rolled. Scores are before
	// racial increases. For rolled, Seed fixes the six 4d6-drop-lowest
	// rolls and Scores must be an arrangement of them; left empty, the
	// rolls are taken in order strength … charisma.
	Method string         `json:"method"`
	Scores map[string]int `json:"scores,omitempty"`
	Seed   uint64         `json:"seed,omitempty"`

	// AbilityBonuses are the abilities a half-elf raises by 1.
	AbilityBonuses []string `json:"ability_bonuses,omitempty"`
	// Skills are the class's skill choices; RaceSkills a race's any-skill
	// choices (half-elf).
	Skills     []string `json:"skills"`
	RaceSkills []string `json:"race_skills,omitempty"`
	// Expertise doubles the proficiency bonus of proficient skills
	// (rogue from level 1, bard from level 3).
	Expertise     []string `json:"expertise,omitempty"`
	FightingStyle string   `json:"fighting_style,omitempty"`
	// ExtraLanguages are the languages chosen beyond the race's own.
	ExtraLanguages []string `json:"extra_languages,omitempty"`
	Armor          string   `json:"armor,omitempty"` // an SRD armor ID, empty for none
	Shield         bool     `json:"shield,omitempty"`
	Weapon         string   `json:"weapon,omitempty"` // an SRD weapon ID
}

// Character is a built, validated character: the choices and everything
// the rules derive from them.
type Character struct {
	Choices
	RaceName       string         `json:"race_name"`
	ClassName      string         `json:"class_name"`
	BackgroundName string         `json:"background_name"`
	Size           string         `json:"size"`
	Abilities      map[string]int `json:"abilities"` // after racial increases
	Modifiers      map[string]int `json:"modifiers"`
	// PointsSpent is the point-buy cost of Scores.
	PointsSpent      int            `json:"points_spent,omitempty"`
	Rolls            []int          `json:"rolls,omitempty"`
	HitDie           int            `json:"hit_die"`
	MaxHP            int            `json:"max_hit_points"`
	AC               int            `json:"armor_class"`
	Speed            int            `json:"speed"`
	ProficiencyBonus int            `json:"proficiency_bonus"`
	SavingThrows     []string       `json:"saving_throws"`
	Saves            map[string]int `json:"save_modifiers"`
	Proficient       []string       `json:"skill_proficiencies"`
	// SkillBonus is the proficiency (or expertise) bonus per proficient
	// skill, added to the ability modifier; SkillModifiers the totals for
	// every skill.
	SkillBonus          map[string]int `json:"skill_bonus"`
	SkillModifiers      map[string]int `json:"skill_modifiers"`
	PassivePerception   int            `json:"passive_perception"`
	Initiative          int            `json:"initiative"`
	Languages           []string       `json:"languages"`
	ArmorProficiencies  []string       `json:"armor_proficiencies"`
	WeaponProficiencies []string       `json:"weapon_proficiencies"`
	ToolProficiencies   []string       `json:"tool_proficiencies,omitempty"`
	SpellcastingAbility string         `json:"spellcasting_ability,omitempty"`
	SpellSaveDC         int            `json:"spell_save_dc,omitempty"`
	SpellAttackBonus    int            `json:"spell_attack_bonus,omitempty"`
	SpellSlots          map[int]int    `json:"spell_slots,omitempty"`
	ClassFeatures       []string       `json:"class_features"`
	RacialTraits        []string       `json:"racial_traits"`
	BackgroundFeature   string         `json:"background_feature"`
	Gold                int            `json:"gold"`
	Attack              *WeaponAttack  `json:"attack,omitempty"`
	StealthDisadvantage bool           `json:"stealth_disadvantage,omitempty"`
	// Story is set by a Storyteller after the build.
	Story *Story `json:"story,omitempty"`
}

// WeaponAttack is the chosen weapon's attack line.
type WeaponAttack struct {
	Name       string `json:"name"`
	Bonus      int    `json:"bonus"`
	Damage     string `json:"damage"`
	DamageType string `json:"damage_type"`
}

// FieldError is a refused build and the Choices field (by its JSON name:
// "race", "scores", "skills" …) whose choice the rule refused, so that a
// form can show the refusal beside that field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Field returns the Choices field a refused build names, or "".
func Field(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}

// at names the field of err, unless a closer one is named already.
func at(field string, err error) error {
	if err == nil || Field(err) != "" {
		return err
	}
	return &FieldError{Field: field, Err: err}
}

// norm lower-cases an ID and joins words with underscores, so "Half-Elf",
// "half elf" and "half_elf" are one.
func norm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func list(xs []string) string { return strings.Join(xs, ", ") }

// Roll returns the six 4d6-drop-lowest scores seed gives.
func Roll(seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]int, 6)
	for i := range out {
		res, err := dice.Roll(r, "4d6dl1", nil)
		if err != nil {
			panic("chargen: 4d6dl1 does not parse: " + err.Error()) // a constant; a test proves it
		}
		out[i] = res.Total
	}
	return out
}

// MaxLevel is the highest level Build accepts.
const MaxLevel = 20

// Build validates c against the rules and derives the character. A build
// the rules do not allow returns a hearth.Invalid error naming the rule.
func Build(c Choices) (*Character, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return nil, at("name", refuse("chargen.name_missing", nil, "a character needs a name"))
	}
	if len(c.Name) > 100 {
		return nil, at("name", refuse("chargen.name_too_long", map[string]any{"Bytes": len(c.Name), "Max": 100}, "a character's name is at most 100 bytes; this one is %d", len(c.Name)))
	}
	if c.Level == 0 {
		c.Level = 1
	}
	if c.Level < 1 || c.Level > MaxLevel {
		return nil, at("level", refuse("chargen.level_range", map[string]any{"Level": c.Level, "Max": MaxLevel}, "level %d is outside 1–%d", c.Level, MaxLevel))
	}
	c.Race, c.Subrace, c.Class, c.Background = norm(c.Race), norm(c.Subrace), norm(c.Class), norm(c.Background)
	race, err := resolveRace(c.Race, c.Subrace)
	if err != nil {
		return nil, at("race", err)
	}
	class, ok := classes[c.Class]
	if !ok {
		return nil, at("class", refuse("chargen.unknown_class", map[string]any{"Class": quoted(c.Class), "Classes": list(sortedKeys(classes))},
			"unknown class %q; the SRD classes are %s", c.Class, list(sortedKeys(classes))))
	}
	bg, ok := backgrounds[c.Background]
	if !ok {
		return nil, at("background", refuse("chargen.unknown_background", map[string]any{"Background": quoted(c.Background), "Backgrounds": list(sortedKeys(backgrounds))},
			"unknown background %q; choose one of %s", c.Background, list(sortedKeys(backgrounds))))
	}
	ch := &Character{Choices: c, RaceName: race.Name, ClassName: class.Name, BackgroundName: bg.Name, Size: race.Size,
		HitDie: class.HitDie, ProficiencyBonus: ProficiencyBonus(c.Level), BackgroundFeature: bg.Feature, Gold: bg.Gold}
	if err := ch.scores(race); err != nil {
		return nil, at("scores", err)
	}
	if err := ch.skills(race, class, bg); err != nil {
		return nil, at("skills", err)
	}
	if err := ch.languages(race, bg); err != nil {
		return nil, at("extra_languages", err)
	}
	ch.proficiencies(race, class, bg)
	if err := ch.fightingStyle(class); err != nil {
		return nil, at("fighting_style", err)
	}
	if err := ch.defense(race, class); err != nil {
		return nil, at("armor", err)
	}
	if err := ch.weapon(); err != nil {
		return nil, at("weapon", err)
	}
	ch.derive(race, class)
	return ch, nil
}

func resolveRace(id, sub string) (Race, error) {
	if r, ok := races[id]; ok && r.parent != "" { // a subrace named as the race
		id, sub = r.parent, id
	}
	r, ok := races[id]
	if !ok {
		var bases []string
		for _, k := range sortedKeys(races) {
			if races[k].parent == "" {
				bases = append(bases, k)
			}
		}
		return Race{}, refuse("chargen.unknown_race", map[string]any{"Race": quoted(id), "Races": list(bases)}, "unknown race %q; the SRD races are %s", id, list(bases))
	}
	if len(r.Subraces) == 0 {
		if sub != "" {
			return Race{}, refuse("chargen.no_subraces", map[string]any{"Race": r.Name, "Subrace": quoted(sub)}, "the %s race has no subraces; %q is not one", r.Name, sub)
		}
		return r, nil
	}
	if sub == "" {
		return Race{}, refuse("chargen.subrace_needed", map[string]any{"Race": r.Name, "Subraces": list(r.Subraces)}, "%s chooses a subrace: %s", article(r.Name), list(r.Subraces))
	}
	if !slices.Contains(r.Subraces, sub) {
		return Race{}, refuse("chargen.wrong_subrace", map[string]any{"Race": r.Name, "Subrace": quoted(sub), "Subraces": list(r.Subraces)},
			"%q is not a %s subrace; the SRD has %s", sub, strings.ToLower(r.Name), list(r.Subraces))
	}
	s := races[sub]
	m := r
	m.ID, m.Name, m.Subraces = sub, s.Name, nil
	m.Bonus = map[string]int{}
	for _, b := range []map[string]int{r.Bonus, s.Bonus} {
		for k, v := range b {
			m.Bonus[k] += v
		}
	}
	m.ExtraLanguages += s.ExtraLanguages
	m.HPPerLevel += s.HPPerLevel
	m.Weapons = append(slices.Clone(r.Weapons), s.Weapons...)
	m.Tools = append(slices.Clone(r.Tools), s.Tools...)
	m.Traits = append(slices.Clone(r.Traits), s.Traits...)
	return m, nil
}

func (ch *Character) scores(race Race) error {
	scores := map[string]int{}
	for k, v := range ch.Scores {
		n := norm(k)
		if !slices.Contains(Abilities, n) {
			return refuse("chargen.unknown_ability", map[string]any{"Ability": quoted(k), "Abilities": list(Abilities)}, "unknown ability %q; the abilities are %s", k, list(Abilities))
		}
		if _, dup := scores[n]; dup {
			return refuse("chargen.ability_twice", map[string]any{"Ability": n}, "ability %s is given twice", n)
		}
		scores[n] = v
	}
	ch.Method = norm(ch.Method)
	if ch.Method == RolledMethod && len(scores) == 0 {
		ch.Rolls = Roll(ch.Seed)
		for i, a := range Abilities {
			scores[a] = ch.Rolls[i]
		}
	}
	if len(scores) != len(Abilities) {
		var missing []string
		for _, a := range Abilities {
			if _, ok := scores[a]; !ok {
				missing = append(missing, a)
			}
		}
		return refuse("chargen.scores_missing", map[string]any{"Missing": list(missing)}, "every ability needs a score; missing %s", list(missing))
	}
	values := make([]int, 0, 6)
	for _, a := range Abilities {
		values = append(values, scores[a])
	}
	sameSet := func(want []int) bool {
		a, b := slices.Clone(values), slices.Clone(want)
		slices.Sort(a)
		slices.Sort(b)
		return slices.Equal(a, b)
	}
	switch ch.Method {
	case StandardArrayMethod:
		if !sameSet(StandardArray) {
			return refuse("chargen.standard_array", map[string]any{"Got": ints(values)}, "the standard array assigns 15, 14, 13, 12, 10 and 8 once each; got %s", ints(values))
		}
	case PointBuyMethod:
		spent := 0
		for _, a := range Abilities {
			cost, ok := PointBuyCost[scores[a]]
			if !ok {
				return refuse("chargen.point_buy_range", map[string]any{"Ability": a, "Score": scores[a]}, "point buy scores are 8–15 before racial increases; %s is %d", a, scores[a])
			}
			spent += cost
		}
		if spent > PointBuyBudget {
			return refuse("chargen.point_buy_budget", map[string]any{"Spent": spent, "Budget": PointBuyBudget}, "point buy spends %d points; the budget is %d", spent, PointBuyBudget)
		}
		ch.PointsSpent = spent
	case RolledMethod:
		if ch.Rolls == nil {
			ch.Rolls = Roll(ch.Seed)
		}
		if !sameSet(ch.Rolls) {
			return refuse("chargen.rolled_scores", map[string]any{"Seed": ch.Seed, "Rolls": ints(ch.Rolls), "Got": ints(values)},
				"rolled scores assign the rolls of seed %d (%s) once each; got %s", ch.Seed, ints(ch.Rolls), ints(values))
		}
	default:
		return refuse("chargen.unknown_method", map[string]any{"Method": quoted(ch.Method), "StandardArray": StandardArrayMethod, "PointBuy": PointBuyMethod, "Rolled": RolledMethod},
			"unknown ability score method %q; use %s, %s or %s", ch.Method, StandardArrayMethod, PointBuyMethod, RolledMethod)
	}
	ch.Scores = scores
	ch.Abilities = map[string]int{}
	for _, a := range Abilities {
		ch.Abilities[a] = scores[a] + race.Bonus[a]
	}
	var chosen []string
	for _, a := range ch.AbilityBonuses {
		a = norm(a)
		switch {
		case !slices.Contains(Abilities, a):
			return at("ability_bonuses", refuse("chargen.bonus_unknown_ability", map[string]any{"Ability": quoted(a)}, "unknown ability %q in ability_bonuses", a))
		case slices.Contains(chosen, a):
			return at("ability_bonuses", refuse("chargen.bonus_twice", map[string]any{"Race": race.Name, "Count": race.ChooseBonus, "Ability": a},
				"%s raises %d different abilities by 1; %s was chosen twice", article(race.Name), race.ChooseBonus, a))
		case race.Bonus[a] > 0:
			return at("ability_bonuses", refuse("chargen.bonus_raised_already", map[string]any{"Race": race.Name, "Ability": a},
				"%s raises abilities other than those its race already raises; %s is raised already", article(race.Name), a))
		}
		chosen = append(chosen, a)
		ch.Abilities[a]++
	}
	if len(chosen) != race.ChooseBonus {
		return at("ability_bonuses", refuse("chargen.bonus_count", map[string]any{"Race": race.Name, "Count": race.ChooseBonus, "Chosen": len(chosen)},
			"%s chooses %d abilities to raise by 1 (ability_bonuses); %d were chosen", article(race.Name), race.ChooseBonus, len(chosen)))
	}
	ch.AbilityBonuses = chosen
	ch.Modifiers = map[string]int{}
	for _, a := range Abilities {
		if ch.Abilities[a] > 20 {
			return refuse("chargen.score_over_20", map[string]any{"Ability": a, "Score": ch.Abilities[a]}, "an ability score cannot exceed 20; %s is %d", a, ch.Abilities[a])
		}
		ch.Modifiers[a] = Modifier(ch.Abilities[a])
	}
	return nil
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return list(s)
}

func (ch *Character) skills(race Race, class Class, bg Background) error {
	granted := map[string]source{} // skill → its source
	for _, s := range bg.Skills {
		granted[s] = source{kind: "background", name: bg.Name}
	}
	for _, s := range race.Skills {
		granted[s] = source{kind: "race", name: race.Name}
	}
	choose := func(picked []string, from []string, count int, who chooser, field string) ([]string, error) {
		var out []string
		for _, s := range picked {
			s = norm(s)
			if _, ok := SkillAbility[s]; !ok {
				return nil, refuse("chargen.unknown_skill", map[string]any{"Skill": quoted(s), "Skills": list(sortedKeys(SkillAbility))}, "unknown skill %q; the skills are %s", s, list(sortedKeys(SkillAbility)))
			}
			if slices.Contains(out, s) {
				return nil, refuse("chargen.skill_twice", who.data("Count", count, "From", list(from), "Skill", s), "%s chooses %d skills from %s; %s was chosen twice", who, count, list(from), s)
			}
			if !slices.Contains(from, s) {
				return nil, refuse("chargen.skill_not_offered", who.data("Count", count, "From", list(from), "Skill", s), "%s chooses %d skills from %s; %s is not one of them", who, count, list(from), s)
			}
			if src, ok := granted[s]; ok {
				return nil, refuse("chargen.skill_granted", map[string]any{"Skill": s, "Kind": src.kind, "Name": src.name},
					"%s is already granted by %s; choose another skill (a proficiency counts once)", s, src.english())
			}
			out = append(out, s)
			granted[s] = source{kind: who.kind, name: who.name, chose: true}
		}
		if len(out) != count {
			return nil, refuse("chargen.skill_count", who.data("Count", count, "Field", field, "From", list(from), "Chosen", len(out)),
				"%s chooses %d skills (%s) from %s; %d were chosen", who, count, field, list(from), len(out))
		}
		return out, nil
	}
	from := class.SkillChoices
	if len(from) == 0 {
		from = sortedKeys(SkillAbility)
	}
	var err error
	if ch.Skills, err = choose(ch.Skills, from, class.SkillCount, chooser{"class", class.Name}, "skills"); err != nil {
		return err
	}
	if ch.RaceSkills, err = choose(ch.RaceSkills, sortedKeys(SkillAbility), race.ChooseSkills, chooser{"race", race.Name}, "race_skills"); err != nil {
		return at("race_skills", err)
	}
	ch.Proficient = sortedKeys(granted)
	ch.SkillBonus = map[string]int{}
	for _, s := range ch.Proficient {
		ch.SkillBonus[s] = ch.ProficiencyBonus
	}
	want := 0
	for lvl, n := range class.Expertise {
		if ch.Level >= lvl {
			want = max(want, n)
		}
	}
	var exp []string
	for _, s := range ch.Expertise {
		s = norm(s)
		switch {
		case s == "thieves'_tools" || s == "thieves_tools":
			return at("expertise", refuse("chargen.expertise_tools", nil, "expertise in thieves' tools is not modelled; choose skills"))
		case !slices.Contains(ch.Proficient, s):
			return at("expertise", refuse("chargen.expertise_not_proficient", map[string]any{"Skill": s, "Skills": list(ch.Proficient)},
				"expertise doubles a proficiency; %s is not one of this character's skills (%s)", s, list(ch.Proficient)))
		case slices.Contains(exp, s):
			return at("expertise", refuse("chargen.expertise_twice", map[string]any{"Skill": s}, "expertise in %s was chosen twice", s))
		}
		exp = append(exp, s)
		ch.SkillBonus[s] = 2 * ch.ProficiencyBonus
	}
	if len(exp) != want {
		return at("expertise", refuse("chargen.expertise_count", map[string]any{"Class": class.Name, "Level": ch.Level, "Count": want, "Chosen": len(exp)},
			"%s of level %d chooses %d skills for expertise; %d were chosen", article(class.Name), ch.Level, want, len(exp)))
	}
	ch.Expertise = exp
	return nil
}

// source is what grants a skill: a "background", "race" or "class", and
// its name; chose is set when the skill was chosen for it.
type source struct {
	kind, name string
	chose      bool
}

// english is "the soldier background", "the elf race", or "a fighter" for
// a race or class that chose the skill.
func (s source) english() string {
	if s.chose {
		return article(s.name)
	}
	return "the " + strings.ToLower(s.name) + " " + s.kind
}

// chooser is the race or class that chooses skills; in English "a
// fighter", "a half-elf".
type chooser struct{ kind, name string }

func (c chooser) String() string { return article(c.name) }

// data is a refusal's data naming the chooser (Kind, Name) and kv.
func (c chooser) data(kv ...any) map[string]any {
	d := map[string]any{"Kind": c.kind, "Name": c.name}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	return d
}

// article is "a fighter", "an elf".
func article(name string) string {
	n := strings.ToLower(name)
	if strings.ContainsRune("aeiou", rune(n[0])) {
		return "an " + n
	}
	return "a " + n
}

func (ch *Character) languages(race Race, bg Background) error {
	known := slices.Clone(race.Languages)
	allowed := race.ExtraLanguages + bg.ExtraLanguages
	var picked []string
	for _, l := range ch.ExtraLanguages {
		i := slices.IndexFunc(Languages, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(l)) })
		if i < 0 {
			return refuse("chargen.unknown_language", map[string]any{"Language": quoted(l), "Languages": list(Languages)}, "unknown language %q; the SRD languages are %s", l, list(Languages))
		}
		if slices.Contains(known, Languages[i]) {
			return refuse("chargen.language_known", map[string]any{"Language": Languages[i]}, "%s is already known; an extra language must be a new one", Languages[i])
		}
		known = append(known, Languages[i])
		picked = append(picked, Languages[i])
	}
	if len(picked) > allowed {
		return refuse("chargen.language_count", map[string]any{"Allowed": allowed, "Chosen": len(picked)}, "this race and background give %d extra languages; %d were chosen", allowed, len(picked))
	}
	ch.ExtraLanguages = picked
	ch.Languages = known
	return nil
}

func (ch *Character) proficiencies(race Race, class Class, bg Background) {
	ch.ArmorProficiencies = slices.Clone(class.Armor)
	if ch.ArmorProficiencies == nil {
		ch.ArmorProficiencies = []string{}
	}
	ch.WeaponProficiencies = append(slices.Clone(class.Weapons), race.Weapons...)
	slices.Sort(ch.WeaponProficiencies)
	ch.WeaponProficiencies = slices.Compact(ch.WeaponProficiencies)
	ch.ToolProficiencies = append(append(slices.Clone(class.Tools), race.Tools...), bg.Tools...)
	ch.SavingThrows = slices.Clone(class.Saves)
	ch.RacialTraits = race.Traits
}

func (ch *Character) fightingStyle(class Class) error {
	ch.FightingStyle = norm(ch.FightingStyle)
	if len(class.FightingStyles) == 0 || ch.Level < class.FightingStyleLevel {
		if ch.FightingStyle != "" {
			return refuse("chargen.no_fighting_style", map[string]any{"Class": class.Name, "Level": ch.Level}, "%s of level %d has no fighting style", article(class.Name), ch.Level)
		}
		return nil
	}
	if !slices.Contains(class.FightingStyles, ch.FightingStyle) {
		return refuse("chargen.fighting_style", map[string]any{"Class": class.Name, "Styles": list(class.FightingStyles), "Style": quoted(ch.FightingStyle)},
			"%s chooses a fighting style from %s; got %q", article(class.Name), list(class.FightingStyles), ch.FightingStyle)
	}
	return nil
}

func (ch *Character) defense(race Race, class Class) error {
	dex := ch.Modifiers["dexterity"]
	ch.Speed = race.Speed
	ch.Armor = norm(ch.Armor)
	shield := 0
	if ch.Shield {
		if !slices.Contains(class.Armor, "shields") {
			return at("shield", refuse("chargen.no_shields", map[string]any{"Class": class.Name, "Proficient": list(class.Armor)},
				"%s is not proficient with shields (armor: %s)", article(class.Name), armorList(class.Armor)))
		}
		shield = 2
	}
	if ch.Armor == "" || ch.Armor == "none" {
		ch.Armor = ""
		ch.AC = 10 + dex + shield
		if u := class.Unarmored; u != nil && (u.Shield || !ch.Shield) {
			ac := u.Base
			for _, a := range u.Abilities {
				ac += ch.Modifiers[a]
			}
			ch.AC = max(ch.AC, ac+shield)
		}
		return nil
	}
	a, ok := armors[ch.Armor]
	if !ok {
		return refuse("chargen.unknown_armor", map[string]any{"Armor": quoted(ch.Armor), "Armors": list(sortedKeys(armors))}, "unknown armor %q; the SRD armor is %s", ch.Armor, list(sortedKeys(armors)))
	}
	if !slices.Contains(class.Armor, a.Category) {
		return refuse("chargen.armor_category", map[string]any{"Class": class.Name, "Category": a.Category, "Proficient": list(class.Armor), "Armor": a.Name},
			"%s is not proficient with %s armor (armor: %s); %s is %s armor", article(class.Name), a.Category, armorList(class.Armor), a.Name, a.Category)
	}
	bonus := dex
	switch {
	case a.MaxDex == 0:
		bonus = 0
	case a.MaxDex > 0:
		bonus = min(dex, a.MaxDex)
	}
	ch.AC = a.Base + bonus + shield
	if ch.FightingStyle == "defense" {
		ch.AC++
	}
	if a.Strength > 0 && ch.Abilities["strength"] < a.Strength {
		ch.Speed -= 10
	}
	ch.StealthDisadvantage = a.Stealth
	return nil
}

func armorList(a []string) string {
	if len(a) == 0 {
		return "none"
	}
	return list(a)
}

func (ch *Character) weapon() error {
	ch.Weapon = norm(ch.Weapon)
	if ch.Weapon == "" {
		return nil
	}
	w, ok := weapons[ch.Weapon]
	if !ok {
		return refuse("chargen.unknown_weapon", map[string]any{"Weapon": quoted(ch.Weapon), "Weapons": list(sortedKeys(weapons))}, "unknown weapon %q; the weapons are %s", ch.Weapon, list(sortedKeys(weapons)))
	}
	mod := ch.Modifiers["strength"]
	if w.Ranged {
		mod = ch.Modifiers["dexterity"]
	}
	if w.Finesse {
		mod = max(ch.Modifiers["strength"], ch.Modifiers["dexterity"])
	}
	bonus := mod
	if slices.Contains(ch.WeaponProficiencies, w.Category) || slices.Contains(ch.WeaponProficiencies, w.ID) {
		bonus += ch.ProficiencyBonus
	}
	if w.Ranged && ch.FightingStyle == "archery" {
		bonus += 2
	}
	dmg := w.Damage
	if mod != 0 {
		dmg = fmt.Sprintf("%s%+d", dmg, mod)
	}
	ch.Attack = &WeaponAttack{Name: w.Name, Bonus: bonus, Damage: dmg, DamageType: w.DamageType}
	return nil
}

func (ch *Character) derive(race Race, class Class) {
	con := ch.Modifiers["constitution"]
	avg := class.HitDie/2 + 1
	hp := class.HitDie + con
	for range ch.Level - 1 {
		hp += max(1, avg+con)
	}
	ch.MaxHP = max(ch.Level, hp+(race.HPPerLevel+class.HPPerLevel)*ch.Level)
	ch.Saves = map[string]int{}
	for _, a := range Abilities {
		ch.Saves[a] = ch.Modifiers[a]
		if slices.Contains(ch.SavingThrows, a) {
			ch.Saves[a] += ch.ProficiencyBonus
		}
	}
	ch.SkillModifiers = map[string]int{}
	for s, a := range SkillAbility {
		ch.SkillModifiers[s] = ch.Modifiers[a] + ch.SkillBonus[s]
	}
	ch.PassivePerception = 10 + ch.SkillModifiers["perception"]
	ch.Initiative = ch.Modifiers["dexterity"]
	switch {
	case ch.Class == "monk" && ch.Level >= 2 && ch.Armor == "" && !ch.Shield:
		ch.Speed += 10 + 5*((ch.Level-2)/4) // Unarmored Movement: +10 ft, +5 at 6, 10, 14, 18
	case ch.Class == "barbarian" && ch.Level >= 5 && armors[ch.Armor].Category != "heavy":
		ch.Speed += 10 // Fast Movement
	}
	if class.Spellcasting != "" {
		ch.SpellSlots = SpellSlots(class.Caster, ch.Level)
		if ch.SpellSlots != nil {
			ch.SpellcastingAbility = class.Spellcasting
			m := ch.Modifiers[class.Spellcasting]
			ch.SpellSaveDC = 8 + ch.ProficiencyBonus + m
			ch.SpellAttackBonus = ch.ProficiencyBonus + m
		}
	}
	levels := sortedKeysInt(class.Features)
	for _, l := range levels {
		if l <= ch.Level {
			ch.ClassFeatures = append(ch.ClassFeatures, class.Features[l]...)
		}
	}
	if ch.FightingStyle != "" {
		i := slices.Index(ch.ClassFeatures, "Fighting Style")
		if i >= 0 {
			ch.ClassFeatures[i] = "Fighting Style (" + styleName(ch.FightingStyle) + ")"
		}
	}
	if ch.Class == "rogue" {
		i := slices.Index(ch.ClassFeatures, "Sneak Attack")
		ch.ClassFeatures[i] = fmt.Sprintf("Sneak Attack (%dd6)", (ch.Level+1)/2)
	}
}

func sortedKeysInt[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}

func styleName(id string) string {
	words := strings.Split(id, "_")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
