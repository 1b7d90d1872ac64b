package pipeline

import (
	"context"
	"regexp"
	"strings"

	"github.com/hearth-rpg/hearth/ingest/systems"
)

// Classification labels.
const (
	Lore    = "lore"
	Systems = "systems"
	Both    = "both"
)

// Class is a segment's classification and the evidence for it.
type Class struct {
	Label string `json:"label"`
	// Type is the passage's content type (systems.ContentTypes): a stat
	// block, spell, item, table, character option or adventure by its
	// layout, else rules or lore by Label.
	Type     string         `json:"type,omitempty"`
	Systems  float64        `json:"systems"` // feature hits per 100 words
	Lore     float64        `json:"lore"`
	Features map[string]int `json:"features,omitempty"`
	Checked  bool           `json:"checked,omitempty"` // a model confirmed or changed it
}

// Checker is a second opinion on a rule-based classification, from a
// language model. It returns lore, systems or both.
type Checker interface {
	Classify(ctx context.Context, title, text string, rule Class) (string, error)
}

// feature is one documented signal: a pattern and which side it counts
// for.
type feature struct {
	name    string
	systems bool
	re      *regexp.Regexp
}

// features are the rule-based classifier's signals. Systems text is
// mechanics: dice, difficulty classes, hit points, modifiers and tables
// of numbers. Lore text is setting: history, places, peoples, and the
// proper names that fill them.
var features = []feature{
	{"dice", true, regexp.MustCompile(`\b\d*d(?:4|6|8|10|12|20|100|%)\b(?:\s*[+−-]\s*\d+)?`)},
	{"dc", true, regexp.MustCompile(`\bDC\s*\d+`)},
	{"hit_points", true, regexp.MustCompile(`(?i)\bhit points?\b|\bHP\b`)},
	{"armor_class", true, regexp.MustCompile(`(?i)\barmou?r class\b|\bAC\s*\d+`)},
	{"modifier", true, regexp.MustCompile(`(?i)\bmodifiers?\b|[+−-]\d+\s+(?:to hit|bonus)|\bbonus(?: action)?\b`)},
	{"roll", true, regexp.MustCompile(`(?i)\b(?:roll|saving throw|ability check|attack roll|damage)s?\b`)},
	{"game_terms", true, regexp.MustCompile(`(?i)\b(?:advantage|disadvantage|proficiency|initiative|spell slot|level \d+|\d+(?:st|nd|rd|th)[- ]level|per (?:turn|round))\b`)},
	{"history", false, regexp.MustCompile(`(?i)\b(?:histor(?:y|ies)|ancient|centur(?:y|ies)|founded|legend(?:s|ary)?|empire|kingdom|dynasty|war|gods?|myths?|realm|ruins?|long ago|once)\b`)},
	{"places", false, regexp.MustCompile(`(?i)\b(?:city|cities|village|mountains?|forest|river|sea|island|capital|temple|castle|land|lands|north|south|east|west)\b`)},
	{"peoples", false, regexp.MustCompile(`(?i)\b(?:king|queen|lord|lady|prince|priest|clan|tribe|folk|people|culture|tradition|believe|worship)s?\b`)},
	{"names", false, regexp.MustCompile(`[a-z,;] (?:[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*)`)},
}

// tableRow matches a line of a text table holding numbers.
var tableRow = regexp.MustCompile(`^\|.*\d.*\|$`)

// threshold is the hits per 100 words that make a side count.
const threshold = 2.0

// classify labels text by its features: systems when mechanics dominate,
// lore when setting does, both when each is strong.
func classify(text string) Class {
	c := Class{Features: map[string]int{}}
	words := max(len(strings.Fields(text)), 1)
	var sys, lore int
	for _, f := range features {
		n := len(f.re.FindAllStringIndex(text, -1))
		if n == 0 {
			continue
		}
		c.Features[f.name] = n
		if f.systems {
			sys += n
		} else {
			lore += n
		}
	}
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		if tableRow.MatchString(strings.TrimSpace(l)) {
			rows++
		}
	}
	if rows >= 2 {
		c.Features["number_table_rows"] = rows
		sys += 2 * rows
	}
	c.Systems = float64(sys) * 100 / float64(words)
	c.Lore = float64(lore) * 100 / float64(words)
	switch {
	case c.Systems >= threshold && c.Lore >= threshold && c.Lore >= c.Systems/2 && c.Systems >= c.Lore/2:
		c.Label = Both
	case c.Systems >= threshold && c.Systems >= c.Lore:
		c.Label = Systems
	default:
		c.Label = Lore
	}
	c.Type = systems.ContentType(text, c.Label)
	return c
}
