package systems

import (
	"regexp"
	"strings"
)

// Content types a passage is sorted into. Lore and Rules come from the
// lore/systems classifier; the others are recognised by their layout.
const (
	Lore            = "lore"             // setting: history, places, peoples
	Rules           = "rules"            // mechanics and procedures
	StatBlock       = "stat_block"       // a creature's statistics
	ItemType        = "item"             // equipment or a magic item
	Spell           = "spell"            // a spell's description
	Table           = "table"            // mostly rows of a table
	Adventure       = "adventure"        // a scenario: areas, encounters, read-aloud text
	CharacterOption = "character_option" // a class, race, background or feat
)

// ContentTypes lists every type ContentType returns.
var ContentTypes = []string{Lore, Rules, StatBlock, ItemType, Spell, Table, Adventure, CharacterOption}

var (
	spellRe     = regexp.MustCompile(`(?m)^Casting Time:?\s|(?m)^(?:\d(?:st|nd|rd|th)-level [a-z]+|[A-Z][a-z]+ cantrip)\b`)
	optionRe    = regexp.MustCompile(`(?i)\bhit dice:?\s*1d\d+ per [a-z]+ level\b|\bability score increase\b|\bat (?:1st|2nd|3rd|\d+th) level, you\b|\bprerequisite:`)
	adventureRe = regexp.MustCompile(`(?i)\b(?:read aloud|the characters (?:arrive|enter|find)|when the (?:characters|party|adventurers)|area \d+|encounter \d+|development\.|treasure\.)`)
)

// ContentType sorts a passage: the layouts that say what they are first
// (stat block, spell, item, table, character option, adventure), else
// rules for a passage the lore/systems classifier called systems, lore
// otherwise. label is that classifier's verdict: lore, systems or both.
func ContentType(text, label string) string {
	pages := []Page{{Text: text}}
	switch {
	case len(StatBlocks(pages)) > 0:
		return StatBlock
	case spellRe.MatchString(text):
		return Spell
	case magicHead(text):
		return ItemType
	case tableShare(text) >= 0.5:
		return Table
	case optionRe.MatchString(text):
		return CharacterOption
	case len(adventureRe.FindAllString(text, 3)) >= 2:
		return Adventure
	case label == "systems" || label == "both":
		return Rules
	}
	return Lore
}

// magicHead reports whether a magic item's category line is among the
// first lines of text, under its name.
func magicHead(text string) bool {
	n := 0
	for _, l := range strings.SplitN(text, "\n", 8) {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if n++; n > 4 {
			break
		}
		if magicLine.MatchString(l) {
			return true
		}
	}
	return false
}

// tableShare is the share of a passage's lines that are table rows
// (cells split by bars).
func tableShare(text string) float64 {
	rows, all := 0, 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		all++
		if strings.Contains(l, " | ") {
			rows++
		}
	}
	if all < 3 {
		return 0
	}
	return float64(rows) / float64(all)
}
