package spell

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Spell is one spell entry, as far as its text parses.
type Spell struct {
	Name   string `json:"name"`
	Level  int    `json:"level"` // 0: a cantrip
	School string `json:"school"`
	Ritual bool   `json:"ritual,omitempty"`

	CastingTime string   `json:"casting_time"`
	Range       string   `json:"range"`
	Components  []string `json:"components,omitempty"` // V, S, M
	Material    string   `json:"material,omitempty"`
	Duration    string   `json:"duration"`
	// Concentration: the caster must keep concentrating for the duration.
	Concentration bool `json:"concentration,omitempty"`

	// Attack is "ranged" or "melee" for a spell attack.
	Attack string `json:"attack,omitempty"`
	// Save is the ability of the saving throw its targets make
	// (lower-case), and SaveHalf whether a success still takes half the
	// damage.
	Save     string `json:"save,omitempty"`
	SaveHalf bool   `json:"save_half,omitempty"`
	// RepeatSave: a target repeats the save at the end of each of its
	// turns, and a success ends the spell on it.
	RepeatSave bool `json:"repeat_save,omitempty"`

	Damage     string `json:"damage,omitempty"` // dice, e.g. 8d6 or 1d4+1
	DamageType string `json:"damage_type,omitempty"`
	Healing    string `json:"healing,omitempty"` // dice
	// HealingAddsModifier: the caster's spellcasting modifier is added.
	HealingAddsModifier bool `json:"healing_adds_modifier,omitempty"`
	// Projectiles is how many darts or rays it makes (Magic Missile: 3);
	// each deals Damage.
	Projectiles int `json:"projectiles,omitempty"`
	// ACBonus is a bonus to the caster's armour class (Shield: 5).
	ACBonus int `json:"ac_bonus,omitempty"`

	Area       Area     `json:"area,omitzero"`
	Conditions []string `json:"conditions,omitempty"` // applied on a failed save

	// Higher is what casting with a higher slot adds per level above the
	// spell's; Cantrip is what a cantrip adds at caster levels 5, 11 and 17.
	Higher  Scaling `json:"higher,omitzero"`
	Cantrip Scaling `json:"cantrip,omitzero"`

	Classes []string `json:"classes,omitempty"` // lower-case, from the spell lists
	Text    string   `json:"text"`              // the description, Markdown emphasis removed
}

// Area is the shape and size (in feet) a spell covers.
type Area struct {
	Shape string `json:"shape"` // sphere, cone, cube, line, cylinder, hemisphere
	Size  int    `json:"size"`
}

// Scaling is what a spell gains per step: more dice, projectiles or
// targets.
type Scaling struct {
	Dice        string `json:"dice,omitempty"`
	Projectiles int    `json:"projectiles,omitempty"`
	Targets     int    `json:"targets,omitempty"`
}

// Complete reports whether every header field parsed: level and school,
// casting time, range, components and duration.
func (s *Spell) Complete() bool {
	return s.School != "" && s.Level >= 0 && s.CastingTime != "" && s.Range != "" && len(s.Components) > 0 && s.Duration != ""
}

// Rounds is the spell's duration in 6-second combat rounds; 0 for an
// instantaneous, open-ended or unreadable one.
func (s *Spell) Rounds() int {
	m := durationRE.FindStringSubmatch(strings.ToLower(s.Duration))
	if m == nil {
		return 0
	}
	n := number(m[1])
	switch {
	case strings.HasPrefix(m[2], "round"):
		return n
	case strings.HasPrefix(m[2], "minute"):
		return 10 * n
	case strings.HasPrefix(m[2], "hour"):
		return 600 * n
	case strings.HasPrefix(m[2], "day"):
		return 14400 * n
	}
	return 0
}

// Harmful reports whether the spell hurts or hinders its targets.
func (s *Spell) Harmful() bool {
	return s.Damage != "" || s.Attack != "" || s.Save != "" || len(s.Conditions) > 0
}

// LevelName is "cantrip" or "3rd-level".
func (s *Spell) LevelName() string {
	if s.Level == 0 {
		return "cantrip"
	}
	return Ordinal(s.Level) + "-level"
}

// Ordinal writes 1 as "1st", 2 as "2nd" …
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

var (
	levelRE   = regexp.MustCompile(`(?i)^(\d)(?:st|nd|rd|th)-level (\w+)(?: \((ritual)\))?$`)
	cantripRE = regexp.MustCompile(`(?i)^(\w+) cantrip$`)
	fieldRE   = regexp.MustCompile(`^\*\*([A-Za-z ]+):\*\*\s*(.*)$`)
	emphasis  = strings.NewReplacer("***", "", "**", "", "*", "", "\u00ad", "", "\u00a0", " ")

	durationRE   = regexp.MustCompile(`(\d+|one|two|three|four|five|six|seven|eight|nine|ten) (round|minute|hour|day)`)
	attackRE     = regexp.MustCompile(`\b(ranged|melee) spell attack`)
	saveRE       = regexp.MustCompile(`(?:make|makes|succeed on|succeeds on|succeed at|must make|fails?) an? (strength|dexterity|constitution|intelligence|wisdom|charisma) saving throw`)
	damageRE     = regexp.MustCompile(`(\d+d\d+(?:\s*\+\s*\d+)?) (acid|bludgeoning|cold|fire|force|lightning|necrotic|piercing|poison|psychic|radiant|slashing|thunder) damage`)
	healingRE    = regexp.MustCompile(`regains? (?:a number of )?hit points equal to (\d+d\d+)( \+ your spellcasting ability modifier)?`)
	projectileRE = regexp.MustCompile(`create (two|three|four|five|\d+) (?:glowing )?(?:darts|rays|beams)`)
	acRE         = regexp.MustCompile(`\+(\d+) bonus to ac`)
	areaRE       = regexp.MustCompile(`(\d+)-foot[- ](radius[- ])?(sphere|cone|cube|line|cylinder|hemisphere)?`)
	conditionRE  = regexp.MustCompile(`(?:saving throw|save),? (?:or|and) [^.]{0,60}?\b(?:be|become|is|fall|falls|be knocked) (?:either )?(blinded|charmed|deafened|frightened|incapacitated|paralyzed|petrified|poisoned|prone|restrained|stunned|unconscious)`)
	failedRE     = regexp.MustCompile(`(?:on a failed save|if it fails(?: the saving throw)?|if the target fails(?: the saving throw)?),? (?:the target|it|a creature|the creature) (?:is|becomes|falls|is knocked)(?: either)? (blinded|charmed|deafened|frightened|incapacitated|paralyzed|petrified|poisoned|prone|restrained|stunned|unconscious)`)
	repeatRE     = regexp.MustCompile(`at the end of each of its turns, the (?:\w+ )?target can (?:make|repeat) (?:another|the|a|an) (?:\w+ )?saving throw`)
	higherDiceRE = regexp.MustCompile(`increases by (\d+d\d+) for (?:each|every) slot level above`)
	higherProjRE = regexp.MustCompile(`(one|two) (?:more|additional) (?:dart|ray|beam)s? for each slot level above`)
	higherTgtRE  = regexp.MustCompile(`target one additional (?:\w+ ){0,2}for each slot level above`)
	cantripDice  = regexp.MustCompile(`increases by (\d+d\d+) when you\s+reach 5th level`)
)

// Parse reads every spell entry in a Markdown document: a "#### Name"
// heading followed by an italic "*Nth-level school*" or "*School
// cantrip*" line. Other headings are skipped. It never fails; what does
// not parse is left empty.
func Parse(markdown string) []Spell {
	var out []Spell
	sections := strings.Split("\n"+strings.ReplaceAll(markdown, "\r\n", "\n"), "\n#### ")
	for _, sec := range sections[1:] {
		name, body, _ := strings.Cut(sec, "\n")
		if s, ok := parseEntry(strings.TrimSpace(name), body); ok {
			out = append(out, s)
		}
	}
	return out
}

// parseEntry reads one entry; ok is false when it is not a spell.
func parseEntry(name, body string) (Spell, bool) {
	s := Spell{Name: strings.TrimSpace(emphasis.Replace(name)), Level: -1}
	if s.Name == "" {
		return s, false
	}
	var text []string
	para := false     // the last line read continues a paragraph
	inHigher := false // … and that paragraph is "At Higher Levels"
	higher := ""
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			para = false
			continue
		}
		if s.Level < 0 {
			// The first line says what it is, or this is no spell.
			if !strings.HasPrefix(line, "*") {
				return s, false
			}
			kind := strings.TrimSpace(emphasis.Replace(line))
			if m := levelRE.FindStringSubmatch(kind); m != nil {
				s.Level, _ = strconv.Atoi(m[1])
				s.School, s.Ritual = strings.ToLower(m[2]), m[3] != ""
			} else if m := cantripRE.FindStringSubmatch(kind); m != nil {
				s.Level, s.School = 0, strings.ToLower(m[1])
			} else {
				return s, false
			}
			continue
		}
		if m := fieldRE.FindStringSubmatch(line); m != nil && len(text) == 0 {
			v := strings.TrimSpace(emphasis.Replace(m[2]))
			switch strings.ToLower(strings.TrimSpace(m[1])) {
			case "casting time":
				s.CastingTime = v
			case "range":
				s.Range = v
			case "components", "component":
				s.Components, s.Material = components(v)
			case "duration":
				s.Duration = v
				s.Concentration = strings.HasPrefix(strings.ToLower(v), "concentration")
			}
			continue
		}
		plain := strings.TrimSpace(emphasis.Replace(line))
		if !para && len(text) > 0 && midSentence(text[len(text)-1]) {
			para = true // the conversion broke a sentence with a blank line
		}
		if para {
			// A paragraph wrapped over several lines is one paragraph.
			text[len(text)-1] += " " + plain
			if inHigher {
				higher += " " + plain
			}
			continue
		}
		para = true
		rest, ok := strings.CutPrefix(plain, "At Higher Levels.")
		if inHigher = ok; ok {
			higher = strings.TrimSpace(rest)
		}
		text = append(text, plain)
	}
	if s.Level < 0 {
		return s, false
	}
	s.Text = strings.Join(text, "\n\n")
	s.read(s.Text, higher)
	return s, true
}

// midSentence reports whether a paragraph stops where no sentence ends:
// after a lower-case letter or a comma.
func midSentence(p string) bool {
	if p == "" {
		return false
	}
	last := p[len(p)-1]
	return last == ',' || (last >= 'a' && last <= 'z')
}

// components reads "V, S, M (a tiny ball of bat guano)".
func components(v string) ([]string, string) {
	head, material, _ := strings.Cut(v, "(")
	material = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(material), ")"))
	var out []string
	for _, c := range strings.Split(head, ",") {
		switch c = strings.ToUpper(strings.TrimSpace(c)); c {
		case "V", "S", "M":
			out = append(out, c)
		}
	}
	return out, material
}

// read fills what the description says about the spell's mechanics. The
// text is lower-cased once, and each pattern runs only where its key word
// occurs: most spells match few of them.
func (s *Spell) read(text, higher string) {
	// The main effect is in the first paragraphs; "At Higher Levels" and
	// cantrip scaling are read apart.
	lower := strings.ToLower(text)
	body := lower
	if i := strings.Index(body, "at higher levels."); i >= 0 {
		body = body[:i]
	}
	find := func(re *regexp.Regexp, key string) []string {
		if !strings.Contains(body, key) {
			return nil
		}
		return re.FindStringSubmatch(body)
	}
	if m := find(attackRE, "spell attack"); m != nil {
		s.Attack = m[1]
	}
	if m := find(saveRE, "saving throw"); m != nil {
		s.Save = m[1]
		s.SaveHalf = strings.Contains(body, "half as much damage")
		s.RepeatSave = find(repeatRE, "end of each of its turns") != nil
	}
	if m := find(damageRE, " damage"); m != nil {
		s.Damage = strings.ReplaceAll(m[1], " ", "")
		s.DamageType = m[2]
	}
	if m := find(healingRE, "hit points equal to"); m != nil {
		s.Healing, s.HealingAddsModifier = m[1], m[2] != ""
	}
	if m := find(projectileRE, "create "); m != nil {
		s.Projectiles = number(m[1])
	}
	if m := find(acRE, "bonus to ac"); m != nil {
		s.ACBonus, _ = strconv.Atoi(m[1])
	}
	s.Area = area(strings.ToLower(s.Range) + " " + body)
	if strings.Contains(body, "saving throw") || strings.Contains(body, "save") {
		seen := map[string]bool{}
		for _, re := range []*regexp.Regexp{conditionRE, failedRE} {
			for _, m := range re.FindAllStringSubmatch(body, -1) {
				if c := m[1]; !seen[c] {
					seen[c] = true
					s.Conditions = append(s.Conditions, c)
				}
			}
		}
	}
	if higher = strings.ToLower(higher); strings.Contains(higher, "slot level above") {
		if m := higherDiceRE.FindStringSubmatch(higher); m != nil {
			s.Higher.Dice = m[1]
		}
		if m := higherProjRE.FindStringSubmatch(higher); m != nil {
			s.Higher.Projectiles = number(m[1])
		}
		if higherTgtRE.MatchString(higher) {
			s.Higher.Targets = 1
		}
	}
	if s.Level == 0 && strings.Contains(lower, "reach 5th level") {
		if m := cantripDice.FindStringSubmatch(lower); m != nil {
			s.Cantrip.Dice = m[1]
		}
	}
}

// area finds the first "20-foot radius sphere", "15-foot cone" …; a bare
// radius is a sphere.
func area(text string) Area {
	if !strings.Contains(text, "-foot") {
		return Area{}
	}
	for _, m := range areaRE.FindAllStringSubmatch(text, -1) {
		shape := m[3]
		if shape == "" && m[2] == "" {
			continue // "30 feet" and "10-foot pole" are not areas
		}
		if shape == "" {
			shape = "sphere"
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 {
			continue
		}
		return Area{Shape: shape, Size: n}
	}
	return Area{}
}

func number(s string) int {
	switch strings.ToLower(s) {
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	}
	n, _ := strconv.Atoi(s)
	return n
}

// AddDice adds n steps of extra dice to base: "8d6" plus 2 × "1d6" is
// "10d6"; dice of another size are appended ("1d8+3" plus "1d6" is
// "1d8+3+1d6").
func AddDice(base, extra string, n int) string {
	if extra == "" || n <= 0 {
		return base
	}
	ec, es, ok := diceTerm(extra)
	if !ok {
		return base
	}
	head, tail := base, ""
	if i := strings.IndexAny(base, "+-"); i >= 0 {
		head, tail = base[:i], base[i:]
	}
	if bc, bs, ok := diceTerm(head); ok && bs == es {
		return fmt.Sprintf("%dd%d%s", bc+ec*n, bs, tail)
	}
	if base == "" {
		return fmt.Sprintf("%dd%d", ec*n, es)
	}
	return fmt.Sprintf("%s+%dd%d", base, ec*n, es)
}

func diceTerm(s string) (count, sides int, ok bool) {
	c, d, found := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "d")
	if !found {
		return 0, 0, false
	}
	count, err1 := strconv.Atoi(c)
	sides, err2 := strconv.Atoi(d)
	if err1 != nil || err2 != nil || count <= 0 || sides <= 0 {
		return 0, 0, false
	}
	return count, sides, true
}
