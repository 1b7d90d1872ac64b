package offlinegm

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Narrate tells a turn's outcomes, emitting one paragraph at a time.
func (g *GM) Narrate(ctx context.Context, n rules.Narration, emit func(string)) (string, error) {
	if emit == nil {
		emit = func(string) {}
	}
	t := &teller{w: n.World, emit: emit, verb: firstVerb(n.Input)}
	if n.Rejection != nil && len(n.Resolutions) == 0 {
		t.para(sentence(n.Rejection.Reason))
		return t.b.String(), nil
	}
	for _, res := range n.Resolutions {
		if err := ctx.Err(); err != nil {
			return t.b.String(), err
		}
		for i := range res.Outcomes {
			t.outcome(&res.Outcomes[i])
		}
	}
	if n.Rejection != nil {
		t.para(sentence(n.Rejection.Reason))
	}
	if t.b.Len() == 0 {
		t.para("Nothing much happens.")
	}
	return t.b.String(), nil
}

// teller accumulates the narration of one turn.
type teller struct {
	w    *world.State
	emit func(string)
	b    strings.Builder
	verb string // the first word of the player's input, cleaned
}

// firstVerb is the verb the player's input begins with, after politeness.
func firstVerb(input string) string {
	c := clean(strings.ToLower(input))
	if i := strings.IndexAny(c, ",;"); i >= 0 {
		c = c[:i]
	}
	return c
}

// senses are the verbs told as senses rather than a search.
var senses = map[string]string{"listen": "listen", "eavesdrop": "listen", "smell": "breathe in", "sniff": "breathe in",
	"touch": "feel about", "feel": "feel about", "taste": "taste the air", "watch": "watch", "observe": "watch", "sit": "listen", "keep": "watch"}

// ambience is what the senses bring at a location: its atmosphere, else
// the first sentence of its description.
func (t *teller) ambience(id string) string {
	l := t.w.Locations[id]
	if l == nil {
		return ""
	}
	return cmpOr(l.Atmosphere, firstSentence(l.Description))
}

// para emits one paragraph; paragraphs are separated by a blank line.
func (t *teller) para(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if t.b.Len() > 0 {
		s = "\n" + s
	}
	s += "\n"
	t.b.WriteString(s)
	t.emit(s)
}

func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	s = string(r)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "\"") {
		s += "."
	}
	return s
}

// pick chooses among variants by hashing stable inputs.
func pick(options []string, keys ...any) string {
	h := fnv.New32a()
	for _, k := range keys {
		fmt.Fprint(h, k, "|")
	}
	return options[int(h.Sum32()%uint32(len(options)))]
}

func (t *teller) name(id string) string {
	if t.w == nil {
		return id
	}
	if id == t.w.Player {
		return "you"
	}
	if c := t.w.Characters[id]; c != nil {
		return c.Name
	}
	if l := t.w.Locations[id]; l != nil {
		return l.Name
	}
	if it := t.w.Items[id]; it != nil {
		return it.Name
	}
	if q := t.w.Quests[id]; q != nil {
		return q.Name
	}
	return id
}

func (t *teller) item(id string) *world.Item {
	if t.w == nil {
		return nil
	}
	return t.w.Items[id]
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i, r := range s {
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			return s[:i+1]
		}
	}
	return s
}

func title(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// view describes a location: heading, text, who and what is here, exits.
func (t *teller) view(id string, full bool) {
	l := t.w.Locations[id]
	if l == nil {
		return
	}
	t.para("== " + title(l.Name) + " ==")
	switch {
	case full || l.Atmosphere == "":
		if full {
			t.para(l.Description)
		} else {
			t.para(firstSentence(l.Description))
		}
	default:
		t.para(l.Atmosphere)
	}
	var lines []string
	for _, c := range t.w.CharactersAt(l.ID) {
		switch {
		case c.HasCondition("dead") || !c.Alive():
			lines = append(lines, fmt.Sprintf("The body of %s lies here.", c.Name))
		case c.Hostile:
			lines = append(lines, fmt.Sprintf("%s is here, and means you harm.", c.Name))
		default:
			d := firstSentence(c.Description)
			if d != "" && len(d) < 160 {
				lines = append(lines, fmt.Sprintf("%s is here. %s", c.Name, d))
			} else {
				lines = append(lines, fmt.Sprintf("%s is here.", c.Name))
			}
		}
	}
	var items []string
	for _, iid := range world.SortedKeys(l.Items) {
		if it := t.w.Items[iid]; it != nil && l.Items[iid] > 0 {
			if n := l.Items[iid]; n > 1 {
				items = append(items, fmt.Sprintf("%d × %s", n, it.Name))
			} else {
				items = append(items, it.Name)
			}
		}
	}
	if len(items) > 0 {
		lines = append(lines, "You see: "+list(items, "and")+".")
	}
	lines = append(lines, "Exits: "+rules.ExitList(t.w, l)+".")
	t.para(strings.Join(lines, "\n"))
}

func bracket(c *rules.CheckResult, label string) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("[%s %d vs %d — %s]", label, c.Total, c.Target, strings.ReplaceAll(string(c.Degree), "_", " "))
}

func skillLabel(c *rules.CheckResult) string {
	s := c.Skill
	if s == "" {
		s = c.Ability
	}
	return title(strings.ReplaceAll(s, "_", " "))
}

func (t *teller) hp(id string) string { return t.hpAfter(id, nil) }

// hpAfter shows a character's hit points as an outcome left them (its last
// HPChanged), else as they are now.
func (t *teller) hpAfter(id string, o *rules.Outcome) string {
	c := t.w.Characters[id]
	if c == nil || c.MaxHP == 0 { // no hit points to show, not 0/0
		return ""
	}
	hp := c.HP
	if o != nil {
		for _, e := range o.Effects {
			if h, ok := e.(world.HPChanged); ok && h.Target == id {
				hp = h.To
			}
		}
	}
	who := c.Name
	if id == t.w.Player {
		who = "You"
	}
	return fmt.Sprintf("%s: %d/%d HP", who, hp, c.MaxHP)
}

func (t *teller) outcome(o *rules.Outcome) {
	pc := t.w.Player
	switch o.Action {
	case "look":
		switch {
		case o.Item != "":
			it := t.item(o.Item)
			if it == nil {
				break
			}
			t.para(strings.TrimSpace(it.Name + ". " + it.Description + " " + it.Flavor))
		case t.w.Locations[o.Target] != nil && o.Details["exit"] == nil:
			t.view(o.Target, true)
		case t.w.Locations[o.Target] != nil:
			text := sentence(o.Text)
			if here := t.w.Here(); here != nil {
				if e, ok := here.Exit(o.Target); ok && e.Locked {
					text += " It is locked; it needs a key."
				} else {
					text += fmt.Sprintf(" It leads to %s.", t.name(o.Target))
				}
			}
			t.para(text)
		case t.w.Characters[o.Target] != nil:
			c := t.w.Characters[o.Target]
			desc := c.Description
			if desc == "" {
				desc = "Nothing about them stands out."
			}
			extra := ""
			switch {
			case c.HasCondition("dead"):
				extra = " They are dead."
			case c.Hostile:
				extra = " They watch you with open hostility."
			case c.MaxHP > 0 && c.HP < c.MaxHP:
				extra = " They are wounded."
			case c.Disposition != "":
				extra = " They seem " + c.Disposition + "."
			}
			t.para(c.Name + ". " + desc + extra)
		default:
			t.para(o.Text)
		}
	case "move":
		first, _ := o.Details["first_visit"].(bool)
		if o.Actor == pc {
			if held, _ := o.Details["dragging"].([]string); len(held) > 0 {
				var names []string
				for _, id := range held {
					names = append(names, t.name(id))
				}
				t.para("You haul " + rules.List(names, "and") + " along with you, slowly.")
			}
			t.view(o.Target, first)
		} else {
			t.para(o.Text)
		}
	case "unlock":
		t.para(fmt.Sprintf("You fit %s to the lock; it turns with a clunk, and the way to %s stands open.", t.name(o.Item), t.name(o.Target)))
	case "talk":
		npc := t.w.Characters[o.Target]
		if npc == nil {
			t.para(o.Text)
			return
		}
		switch {
		case o.Quote != "":
			t.para(fmt.Sprintf("%s: \"%s\"", npc.Name, strings.Trim(o.Quote, "\" ")))
		case o.Details["unknown_topic"] != nil:
			form := pick([]string{
				"%s shakes their head. \"I know nothing of %s.\"",
				"%s frowns. \"%s? Can't help you there.\"",
				"%s shrugs. \"Ask someone else about %s.\"",
			}, t.w.Turn, npc.ID, o.Details["unknown_topic"])
			topic := fmt.Sprint(o.Details["unknown_topic"])
			if pronouns[strings.ToLower(topic)] {
				// A pronoun with no one to stand for: ask, never echo it.
				t.para(fmt.Sprintf("%s frowns. \"Who do you mean?\"", npc.Name))
			} else if len(strings.Fields(topic)) > 2 || strings.ContainsAny(topic, "?!") {
				// Never hand the player's sentence back to them.
				form = pick([]string{"%s shakes their head. \"I can't help you with that.\"", "%s frowns. \"Not something I know about.\""}, t.w.Turn, npc.ID)
				t.para(fmt.Sprintf(form, npc.Name))
			} else {
				t.para(fmt.Sprintf(form, npc.Name, topic))
			}
		default:
			form := pick([]string{"%s looks at you and waits.", "%s gives you a guarded nod.", "%s waits for you to speak."}, t.w.Turn, npc.ID)
			t.para(fmt.Sprintf(form, npc.Name))
		}
		if topics, ok := o.Details["topics"].([]string); ok && len(topics) > 0 && o.Details["topic"] == nil && o.Details["unknown_topic"] == nil && o.Quote == npc.Greeting {
			var ts []string
			for _, tp := range topics {
				ts = append(ts, t.topicName(tp))
			}
			t.para(fmt.Sprintf("(You could ask %s about %s.)", firstName(npc.Name), list(ts, "or")))
		}
	case "quest_started":
		q := t.w.Quests[o.Target]
		if q != nil {
			t.para(fmt.Sprintf("★ New quest: %s. %s", q.Name, firstSentence(q.Description)))
		}
	case "objective_completed":
		t.para("✓ " + o.Text)
	case "quest_completed":
		t.para("★ " + o.Text)
	case "quest_failed":
		t.para("✗ " + o.Text)
	case "search":
		found, _ := o.Details["found"].([]string)
		if sense, ok := senses[strings.Fields(t.verb + " x")[0]]; ok && o.Check != nil {
			if len(found) > 0 {
				t.para(fmt.Sprintf("You %s, patient and still, and notice something. %s %s", sense, strings.Join(found, " "), bracket(o.Check, skillLabel(o.Check))))
			} else {
				t.para(fmt.Sprintf("You %s a while. %s Nothing more than that. %s", sense, sentence(t.ambience(o.Target)), bracket(o.Check, skillLabel(o.Check))))
			}
			return
		}
		if len(found) > 0 {
			t.para(pick([]string{"You search carefully.", "You take your time and search every corner.", "You search, patient and thorough."}, t.w.Turn) + " " + strings.Join(found, " ") + " " + bracket(o.Check, skillLabel(o.Check)))
		} else {
			t.para(pick([]string{"You search the place but turn up nothing new.", "Your search finds nothing of note.", "Nothing here rewards a closer look."}, t.w.Turn) + " " + bracket(o.Check, skillLabel(o.Check)))
		}
	case "take_item":
		it := t.item(o.Item)
		if it == nil {
			t.para(o.Text)
			return
		}
		what := it.Name
		if o.Amount > 1 {
			what = fmt.Sprintf("%d × %s", o.Amount, it.Name)
		}
		from := ""
		if c := t.w.Characters[o.Target]; c != nil {
			from = " from " + c.Name
		}
		text := fmt.Sprintf("You take %s%s.", what, from)
		if it.Flavor != "" {
			text += " " + it.Flavor
		} else if d := firstSentence(it.Description); d != "" && len(d) < 200 {
			text += " " + d
		}
		t.para(text)
	case "take_gold":
		t.para(fmt.Sprintf("You take %d gold from %s.", o.Amount, t.name(o.Target)))
	case "loot":
		t.para("You search " + t.name(o.Target) + " and take what is worth taking: " + strings.SplitN(o.Text, ": ", 2)[len(strings.SplitN(o.Text, ": ", 2))-1])
	case "give_item":
		if o.Actor != pc {
			t.para(fmt.Sprintf("%s gives you %s.", t.name(o.Actor), t.name(o.Item)))
		} else {
			t.para(fmt.Sprintf("You hand %s to %s.", t.name(o.Item), t.name(o.Target)))
		}
	case "give_gold":
		v := strings.Fields(t.verb + " x")
		if (v[0] == "buy" || v[0] == "order" || v[0] == "purchase") && len(v) > 2 {
			what, _, _ := strings.Cut(strings.Join(v[1:len(v)-1], " "), " from ")
			what, _, _ = strings.Cut(what, " for ")
			t.para(fmt.Sprintf("You pay %s %d gold for %s, and it is yours.", t.name(o.Target), o.Amount, what))
			return
		}
		t.para(fmt.Sprintf("You give %d gold to %s.", o.Amount, t.name(o.Target)))
	case "drop_item":
		t.para(fmt.Sprintf("You set down %s.", t.name(o.Item)))
	case "equip_item":
		if strings.Contains(o.Text, "puts away") {
			t.para(fmt.Sprintf("You put away %s.", t.name(o.Item)))
		} else {
			t.para(fmt.Sprintf("You ready %s.", t.name(o.Item)))
		}
	case "use_item":
		it := t.item(o.Item)
		if it == nil {
			t.para(o.Text)
			return
		}
		text := fmt.Sprintf("You use %s.", it.Name)
		if o.Target != "" && t.w.Characters[o.Target] == nil && t.w.Locations[o.Target] == nil && t.w.Items[o.Target] == nil {
			text = fmt.Sprintf("You use %s on %s.", it.Name, o.Target)
		}
		if it.Type == "consumable" {
			text = fmt.Sprintf("You drink %s.", it.Name)
		}
		if it.Flavor != "" {
			text += " " + it.Flavor
		}
		if o.Amount > 0 && strings.Contains(o.Text, "hit points") {
			text += fmt.Sprintf(" You regain %d hit points. [%s]", o.Amount, t.hp(o.Target))
		} else if strings.Contains(o.Text, "→") {
			text += " [" + o.Text[strings.Index(o.Text, ":")+2:] + "]"
		} else if strings.Contains(o.Text, "no longer") {
			text += " " + sentence(strings.Replace(o.Text[strings.Index(o.Text, ";")+2:], t.w.Characters[pc].Name+" is", "you are", 1))
		}
		t.para(text)
	case "rest":
		if o.Details["rest"] == "long" {
			t.para(fmt.Sprintf("You sleep through the long hours and wake restored. [%s]", t.hp(pc)))
		} else {
			t.para(fmt.Sprintf("You rest for an hour, binding wounds and catching your breath (+%d HP). [%s]", o.Amount, t.hp(pc)))
		}
	case "check", "save":
		what := "You try"
		if o.Check != nil {
			if reason := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(o.Text, " to ", 2)[len(strings.SplitN(o.Text, " to ", 2))-1], "")); o.Action == "check" && strings.Contains(o.Text, " to ") {
				what = "You try to " + strings.SplitN(reason, ":", 2)[0]
			}
			result := "and fail."
			if o.Check.Succeeded() {
				result = "and succeed."
				if o.Check.Degree == rules.Partial {
					result = "and manage it, at a cost."
				}
			}
			t.para(what + " " + result + " " + bracket(o.Check, skillLabel(o.Check)))
		} else {
			t.para(o.Text)
		}
	case "attack", "enemy_attack":
		t.attack(o)
	case "provoke":
		t.para(fmt.Sprintf("%s turns on you, weapon out!", t.name(o.Target)))
	case "combat_started":
		t.para("⚔ " + o.Text)
	case "combat_round":
		// The round number is shown in the status line.
	case "combat_ended":
		switch o.Details["outcome"] {
		case world.Victory:
			t.para(pick([]string{"The last of your foes falls. The fight is over.", "Silence returns. You are the one left standing.", "It is over. You lower your weapon, breathing hard."}, t.w.Turn))
		case world.Defeat:
			t.para("Your strength fails and the world goes dark.")
		default:
			t.para(o.Text)
		}
	case "defeat", "death_save", "stabilise":
		t.para(o.Text)
		if pc := t.w.PC(); pc != nil && pc.HasCondition("dead") {
			t.para("(You are dead. /restore N goes back to an earlier turn; /restore N --reroll lets the dice fall anew.)")
		} else if rules.Down(pc) && !pc.HasCondition("stable") && o.Action == "defeat" {
			t.para("(You are dying at 0 hit points. Each turn is a death saving throw — type wait; three successes and you are stable.)")
		} else if rules.Down(pc) && pc.HasCondition("stable") && o.Action != "stabilise" {
			t.para("(You are stable. Type wait to come to.)")
		}
	case "flee":
		if o.Check != nil && o.Check.Succeeded() {
			t.para(fmt.Sprintf("You break away and run for %s! %s", t.name(o.Target), bracket(o.Check, skillLabel(o.Check))))
			t.view(o.Target, false)
		} else {
			t.para("You try to break away, but you are cut off. " + bracket(o.Check, skillLabel(o.Check)))
		}
	case "grapple", "shove", "escape":
		t.contest(o)
	case "release":
		if o.Actor == pc {
			var names []string
			for _, e := range o.Effects {
				if r, ok := e.(world.ConditionRemoved); ok {
					names = append(names, t.name(r.Target))
				}
			}
			t.para("You let go of " + rules.List(names, "and") + ".")
		} else {
			t.para(o.Text)
		}
	case "encounter", "consequence", "event":
		t.para(o.Text)
	case "whisper":
		for _, e := range o.Effects {
			if ws, ok := e.(world.WhisperSent); ok && ws.Whisper.To == pc {
				if len(t.w.Party) > 0 {
					// The whole table reads the narrative: the whisper
					// itself goes to its reader alone.
					t.para("(Something is whispered to " + t.name(pc) + " alone.)")
					continue
				}
				t.para("(A whisper only you hear: " + ws.Whisper.Text + ")")
			}
		}
	case "roll":
		t.para(o.Text)
	case "time":
		lead := "Time passes."
		switch strings.Fields(t.verb + " x")[0] {
		case "pray", "kneel", "light", "make", "say", "offer":
			lead = "You bow your head and pray a while, and the quiet settles around you."
		case "sit", "warm", "settle", "take":
			lead = "You sit a while and let the place go on around you."
		case "wait", "z", "rest", "stay", "linger", "bide", "pass":
			lead = "You wait."
		}
		t.para(fmt.Sprintf("%s It is %s, %s.", lead, t.w.Time.PartOfDay(), t.w.Time))
	case "skipped", "fact_recorded", "stat", "clock", "thread", "scene_changed":
		if o.Action == "stat" {
			if d := t.w.StatDef(o.Target, fmt.Sprint(o.Details["stat"])); d != nil && d.Hidden {
				return // hidden stats change silently
			}
		}
		if o.Action == "stat" || o.Action == "clock" {
			t.para(o.Text)
		}
	default:
		t.para(o.Text)
	}
}

// topicName says a conversation topic the way the game's choices do:
// people by name, anything else as "the <topic>".
func (t *teller) topicName(key string) string {
	if t.w != nil {
		if c := t.w.Characters[key]; c != nil {
			return c.Name
		}
	}
	return "the " + strings.ReplaceAll(key, "_", " ")
}

func (t *teller) attack(o *rules.Outcome) {
	pc := t.w.Player
	weapon, _ := o.Details["weapon"].(string)
	target := t.w.Characters[o.Target]
	attacker := t.w.Characters[o.Actor]
	if target == nil || attacker == nil || o.Check == nil {
		t.para(o.Text)
		return
	}
	dead := target.HasCondition("dead") || (!target.Alive() && target.ID != pc)
	key := []any{t.w.Turn, o.Actor, o.Target, o.Check.Total}
	var line string
	if o.Actor == pc {
		switch {
		case !o.Check.Succeeded():
			line = pick([]string{
				"You swing your %[2]s at %[1]s, but the blow goes wide.",
				"%[1]s twists aside and your %[2]s cuts only air.",
				"You lunge with your %[2]s; %[1]s knocks it away.",
			}, key...)
		case dead:
			line = pick([]string{
				"Your %[2]s finds its mark and %[1]s crumples to the ground.",
				"One last blow with your %[2]s, and %[1]s falls and does not rise.",
				"%[1]s staggers from your %[2]s, then collapses.",
			}, key...)
		case o.Details["critical"] == true:
			line = pick([]string{
				"A perfect opening! Your %[2]s bites deep into %[1]s.",
				"You read the feint and drive your %[2]s home — a brutal hit on %[1]s.",
			}, key...)
		default:
			line = pick([]string{
				"Your %[2]s strikes %[1]s.",
				"You catch %[1]s with your %[2]s.",
				"Your %[2]s draws blood from %[1]s.",
			}, key...)
		}
		line = fmt.Sprintf(line, target.Name, lower(weapon))
		mech := fmt.Sprintf("[Attack %d vs %d — %s", o.Check.Total, o.Check.Target, strings.ReplaceAll(string(o.Check.Degree), "_", " "))
		if o.Amount > 0 {
			mech += fmt.Sprintf(", %d damage. %s", o.Amount, t.hpAfter(target.ID, o))
		}
		t.para(sentence(line) + " " + mech + "]")
		return
	}
	switch {
	case !o.Check.Succeeded():
		line = pick([]string{
			"%[1]s comes at you with %[2]s, but you turn the blow aside.",
			"%[1]s swings a %[2]s at you and misses.",
			"You duck under %[1]s's %[2]s.",
		}, key...)
	case t.w.Characters[pc] != nil && t.w.Characters[pc].HasCondition("unconscious"):
		line = "%[1]s's %[2]s strikes you down."
	default:
		line = pick([]string{
			"%[1]s's %[2]s catches you.",
			"%[1]s lands a hit with %[2]s.",
			"Pain flares as %[1]s's %[2]s finds you.",
		}, key...)
	}
	line = fmt.Sprintf(line, attacker.Name, lower(weapon))
	mech := fmt.Sprintf("[%s attacks: %d vs AC %d — %s", attacker.Name, o.Check.Total, o.Check.Target, strings.ReplaceAll(string(o.Check.Degree), "_", " "))
	if o.Amount > 0 {
		mech += fmt.Sprintf(", %d damage. %s", o.Amount, t.hpAfter(pc, o))
	}
	t.para(sentence(line) + " " + mech + "]")
}

func lower(s string) string {
	if s == "" {
		return "weapon"
	}
	return strings.ToLower(s)
}

// contest tells a grapple, shove or escape the player made, with both
// totals: a contest is won only by beating the other's.
func (t *teller) contest(o *rules.Outcome) {
	if o.Actor != t.w.Player || o.Check == nil {
		t.para(o.Text)
		return
	}
	who, won := t.name(o.Target), o.Check.Succeeded()
	var s string
	switch {
	case o.Action == "grapple" && won:
		s = fmt.Sprintf("You seize %s and hold on: %s is grappled and cannot move.", who, who)
	case o.Action == "grapple":
		s = fmt.Sprintf("You grab at %s, who twists free.", who)
	case o.Action == "shove" && won:
		s = fmt.Sprintf("You shove %s off their feet: %s is prone.", who, who)
	case o.Action == "shove":
		s = fmt.Sprintf("You shove %s, who keeps their feet.", who)
	case won:
		s = fmt.Sprintf("You break free of %s's grip.", who)
	default:
		s = fmt.Sprintf("You strain against %s's grip and stay held.", who)
	}
	verdict := "you lose"
	if won {
		verdict = "you win"
	}
	t.para(fmt.Sprintf("%s [%s %d vs %s %v — %s]", s, skillLabel(o.Check), o.Check.Total,
		title(fmt.Sprint(o.Details["against_skill"])), o.Details["against"], verdict))
}
