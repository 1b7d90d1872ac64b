package systems

import (
	"regexp"
	"strconv"
	"strings"
)

// Item is a piece of equipment or a magic item as printed.
type Item struct {
	Name     string `json:"name"`
	Page     int    `json:"page,omitempty"`
	Category string `json:"category"`         // weapon, armor, wondrous item, potion, ring, …
	Rarity   string `json:"rarity,omitempty"` // magic items: common … artifact
	// Cost in copper pieces; 0 when not printed.
	CostCP     int      `json:"cost_cp,omitempty"`
	Damage     string   `json:"damage,omitempty"` // weapons: "1d6", or "1" for a blowgun
	DamageType string   `json:"damage_type,omitempty"`
	AC         string   `json:"armor_class,omitempty"` // armor: "11 + Dex modifier", "+2"
	Weight     float64  `json:"weight,omitempty"`      // pounds
	Properties []string `json:"properties,omitempty"`
	Text       string   `json:"text,omitempty"` // a magic item's description
}

var (
	// weaponRow is a weapon table row: "Club | 1 sp | 1d4 bludgeoning |
	// 2 lb. | Light"; the text may lose the bar between cost and damage.
	weaponRow = regexp.MustCompile(`^([A-Z][a-z]+(?:[ ,]+[a-z]+)*) \| (\d+) (cp|sp|gp)\s*\|?\s*(\d+d\d+|\d+) ([a-z]+) \| (\d+(?:/\d+)?) lb\.(?: \| (.+))?$`)
	// armorRow is an armor table row: "Padded | 5 gp 11 + Dex modifier |
	// — | Disadvantage | 8 lb.".
	armorRow = regexp.MustCompile(`^([A-Z][a-z]+(?: [a-z]+)*) \| (\d+) (cp|sp|gp)\s*\|?\s*(\d+(?: \+ Dex modifier(?: \(max 2\))?)?|\+\d+) \| (Str \d+|—) \| (Disadvantage|—) \| (\d+) lb\.$`)
	// magicLine is the line under a magic item's name: "Wondrous item,
	// rare (requires attunement)", "Armor (plate), legendary".
	magicLine = regexp.MustCompile(`^(Wondrous item|Armor|Weapon|Potion|Ring|Rod|Scroll|Staff|Wand)(?: \(([^)]*)\))?, (common|uncommon|rare|very rare|legendary|artifact|rarity varies|rarity by figurine)`)
)

var coinCP = map[string]int{"cp": 1, "sp": 10, "gp": 100}

// Items finds weapon and armor table rows and magic items in pages.
func Items(pages []Page) []Item {
	ls := linesOf(pages)
	var out []Item
	for i := 0; i < len(ls); i++ {
		t := ls[i].text
		if sm := weaponRow.FindStringSubmatch(t); sm != nil {
			it := Item{Name: sm[1], Page: ls[i].page, Category: "weapon", Damage: sm[4], DamageType: sm[5], Weight: pounds(sm[6])}
			it.CostCP = cost(sm[2], sm[3])
			if sm[7] != "" && sm[7] != "—" {
				it.Properties = properties(sm[7])
			}
			out = append(out, it)
			continue
		}
		if sm := armorRow.FindStringSubmatch(t); sm != nil {
			it := Item{Name: sm[1], Page: ls[i].page, Category: "armor", AC: sm[4], Weight: pounds(sm[7])}
			it.CostCP = cost(sm[2], sm[3])
			if sm[5] != "—" {
				it.Properties = append(it.Properties, sm[5])
			}
			if sm[6] != "—" {
				it.Properties = append(it.Properties, "stealth disadvantage")
			}
			out = append(out, it)
			continue
		}
		if i > 0 && ls[i].para && ls[i-1].para && nameLike(ls[i-1].text) {
			if sm := magicLine.FindStringSubmatch(t); sm != nil {
				it := Item{Name: ls[i-1].text, Page: ls[i-1].page, Category: strings.ToLower(sm[1]), Rarity: sm[3]}
				if sm[2] != "" {
					it.Properties = []string{sm[2]}
				}
				if strings.Contains(t, "requires attunement") {
					it.Properties = append(it.Properties, "requires attunement")
				}
				it.Text, i = magicText(ls, i+1)
				out = append(out, it)
			}
		}
	}
	return out
}

// magicText gathers a magic item's description: the paragraphs after its
// category line, up to the next item's name or a heading. It returns the
// text and the index of the last line used.
func magicText(ls []line, i int) (string, int) {
	var b strings.Builder
	for ; i < len(ls); i++ {
		l := ls[i]
		next := i+1 < len(ls) && ls[i+1].para && magicLine.MatchString(ls[i+1].text)
		if l.para && nameLike(l.text) && (next || (i+1 < len(ls) && ls[i+1].para && headingLike(l.text))) {
			break
		}
		if b.Len() > 0 {
			if l.para {
				b.WriteString("\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l.text)
	}
	return b.String(), i - 1
}

func cost(n, coin string) int {
	v, _ := strconv.Atoi(n)
	return v * coinCP[coin]
}

// pounds reads "2", "1/4".
func pounds(s string) float64 {
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		if y != 0 {
			return x / y
		}
		return 0
	}
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// properties splits "Finesse, thrown (range 20/60)" into lower-case
// properties, keeping commas inside parentheses.
func properties(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.ToLower(strings.TrimSpace(s[start:i])))
				start = i + 1
			}
		}
	}
	if p := strings.ToLower(strings.TrimSpace(s[start:])); p != "" {
		out = append(out, p)
	}
	return out
}
