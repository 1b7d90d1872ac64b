package contextpack

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

func campaignText(c Campaign) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Campaign: %s", c.Title)
	if c.Genre != "" {
		fmt.Fprintf(&b, " (%s", c.Genre)
		if c.Tone != "" {
			fmt.Fprintf(&b, ", %s", c.Tone)
		}
		b.WriteString(")")
	}
	if c.Description != "" {
		fmt.Fprintf(&b, "\n%s", c.Description)
	}
	if c.RulesHint != "" {
		fmt.Fprintf(&b, "\nRules: %s", c.RulesHint)
	}
	b.WriteString("\nPrecedence: campaign canon and established facts are authoritative; summaries are lossy notes and never override them.")
	return b.String()
}

func actionText(input string) string {
	if strings.TrimSpace(input) == "" {
		return "(The player waits.)"
	}
	return input
}

func stateText(w *world.State, v Viewer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d, %s.", w.Turn, w.Time)
	if pc := w.PC(); pc != nil {
		fmt.Fprintf(&b, "\nPlayer character: %s (id %s)", pc.Name, pc.ID)
		if pc.Class != "" {
			fmt.Fprintf(&b, ", %s %s %d", pc.Race, pc.Class, pc.Level)
		}
		fmt.Fprintf(&b, ". HP %d/%d", pc.HP, pc.MaxHP)
		if pc.AC > 0 {
			fmt.Fprintf(&b, ", AC %d", pc.AC)
		}
		fmt.Fprintf(&b, ", %d gold.", pc.Gold)
		if len(pc.Conditions) > 0 {
			fmt.Fprintf(&b, " Conditions: %s.", strings.Join(pc.Conditions, ", "))
		}
		if len(pc.Inventory) > 0 {
			b.WriteString("\nCarrying: ")
			for i, id := range world.SortedKeys(pc.Inventory) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(itemName(w, id))
				if n := pc.Inventory[id]; n > 1 {
					fmt.Fprintf(&b, " ×%d", n)
				}
				if slices.Contains(pc.Equipped, id) {
					b.WriteString(" (equipped)")
				}
			}
			b.WriteString(".")
		}
	}
	if here := w.Here(); here != nil {
		fmt.Fprintf(&b, "\nLocation: %s (id %s). %s", here.Name, here.ID, here.Description)
		var exits []string
		for _, e := range here.Exits {
			if e.Hidden && !v.gm() {
				continue
			}
			to := e.To
			if l := w.Locations[e.To]; l != nil {
				to = l.Name
			}
			x := to
			if e.Direction != "" {
				x = e.Direction + " to " + to
			}
			if e.Locked {
				x += " (locked)"
			}
			if e.Hidden {
				x += " (hidden)"
			}
			exits = append(exits, x)
		}
		if len(exits) > 0 {
			fmt.Fprintf(&b, "\nExits: %s.", strings.Join(exits, "; "))
		}
		if len(here.Items) > 0 {
			var items []string
			for _, id := range world.SortedKeys(here.Items) {
				items = append(items, itemName(w, id))
			}
			fmt.Fprintf(&b, "\nItems here: %s.", strings.Join(items, ", "))
		}
		if v.gm() {
			for _, d := range here.Discoverables {
				if !d.Found {
					fmt.Fprintf(&b, "\nHidden here (GM only): %s", d.Text)
				}
			}
		}
	}
	if c := w.Combat; c != nil {
		fmt.Fprintf(&b, "\nIn combat, round %d. Order:", c.Round)
		for _, cb := range c.Order {
			if ch := w.Characters[cb.ID]; ch != nil {
				fmt.Fprintf(&b, " %s (HP %d/%d);", ch.Name, ch.HP, ch.MaxHP)
			}
		}
	}
	return b.String()
}

func itemName(w *world.State, id string) string {
	if it := w.Items[id]; it != nil {
		return it.Name + " (" + id + ")"
	}
	return id
}

func charactersText(w *world.State, v Viewer) string {
	here := w.Here()
	if here == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range w.CharactersAt(here.ID) {
		if c.ID == w.Player {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("Present:")
		}
		fmt.Fprintf(&b, "\n- %s (id %s, %s)", c.Name, c.ID, c.Kind)
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", c.Description)
		}
		if c.HP <= 0 && c.MaxHP > 0 {
			b.WriteString(" Dead.")
		}
		if c.Hostile {
			b.WriteString(" Hostile.")
		}
		if v.gm() {
			if c.Personality != "" {
				fmt.Fprintf(&b, " Personality: %s.", strings.TrimSuffix(c.Personality, "."))
			}
			if c.Disposition != "" {
				fmt.Fprintf(&b, " Disposition: %s.", c.Disposition)
			}
			fmt.Fprintf(&b, " Opinion of the player: %d.", w.Perception(c.ID))
			if len(c.Knowledge) > 0 {
				fmt.Fprintf(&b, " Knows: %s.", strings.Join(c.Knowledge, "; "))
			}
			if c.Secret != "" && !c.SecretRevealed {
				fmt.Fprintf(&b, " SECRET (never reveal unless a tool does): %s", c.Secret)
			}
		} else if c.Secret != "" && c.SecretRevealed {
			fmt.Fprintf(&b, " Revealed: %s", c.Secret)
		}
	}
	return b.String()
}

func questsText(w *world.State, v Viewer) string {
	var b strings.Builder
	for _, id := range world.SortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Status != "active" && !(v.gm() && q.Status == "available") {
			continue
		}
		fmt.Fprintf(&b, "\n- Quest %s (id %s, %s)", q.Name, q.ID, q.Status)
		for _, o := range q.Objectives {
			mark := " "
			if o.Done {
				mark = "x"
			}
			fmt.Fprintf(&b, "\n  [%s] %s", mark, o.Text)
		}
	}
	for _, id := range world.SortedKeys(w.Threads) {
		t := w.Threads[id]
		if t.Status == "open" && v.gm() {
			fmt.Fprintf(&b, "\n- Thread %s: %s", t.Title, t.Stakes)
		}
	}
	for _, id := range world.SortedKeys(w.Clocks) {
		c := w.Clocks[id]
		if v.gm() {
			fmt.Fprintf(&b, "\n- Clock %s: %d/%d", c.Name, c.Value, c.Max)
			if c.Every != "" {
				fmt.Fprintf(&b, ", ticks every %s of game time", c.Every)
			}
			switch {
			case c.Fired:
				b.WriteString(" (full: it has happened)")
			case c.OnFull != "":
				fmt.Fprintf(&b, " (when full: %s)", c.OnFull)
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Quests, threads and clocks:" + b.String()
}

// consequencesText lists pending consequences, those the action mentions
// first (GM only).
func consequencesText(w *world.State, action string) string {
	words := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(action), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(f) > 3 {
			words[f] = true
		}
	}
	type cq struct {
		c       *world.Consequence
		matched bool
	}
	var all []cq
	for _, id := range world.SortedKeys(w.Consequences) {
		c := w.Consequences[id]
		if c.Triggered {
			continue
		}
		m := false
		for _, f := range strings.FieldsFunc(strings.ToLower(c.Trigger+" "+c.Target), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if words[f] {
				m = true
				break
			}
		}
		all = append(all, cq{c, m})
	}
	slices.SortStableFunc(all, func(a, b cq) int {
		switch {
		case a.matched == b.matched:
			return 0
		case a.matched:
			return -1
		}
		return 1
	})
	var b strings.Builder
	for i, c := range all {
		if i == 10 {
			break
		}
		mark := ""
		if c.matched {
			mark = " [the player's action may trigger this]"
		}
		fmt.Fprintf(&b, "\n- When %s: %s%s", c.c.Trigger, c.c.Description, mark)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	var soon []*world.ScheduledEvent
	for _, id := range world.SortedKeys(w.Scheduled) {
		if ev := w.Scheduled[id]; !ev.Fired {
			soon = append(soon, ev)
		}
	}
	slices.SortStableFunc(soon, func(a, b *world.ScheduledEvent) int { return int(a.At - b.At) })
	for i, ev := range soon {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "\n- Scheduled for %s (in %s): %s", ev.At, span(ev.At-w.Time), ev.Description)
	}
	if b.Len() == 0 {
		return ""
	}
	return "Pending consequences and scheduled events (GM only; they happen when their trigger or time comes):" + b.String()
}

// span says a stretch of game time the way a GM reads it: "2h 10m".
func span(d world.GameTime) string {
	if d <= 0 {
		return "now"
	}
	var parts []string
	if days := d / world.Day; days > 0 {
		parts = append(parts, fmt.Sprintf("%dd", days))
	}
	if h := d % world.Day / world.Hour; h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m := d % world.Hour; m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	return strings.Join(parts, " ")
}

func whispersText(w *world.State, v Viewer) string {
	var b strings.Builder
	for _, id := range world.SortedKeys(w.Whispers) {
		wh := w.Whispers[id]
		switch {
		case wh.Revealed:
			fmt.Fprintf(&b, "\n- %s told %s: %s", wh.From, wh.To, wh.Text)
		case v.gm():
			fmt.Fprintf(&b, "\n- [SECRET - DO NOT REVEAL DIRECTLY] %s to %s: %s", wh.From, wh.To, wh.Text)
		case v.Character != "" && (wh.To == v.Character || wh.From == v.Character):
			fmt.Fprintf(&b, "\n- [SECRET - DO NOT REVEAL DIRECTLY] %s to %s: %s", wh.From, wh.To, wh.Text)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Whispers:" + b.String()
}
