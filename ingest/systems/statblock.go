package systems

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Page is one page's text, as the extractor gave it.
type Page struct {
	Number int
	Text   string
}

// line is a line of the book with the page it is on; para marks the first
// line of a paragraph (after a blank line).
type line struct {
	text string
	page int
	para bool
}

// linesOf flattens pages into lines. Pages are joined so that a stat block
// running onto the next page reads as one.
func linesOf(pages []Page) []line {
	var out []line
	for _, p := range pages {
		para := true
		for _, l := range strings.Split(p.Text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				para = true
				continue
			}
			out = append(out, line{text: l, page: p.Number, para: para})
			para = false
		}
	}
	return out
}

var (
	sizeRe = regexp.MustCompile(`^(Tiny|Small|Medium|Large|Huge|Gargantuan)(?: or [A-Z][a-z]+)? ([a-z][^,]*?), (.+)$`)
	acRe   = regexp.MustCompile(`^Armor Class:?\s*(\d+)\s*(.*)$`)
	hpRe   = regexp.MustCompile(`^Hit Points:?\s*(\d+)?\s*(?:\(([^)]*)\))?`)
	diceRe = regexp.MustCompile(`^(\d+)\s*d\s*(\d+)\s*(?:([+−–-])\s*(\d+))?$`)
	// scoreRe is one score with its modifier: "17 (+3)", "1 (−5)".
	scoreRe = regexp.MustCompile(`(\d+)\s*\(\s*([+−–-]?)\s*(\d+)\s*\)`)
	crRe    = regexp.MustCompile(`^Challenge:?\s*(\d+/\d+|\d+|—|-)\s*(?:\(([\d,]+)\s*XP\))?`)
	bonusRe = regexp.MustCompile(`([A-Z][A-Za-z ]*?)\s*([+−–-])\s*(\d+)`)
	walkRe  = regexp.MustCompile(`^(\d+)\s*ft`)
	ppRe    = regexp.MustCompile(`passive Perception\s*(\d+)`)
	// featRe is a trait or action's opening: "Bite. …", "Acid Spray
	// (Recharge 5–6). …", "Legendary Resistance (3/Day). …".
	featRe = regexp.MustCompile(`^([A-Z][A-Za-z'’\-]*(?: [A-Za-z'’\-]+){0,5}(?: \([^)]{1,40}\))?)\.\s*(.*)$`)
	// attackRe reads an attack action's numbers.
	attackRe = regexp.MustCompile(`(?i)^(Melee or Ranged|Melee|Ranged) (Weapon|Spell) Attack:\s*([+−–-])\s*(\d+) to hit,?\s*(?:reach (\d+) ft\.?)?(?:,? or )?(?:range (\d+/\d+|\d+) ft\.?)?.*?Hit:\s*(\d+)\s*(?:\(([^)]*)\))?\s*([a-z]+) damage`)
)

// fields are the lines between Armor Class and Challenge, by their first
// words.
var fields = []string{"Armor Class", "Hit Points", "Speed", "STR", "Saving Throws", "Skills",
	"Damage Vulnerabilities", "Damage Resistances", "Damage Immunities", "Condition Immunities",
	"Senses", "Languages", "Challenge", "Proficiency Bonus"}

// sections head the parts of a stat block after its traits.
var sections = map[string]bool{"Actions": true, "Reactions": true, "Legendary Actions": true, "Bonus Actions": true}

// smallWords may be lower-case in a feature's name.
var smallWords = map[string]bool{"of": true, "the": true, "and": true, "a": true, "an": true, "in": true, "at": true, "with": true, "to": true, "or": true, "from": true}

// StatBlocks finds the stat blocks in pages. Each found block is
// returned, sure or not; a block whose layout the parser only half
// recognises comes back with Problems, for a model to read again.
func StatBlocks(pages []Page) []Block {
	ls := linesOf(pages)
	var starts []int
	for i := range ls {
		if start, ok := blockStart(ls, i); ok {
			starts = append(starts, start)
		}
	}
	out := make([]Block, 0, len(starts))
	for k, s := range starts {
		end := len(ls)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		m, used := parseBlock(ls[s:end])
		var text []string
		for _, l := range ls[s : s+used] {
			if l.para && len(text) > 0 {
				text = append(text, "")
			}
			text = append(text, l.text)
		}
		out = append(out, Block{Monster: m, Text: strings.Join(text, "\n")})
	}
	return out
}

// Block is a stat block found in the text: what was read of it, and its
// text (for a model, or a human, to read again).
type Block struct {
	Monster Monster `json:"monster"`
	Text    string  `json:"text"`
}

// blockStart reports whether line i is a block's Armor Class line and
// where the block starts: its name, two lines up, above the size line.
// An Armor Class line with Hit Points under it but no size line above is
// a block of a layout the rules do not know; it starts one line up.
func blockStart(ls []line, i int) (int, bool) {
	if !acRe.MatchString(ls[i].text) || !startsWithDigit(strings.TrimLeft(strings.TrimPrefix(ls[i].text, "Armor Class"), ": ")) {
		return 0, false
	}
	if i >= 2 && sizeRe.MatchString(ls[i-1].text) && nameLike(ls[i-2].text) {
		return i - 2, true
	}
	for j := i + 1; j < min(i+3, len(ls)); j++ {
		if strings.HasPrefix(ls[j].text, "Hit Points") && i >= 1 && nameLike(ls[i-1].text) {
			return i - 1, true
		}
	}
	return 0, false
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// nameLike reports whether s can be a monster's name: short, capitalised,
// not a sentence.
func nameLike(s string) bool {
	if s == "" || len(s) > 60 || !(s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return !strings.ContainsAny(s[len(s)-1:], ".:;,") && len(strings.Fields(s)) <= 7
}

// headingLike reports whether a paragraph's first line is a heading that
// ends a stat block: a short capitalised line without a sentence's end,
// colon or number.
func headingLike(s string) bool {
	return nameLike(s) && !sections[s] && !strings.ContainsAny(s, "0123456789():")
}

// parseBlock reads one stat block from ls (which runs to the next block
// or the end of the text) and says how many lines it used.
func parseBlock(ls []line) (Monster, int) {
	m := Monster{Name: ls[0].text, Page: ls[0].page}
	i := 1
	if sm := sizeRe.FindStringSubmatch(ls[i].text); sm != nil {
		m.Size, m.Type, m.Alignment = sm[1], strings.TrimSpace(sm[2]), strings.TrimSpace(sm[3])
		i++
	} else {
		m.problem("no size, type and alignment line under the name")
	}
	// The fields, each perhaps wrapped over several lines.
	var keys []string
	vals := map[string]string{}
	cur := ""
	for ; i < len(ls); i++ {
		t := ls[i].text
		if k := fieldOf(t); k != "" {
			cur = k
			keys = append(keys, k)
			vals[k] = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, k), ":"))
			if k == "Challenge" {
				i++
				break
			}
			continue
		}
		if scoreRe.MatchString(t) && len(scoreRe.FindAllString(t, -1)) >= 6 {
			cur = "STR"
			vals[cur] += " " + t
			continue
		}
		if cur == "" || (ls[i].para && featRe.MatchString(t) && vals["Challenge"] == "" && len(keys) > 4) {
			break // a trait before any Challenge line: the layout has none
		}
		vals[cur] += " " + t
	}
	m.fields(vals)

	// Traits, then the sections.
	sec := "Traits"
	var f *Feature
entries:
	for ; i < len(ls); i++ {
		t := ls[i].text
		if ls[i].para && sections[t] {
			sec, f = t, nil
			continue
		}
		if ls[i].para {
			if sm := featRe.FindStringSubmatch(t); sm != nil && featureName(sm[1]) {
				m.add(sec, Feature{Name: sm[1], Text: sm[2]})
				f = m.last(sec)
				continue
			}
			if headingLike(t) {
				break
			}
		}
		switch {
		case f != nil:
			f.Text = joinWrapped(f.Text, t)
		case sec == "Legendary Actions": // the paragraph before the options
			m.add(sec, Feature{Name: "", Text: t})
			f = m.last(sec)
		default:
			if ls[i].para {
				break entries
			}
		}
	}
	for _, list := range [][]Feature{m.Traits, m.Actions, m.Reactions, m.Legendary} {
		for j := range list {
			list[j].Attack = attackOf(list[j].Text)
		}
	}
	if len(m.Actions) == 0 && len(m.Traits) == 0 {
		m.problem("no traits or actions after the Challenge line")
	}
	return m, i
}

// joinWrapped joins a line wrapped from the one before, mending a word
// split at a hyphen.
func joinWrapped(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// featureName reports whether a featRe match is a feature's name rather
// than a sentence's first words: capitalised words, a few small ones.
func featureName(s string) bool {
	words := strings.Fields(strings.SplitN(s, " (", 2)[0])
	if len(words) == 0 || len(words) > 5 {
		return false
	}
	for _, w := range words {
		if !(w[0] >= 'A' && w[0] <= 'Z') && !smallWords[w] {
			return false
		}
	}
	return true
}

func (m *Monster) add(sec string, f Feature) {
	switch sec {
	case "Actions", "Bonus Actions":
		m.Actions = append(m.Actions, f)
	case "Reactions":
		m.Reactions = append(m.Reactions, f)
	case "Legendary Actions":
		m.Legendary = append(m.Legendary, f)
	default:
		m.Traits = append(m.Traits, f)
	}
}

func (m *Monster) last(sec string) *Feature {
	var l []Feature
	switch sec {
	case "Actions", "Bonus Actions":
		l = m.Actions
	case "Reactions":
		l = m.Reactions
	case "Legendary Actions":
		l = m.Legendary
	default:
		l = m.Traits
	}
	return &l[len(l)-1]
}

func (m *Monster) problem(format string, args ...any) {
	m.Problems = append(m.Problems, fmt.Sprintf(format, args...))
}

// fieldOf names the field a line starts, "" for none.
func fieldOf(t string) string {
	for _, f := range fields {
		if strings.HasPrefix(t, f) && (len(t) == len(f) || t[len(f)] == ' ' || t[len(f)] == ':' || t[len(f)] == '|') {
			return f
		}
	}
	return ""
}

// fields reads the lines between Armor Class and Challenge.
func (m *Monster) fields(v map[string]string) {
	if sm := acRe.FindStringSubmatch("Armor Class " + v["Armor Class"]); sm != nil {
		m.AC, _ = strconv.Atoi(sm[1])
		m.ACNote = strings.Trim(strings.TrimSpace(sm[2]), "()")
	}
	if m.AC <= 0 {
		m.problem("no Armor Class number")
	}
	if sm := hpRe.FindStringSubmatch("Hit Points " + v["Hit Points"]); sm != nil && sm[1] != "" {
		m.HP, _ = strconv.Atoi(sm[1])
		m.HitDice = normDice(sm[2])
	}
	switch {
	case m.HP <= 0:
		m.problem("no hit point number")
	case m.HitDice != "" && !diceAverages(m.HitDice, m.HP):
		m.problem("hit points %d are not the average of %s", m.HP, m.HitDice)
	}
	m.Speed = strings.TrimSpace(v["Speed"])
	if sm := walkRe.FindStringSubmatch(m.Speed); sm != nil {
		m.Walk, _ = strconv.Atoi(sm[1])
	}
	if m.Speed == "" {
		m.problem("no Speed line")
	}
	scores := scoreRe.FindAllStringSubmatch(v["STR"], -1)
	if len(scores) < 6 {
		m.problem("%d ability scores, want 6", len(scores))
	} else {
		for j, sc := range scores[:6] {
			m.Scores[j], _ = strconv.Atoi(sc[1])
			mod, _ := strconv.Atoi(sc[3])
			if sc[2] != "" && sc[2] != "+" {
				mod = -mod
			}
			if Modifier(m.Scores[j]) != mod {
				m.problem("%s %d is printed with modifier %+d, want %+d", Abilities[j], m.Scores[j], mod, Modifier(m.Scores[j]))
			}
		}
	}
	m.Saves = bonuses(v["Saving Throws"], true)
	m.Skills = bonuses(v["Skills"], false)
	m.Vulnerabilities = strings.TrimSpace(v["Damage Vulnerabilities"])
	m.Resistances = strings.TrimSpace(v["Damage Resistances"])
	m.Immunities = strings.TrimSpace(v["Damage Immunities"])
	m.ConditionImmunities = strings.TrimSpace(v["Condition Immunities"])
	m.Senses = strings.TrimSpace(v["Senses"])
	if sm := ppRe.FindStringSubmatch(m.Senses); sm != nil {
		m.PassivePerception, _ = strconv.Atoi(sm[1])
	}
	m.Languages = strings.TrimSpace(v["Languages"])
	if sm := crRe.FindStringSubmatch("Challenge " + v["Challenge"]); sm != nil {
		m.CR = sm[1]
		m.XP, _ = strconv.Atoi(strings.ReplaceAll(sm[2], ",", ""))
	}
	if m.CR == "" {
		m.problem("no Challenge rating")
	}
}

// abbrev maps save abbreviations to abilities.
var abbrev = map[string]string{"str": "strength", "dex": "dexterity", "con": "constitution", "int": "intelligence", "wis": "wisdom", "cha": "charisma"}

// bonuses reads "Con +6, Int +8" or "History +12, Perception +10" into
// lower-case names and totals; saves spell their abilities out.
func bonuses(s string, saves bool) map[string]int {
	out := map[string]int{}
	for _, sm := range bonusRe.FindAllStringSubmatch(s, -1) {
		name := strings.ToLower(strings.TrimSpace(sm[1]))
		if saves {
			if full, ok := abbrev[name]; ok {
				name = full
			}
		}
		n, _ := strconv.Atoi(sm[3])
		if sm[2] != "+" {
			n = -n
		}
		out[name] = n
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// normDice writes "6d10 + 6" as "6d10+6"; "" when s is not dice.
func normDice(s string) string {
	sm := diceRe.FindStringSubmatch(strings.TrimSpace(s))
	if sm == nil {
		return ""
	}
	d := sm[1] + "d" + sm[2]
	if sm[4] != "" {
		sign := "+"
		if sm[3] != "+" {
			sign = "-"
		}
		d += sign + sm[4]
	}
	return d
}

// diceAverages reports whether n is the rounded-down average of dice:
// how stat blocks print fixed hit points and damage.
func diceAverages(dice string, n int) bool {
	sm := diceRe.FindStringSubmatch(dice)
	if sm == nil {
		return false
	}
	count, _ := strconv.Atoi(sm[1])
	sides, _ := strconv.Atoi(sm[2])
	bonus, _ := strconv.Atoi(sm[4])
	if sm[3] == "-" {
		bonus = -bonus
	}
	return count*(sides+1)/2+bonus == n
}

// attackOf reads an attack action's numbers from its text; nil when the
// text is not an attack.
func attackOf(text string) *Attack {
	sm := attackRe.FindStringSubmatch(text)
	if sm == nil {
		return nil
	}
	a := &Attack{Kind: strings.ToLower(sm[1] + " " + sm[2]), Range: sm[6], DamageType: sm[9]}
	a.ToHit, _ = strconv.Atoi(sm[4])
	if sm[3] != "+" {
		a.ToHit = -a.ToHit
	}
	a.Reach, _ = strconv.Atoi(sm[5])
	a.Average, _ = strconv.Atoi(sm[7])
	a.Damage = normDice(sm[8])
	if a.Damage == "" {
		a.Damage = sm[7] // a fixed amount: "Hit: 1 piercing damage."
	}
	return a
}
