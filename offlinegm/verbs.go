package offlinegm

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// The verbs of text adventures and the table that the older grammar in
// parse does not cover. Every one maps to an existing rules intent, so the
// engine still decides; what cannot be done here gets a plain reason.

var (
	knowAbout = regexp.MustCompile(`^(?:what do (?:i|we) know about|what (?:do|did) (?:i|we) learn about|recall what (?:i|we) know about|what about|remind me about|think about|recall|remember) (.+)$`)
	waitFor   = regexp.MustCompile(`^(?:wait|rest|sit|stay|linger) (?:for )?(an?|\d+|one|two|three|four|five|six) (minutes?|hours?|mins?|h|m)$`)
	waitUntil = regexp.MustCompile(`^(?:wait|rest|sleep|sit|stay|linger|hide) (?:here )?(?:until|till|til|for) (?:the )?(dawn|morning|daybreak|sunrise|noon|midday|evening|dusk|sunset|dark|nightfall|night|midnight)$`)
	senseVerb = regexp.MustCompile(`^(listen|smell|sniff|touch|feel|taste|eavesdrop|watch|observe|keep watch|keep an eye out)\b\s*(?:to |at |for |on |the )?(.*)$`)
	sitVerb   = regexp.MustCompile(`^(?:sit|sit down|take a seat|warm (?:myself|up)|settle)\b(.*)$`)
	numbers   = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
	hours     = map[string]int{"dawn": 6, "morning": 6, "daybreak": 6, "sunrise": 6, "noon": 12, "midday": 12,
		"evening": 19, "dusk": 19, "sunset": 19, "dark": 20, "nightfall": 20, "night": 21, "midnight": 24}
	greetings = map[string]bool{"hello": true, "hi": true, "hey": true, "good evening": true, "good morning": true,
		"good day": true, "good afternoon": true, "greetings": true, "thanks": true, "thank you": true}
)

// verbs reads the verbs added for issue 20; ok is false when none applies.
func verbs(w *world.State, c string) (rules.Interpretation, bool) {
	switch c {
	case "where can i go", "where can i go from here", "exits", "which way", "where now":
		return reply(where(w)), true
	case "what can i do here", "what should i do", "what now", "hint", "hints", "i'm stuck", "im stuck", "what next":
		return reply(hereIdeas(w, "")), true
	case "check my gear", "check my pack", "check my bag", "check my inventory", "count my gold", "check my purse",
		"count my money", "how much gold do i have", "my gold":
		return rules.Interpretation{Query: "inventory"}, true
	case "my hp", "check my wounds", "how am i", "how hurt am i", "my health", "my stats":
		return rules.Interpretation{Query: "sheet"}, true
	case "think", "ponder", "reflect", "what do i know":
		return reply(recall(w, "")), true
	case "thank you", "thanks", "sorry", "goodbye", "bye", "farewell":
		return talkToOnly(w, ""), true
	case "surrender", "yield", "give up", "i surrender", "beg for mercy":
		return surrender(w), true
	case "sit and rest", "sit down and rest":
		return one(rules.Rest{Rest: "short"}), true
	case "pray", "kneel and pray", "say a prayer", "offer a prayer":
		return one(rules.AdvanceTime{Duration: "10m", Reason: "praying"}), true
	case "knock", "knock on the door", "knock at the door", "knock loudly", "bang on the door":
		return knock(w, "the door"), true
	case "shop", "trade", "browse", "what is for sale", "what's for sale", "what do you sell":
		return buy(w, "", ""), true
	case "sing", "sing a song", "dance", "whistle", "play a tune", "hum", "juggle", "tell a story", "recite a poem":
		return one(rules.Check{Skill: "performance", DC: 10, Reason: c}), true
	case "shout", "yell", "call out", "scream", "yell for help", "shout for help", "call for help", "cry for help":
		return shout(w), true
	case "g", "again", "repeat":
		return reply("Say it again in full — I don't keep the last command. " + hereIdeas(w, "")), true
	}
	if in, ok := wrestle(w, c); ok {
		return in, true
	}
	if m := knowAbout.FindStringSubmatch(c); m != nil {
		return reply(recall(w, m[1])), true
	}
	if m := waitUntil.FindStringSubmatch(c); m != nil {
		if h, _ := w.Time.Clock(); w != nil && (m[1] == "dark" || m[1] == "night" || m[1] == "nightfall") && (h >= 20 || h < 5) {
			return reply("It is already dark. " + hereIdeas(w, "")), true
		}
		if m[1] == "dawn" || m[1] == "morning" || m[1] == "daybreak" || m[1] == "sunrise" {
			if strings.HasPrefix(c, "rest") || strings.HasPrefix(c, "sleep") {
				return one(rules.Rest{Rest: "long"}), true
			}
		}
		return one(rules.AdvanceTime{Duration: until(w, hours[m[1]]), Reason: "waiting for " + m[1]}), true
	}
	if m := waitFor.FindStringSubmatch(c); m != nil {
		n, ok := numbers[m[1]]
		if !ok {
			n, _ = strconv.Atoi(m[1])
		}
		unit := "m"
		if strings.HasPrefix(m[2], "h") {
			unit = "h"
		}
		return one(rules.AdvanceTime{Duration: fmt.Sprintf("%d%s", max(n, 1), unit), Reason: "waiting"}), true
	}
	if rest, ok := after(c, "rest until ", "sleep until ", "rest till ", "sleep till "); ok && rest != "" {
		return one(rules.Rest{Rest: "long"}), true
	}
	// "sit by the fire and listen" is listening.
	if strings.HasSuffix(c, " and listen") || strings.HasSuffix(c, " and watch") || strings.HasSuffix(c, " and eavesdrop") {
		return one(rules.Search{Skill: "perception"}), true
	}
	if m := senseVerb.FindStringSubmatch(c); m != nil && !strings.HasPrefix(c, "watch out") {
		return sense(w, m[1], m[2]), true
	}
	if m := sitVerb.FindStringSubmatch(c); m != nil && (m[1] == "" || strings.HasPrefix(m[1], " ")) {
		return one(rules.AdvanceTime{Duration: "10m", Reason: "sitting" + m[1]}), true
	}
	if rest, ok := after(c, "pray ", "kneel ", "make an offering ", "light a candle "); ok {
		return one(rules.AdvanceTime{Duration: "10m", Reason: "praying " + rest}), true
	}
	if c == "light a candle" {
		return one(rules.AdvanceTime{Duration: "10m", Reason: "praying"}), true
	}
	if rest, ok := after(c, "knock on ", "knock at ", "knock ", "bang on ", "rap on "); ok {
		return knock(w, rest), true
	}
	if rest, ok := after(c, "read "); ok {
		return read(w, rest), true
	}
	if rest, ok := after(c, "buy ", "order ", "purchase "); ok {
		what, from, _ := cut(rest, "from")
		what, _, _ = cut(what, "for")
		return buy(w, what, from), true
	}
	if rest, ok := after(c, "sell ", "trade ", "barter ", "haggle "); ok {
		if who, ok := strings.CutPrefix(rest, "with "); ok {
			return buy(w, "", who), true
		}
		what, to, _ := cut(rest, "to")
		what, _, _ = cut(what, "with")
		return sell(w, what, to), true
	}
	if rest, ok := after(c, "show "); ok {
		return show(w, rest), true
	}
	if rest, ok := after(c, "tip ", "donate ", "offer a coin to ", "give a coin to "); ok {
		return donate(w, rest), true
	}
	if rest, ok := after(c, "tell "); ok {
		if who, what, ok := cut(rest, "that"); ok {
			return one(rules.Talk{NPC: who, Topic: topicOf(w, what)}), true
		}
	}
	if rest, ok := after(c, "thank ", "apologise to ", "apologize to ", "say sorry to ", "wave to ", "wave at ", "nod to ", "nod at ",
		"bow to ", "smile at ", "introduce myself to ", "hug ", "embrace ", "comfort ", "console ", "forgive ", "confess to ",
		"approach ", "say goodbye to ", "bid farewell to ", "help ", "reassure ", "befriend ", "flirt with ", "wink at "); ok {
		who := strings.TrimSuffix(strings.TrimSuffix(rest, " for everything"), " for the help")
		if strings.HasPrefix(c, "help ") && !isPerson(w, who) {
			return rules.Interpretation{}, false
		}
		return one(rules.Talk{NPC: who}), true
	}
	if rest, ok := after(c, "insight on ", "read the intentions of ", "size up ", "judge ", "watch the face of "); ok {
		return one(rules.Check{Skill: "insight", DC: 12, Target: rest, Reason: "read " + nameOf(w, rest)}), true
	}
	if rest, ok := after(c, "calm ", "soothe ", "settle "); ok {
		who := strings.TrimSuffix(rest, " down")
		if isPerson(w, who) {
			return one(rules.Check{Skill: "persuasion", DC: 12, Target: who, Reason: "calm " + nameOf(w, who)}), true
		}
		return one(rules.Check{Skill: "animal_handling", DC: 12, Reason: "calm " + who}), true
	}
	if _, ok := after(c, "disarm "); ok {
		return one(rules.Check{Skill: "athletics", DC: 12, Reason: voice(w, c)}), true
	}
	if rest, ok := after(c, "throw ", "toss ", "hurl ", "fling ", "chuck "); ok {
		return throw(w, rest), true
	}
	if rest, ok := after(c, "tie ", "knot ", "fasten ", "secure ", "coil ", "untie ", "unknot ", "lash "); ok {
		item, target, _ := cut(rest, "to")
		if target == "" {
			item, target, _ = cut(rest, "around")
		}
		return one(rules.UseItem{Item: item, Target: target}), true
	}
	if rest, ok := after(c, "follow ", "take the path ", "take the track "); ok {
		return follow(w, rest), true
	}
	if rest, ok := after(c, "climb down ", "clamber down ", "scramble down ", "abseil down ", "rappel down ", "go down ", "descend ", "climb up ", "go up ", "ascend "); ok {
		dir := "down"
		if strings.HasPrefix(c, "climb up") || strings.HasPrefix(c, "go up") || strings.HasPrefix(c, "ascend") {
			dir = "up"
		}
		rest, _, _ = cut(rest, "with")
		rest, _, _ = cut(rest, "using")
		return climb(w, dir, rest), true
	}
	if rest, ok := after(c, "leave ", "exit ", "get out of ", "go out of ", "walk out of "); ok && !strings.HasPrefix(rest, "behind") {
		if w != nil && !isLocationHere(w, rest) {
			if dest, hidden, ok := exitFor(w, rest); ok && !hidden {
				return one(rules.Move{Destination: dest}), true
			}
			if !isLocationHere(w, rest) {
				return rules.Interpretation{}, false
			}
		}
		return interpretLeave(w), true
	}
	if rest, ok := after(c, "close ", "shut ", "lock "); ok {
		return reply(fmt.Sprintf("You pull %s to. Nothing else changes.", rest)), true
	}
	if rest, ok := after(c, "check ", "inspect "); ok {
		if what, _, ok := cut(rest, "for"); ok {
			_ = what
			return one(rules.Search{}), true
		}
	}
	if rest, ok := after(c, "try ", "rattle ", "test "); ok {
		return parse(w, "open "+rest), true
	}
	if rest, ok := after(c, "dive ", "wade ", "swim "); ok {
		return one(rules.Check{Skill: "athletics", DC: 12, Reason: voice(w, "swim "+rest)}), true
	}
	if c == "dive" || c == "wade" {
		return one(rules.Check{Skill: "athletics", DC: 12, Reason: "swim"}), true
	}
	if rest, ok := after(c, "bless ", "heal ", "save "); ok && isPerson(w, strings.TrimSuffix(rest, " me")) {
		return one(rules.Talk{NPC: rest}), true
	}
	// "nell, what did you see" and "bless me, brother": words addressed to
	// someone present.
	if a, b, ok := strings.Cut(c, ", "); ok && w != nil {
		for _, pair := range [][2]string{{a, b}, {b, a}} {
			if isPerson(w, pair[0]) {
				topic := pair[1]
				if greetings[topic] {
					topic = ""
				}
				return one(rules.Talk{NPC: pair[0], Topic: topic}), true
			}
		}
	}
	return rules.Interpretation{}, false
}

func reply(s string) rules.Interpretation { return rules.Interpretation{Reply: s} }

// until is the game time from now to the next hour h (24 is midnight).
func until(w *world.State, h int) string {
	if w == nil {
		return "1h"
	}
	hour, minute := w.Time.Clock()
	mins := (h*60 - (hour*60 + minute) + 24*60) % (24 * 60)
	if mins == 0 {
		mins = 24 * 60
	}
	return fmt.Sprintf("%dm", mins)
}

// where names the ways on from here.
func where(w *world.State) string {
	if w == nil || w.Here() == nil {
		return "You are nowhere in particular."
	}
	return fmt.Sprintf("From %s you can go %s.", w.Here().Name, rules.ExitList(w, w.Here()))
}

// hereIdeas is an in-world list of what can be done here: people, things,
// ways on, and the quest at hand. It never repeats the player's words.
func hereIdeas(w *world.State, lead string) string {
	if w == nil || w.Here() == nil {
		return strings.TrimSpace(lead + " You could look around, or type help for ideas.")
	}
	here := w.Here()
	var ideas []string
	hostile, all := living(w)
	if len(hostile) > 0 {
		ideas = append(ideas, "attack "+firstName(hostile[0].Name), "flee")
	}
	for _, ch := range all {
		if ch.Kind != world.Creature && !ch.Hostile {
			ideas = append(ideas, "talk to "+firstName(ch.Name))
		}
	}
	for _, id := range world.SortedKeys(here.Items) {
		if it := w.Items[id]; it != nil && here.Items[id] > 0 {
			if it.Fixed {
				ideas = append(ideas, "look at the "+strings.ToLower(it.Name))
			} else {
				ideas = append(ideas, "take the "+strings.ToLower(it.Name))
			}
			break
		}
	}
	for _, e := range here.Exits {
		if !e.Hidden && e.Direction != "" {
			ideas = append(ideas, "go "+e.Direction)
		}
	}
	ideas = append(ideas, "search")
	if len(ideas) > 6 {
		ideas = ideas[:6]
	}
	s := fmt.Sprintf("At %s you could %s.", here.Name, list(ideas, "or"))
	if q := activeObjective(w); q != "" {
		s += " Your task: " + q + "."
	}
	if lead != "" {
		s = lead + " " + s
	}
	return s + " (Type help for more.)"
}

func activeObjective(w *world.State) string {
	for _, id := range world.SortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Status != world.QuestActive {
			continue
		}
		for _, o := range q.Objectives {
			if !o.Done {
				return strings.TrimSuffix(lowerFirst(o.Text), ".")
			}
		}
	}
	return ""
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// recall answers "what do I know about X" from what the player has seen:
// facts open to the player, and the people, places and things they name.
func recall(w *world.State, about string) string {
	if w == nil {
		return "You know nothing yet."
	}
	ref := rules.Normalise(strings.TrimSuffix(about, "?"))
	var lines []string
	if ref != "" {
		if ch := findCharacter(w, ref); ch != nil {
			if d := firstSentence(ch.Description); d != "" {
				lines = append(lines, ch.Name+": "+d)
			}
			ref = rules.Normalise(firstName(ch.Name))
		} else if l := findLocation(w, ref); l != nil {
			lines = append(lines, l.Name+": "+firstSentence(l.Description))
		} else if it := findItem(w, ref); it != nil {
			lines = append(lines, it.Name+": "+firstSentence(it.Description))
		}
	}
	for _, id := range world.SortedKeys(w.Facts) {
		f := w.Facts[id]
		if f.Visibility != access.Player || f.Text == "" {
			continue
		}
		if ref == "" || strings.Contains(rules.Normalise(f.Text), ref) || rules.Normalise(f.Subject) == ref {
			lines = append(lines, f.Text)
		}
		if len(lines) >= 5 {
			break
		}
	}
	for _, id := range world.SortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Status == world.QuestActive && ref != "" && strings.Contains(rules.Normalise(q.Name+" "+q.Description), ref) {
			lines = append(lines, "Quest "+q.Name+": "+firstSentence(q.Description))
		}
	}
	if len(lines) == 0 {
		if about == "" {
			return "You turn things over in your mind, but nothing new comes. " + hereIdeas(w, "")
		}
		return fmt.Sprintf("You know nothing yet about %s. Someone here may: ask about it.", strings.TrimPrefix(about, "the "))
	}
	return "You recall:\n  " + strings.Join(lines, "\n  ")
}

func findCharacter(w *world.State, ref string) *world.Character {
	for _, id := range world.SortedKeys(w.Characters) {
		ch := w.Characters[id]
		if id == w.Player {
			continue
		}
		if rules.Normalise(ch.Name) == ref || rules.Normalise(firstName(ch.Name)) == ref || id == ref {
			return ch
		}
		for _, a := range ch.Aliases {
			if rules.Normalise(a) == ref {
				return ch
			}
		}
	}
	return nil
}

func findLocation(w *world.State, ref string) *world.Location {
	for _, id := range world.SortedKeys(w.Locations) {
		l := w.Locations[id]
		if rules.Normalise(l.Name) == ref || id == ref {
			return l
		}
		for _, a := range l.Aliases {
			if rules.Normalise(a) == ref {
				return l
			}
		}
	}
	return nil
}

func findItem(w *world.State, ref string) *world.Item {
	for _, id := range world.SortedKeys(w.Items) {
		it := w.Items[id]
		if id == ref || strings.Contains(rules.Normalise(it.Name), ref) {
			return it
		}
	}
	return nil
}

// isPerson reports whether ref names someone present who can be spoken to.
func isPerson(w *world.State, ref string) bool {
	if w == nil || ref == "" {
		return false
	}
	ch, err := rules.Present(w, ref)
	return err == nil && ch.ID != w.Player && ch.Kind != world.Creature
}

// nameOf says ref as the name of whoever it is, or as it is.
func nameOf(w *world.State, ref string) string {
	if w != nil {
		if ch, err := rules.Present(w, ref); err == nil {
			return ch.Name
		}
	}
	return ref
}

// topicOf picks a conversation topic out of a sentence: a person, place
// or item named in it, else the sentence.
func topicOf(w *world.State, s string) string {
	if w != nil {
		for _, word := range strings.Fields(s) {
			word = strings.Trim(word, ",.'s")
			if len(word) < 3 {
				continue
			}
			if ch := findCharacter(w, word); ch != nil {
				return ch.ID
			}
		}
	}
	return s
}

func surrender(w *world.State) rules.Interpretation {
	hostile, _ := living(w)
	if len(hostile) == 0 {
		return reply("There is no one here to surrender to.")
	}
	boss := hostile[0]
	for _, h := range hostile {
		if h.Kind != world.Creature {
			boss = h
			break
		}
	}
	return reply(fmt.Sprintf("%s shows no sign of taking prisoners. You can fight, flee, or try words: talk to %s.", boss.Name, firstName(boss.Name)))
}

// voice puts the player's words for a check into the narrator's second
// person, with the people named as the story names them: "persuade
// tobiah to give me the key" is told "persuade Tobiah Wick to give you
// the key".
func voice(w *world.State, c string) string {
	words := strings.Fields(c)
	for i, word := range words {
		switch word {
		case "me", "i":
			words[i] = "you"
		case "my":
			words[i] = "your"
		case "myself":
			words[i] = "yourself"
		case "am":
			words[i] = "are"
		default:
			if w != nil && len(word) > 2 {
				if ch, err := rules.Present(w, word); err == nil && ch.ID != w.Player {
					words[i] = ch.Name
				}
			}
		}
	}
	return strings.Join(words, " ")
}

func shout(w *world.State) rules.Interpretation {
	_, all := living(w)
	for _, ch := range all {
		if ch.Kind != world.Creature {
			return one(rules.Talk{NPC: ch.Name})
		}
	}
	if w != nil && w.Here() != nil {
		return reply(fmt.Sprintf("Your voice carries across %s. No one answers.", w.Here().Name))
	}
	return reply("No one answers.")
}

// knock brings whoever is here to the door, or says that no one comes.
func knock(w *world.State, what string) rules.Interpretation {
	_, all := living(w)
	for _, ch := range all {
		if ch.Kind != world.Creature {
			return one(rules.Talk{NPC: ch.Name})
		}
	}
	return reply(fmt.Sprintf("You knock on %s. No one answers. %s", what, exitsHint(w)))
}

// read reads a thing's text: its description, through Look.
func read(w *world.State, what string) rules.Interpretation {
	if strings.HasSuffix(what, "'s face") || strings.HasSuffix(what, "'s mood") || strings.HasSuffix(what, "'s intent") || strings.HasSuffix(what, "'s eyes") {
		who := strings.SplitN(what, "'s ", 2)[0]
		return one(rules.Check{Skill: "insight", DC: 12, Target: who, Reason: "read " + nameOf(w, who)})
	}
	return one(rules.Look{Target: what})
}

// merchant is who sells here: the one person present, or who was named.
func merchant(w *world.State, named string) (string, string) {
	if named != "" {
		return named, ""
	}
	_, all := living(w)
	var people []*world.Character
	for _, ch := range all {
		if ch.Kind != world.Creature && !ch.Hostile {
			people = append(people, ch)
		}
	}
	switch len(people) {
	case 0:
		return "", "There is no one here to trade with."
	case 1:
		return people[0].Name, ""
	}
	return "", "Buy from whom? " + names(people, "or") + "."
}

// buy pays a coin for the small things an inn or stall sells (a drink, a
// meal, a bed); goods the campaign defines are handed over by their
// owners in conversation, so anything else is asked about. Only a trader
// sells: with none here, the player is told where one is, and no turn
// passes.
func buy(w *world.State, what, from string) rules.Interpretation {
	what = strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an ")
	who, why := seller(w, what, from)
	if who == "" {
		return reply(why)
	}
	if _, ok := wares[what]; ok {
		return one(rules.GiveItem{Item: "gold", Qty: 1, To: who})
	}
	if what == "" {
		return one(rules.Talk{NPC: who})
	}
	return one(rules.Talk{NPC: who, Topic: what})
}

// wares are the small things any inn or stall sells for a coin, by the
// word a refusal uses for them.
var wares = map[string]string{
	"drink": "drinks", "ale": "drinks", "beer": "drinks", "round": "drinks", "cup": "drinks", "pint": "drinks",
	"mug": "drinks", "wine": "drinks", "grog": "drinks", "rum": "drinks", "brandy": "drinks",
	"food": "food", "meal": "food", "stew": "food", "bowl of stew": "food", "some stew": "food", "bread": "food",
	"supper": "food", "dinner": "food", "breakfast": "food",
	"room": "beds", "bed": "beds", "a room": "beds", "a bed": "beds",
}

// seller is the trader to buy from: the one named, or the one trader
// present. Without one, why says where a trader can be found.
func seller(w *world.State, what, named string) (string, string) {
	if w == nil {
		return merchant(w, named)
	}
	goods := cmpOr(wares[what], "anything")
	if named != "" {
		ch, err := rules.Present(w, named)
		if err != nil || rules.Trader(ch) {
			// The engine says who is not here.
			return named, ""
		}
		return "", fmt.Sprintf("%s does not sell %s. %s", ch.Name, goods, elsewhere(w))
	}
	_, all := living(w)
	var here []*world.Character
	for _, ch := range all {
		if rules.Trader(ch) {
			here = append(here, ch)
		}
	}
	switch len(here) {
	case 0:
		return "", fmt.Sprintf("Nobody here sells %s. %s", goods, elsewhere(w))
	case 1:
		return here[0].Name, ""
	}
	return "", "Buy from whom? " + names(here, "or") + "."
}

// elsewhere names the traders the world has and where they are.
func elsewhere(w *world.State) string {
	var at []string
	for _, ch := range rules.Traders(w) {
		if l := w.Locations[ch.Location]; l != nil {
			at = append(at, ch.Name+" at "+l.Name)
		}
	}
	if len(at) == 0 {
		return "You know of no one hereabouts who trades."
	}
	verb := "does"
	if len(at) > 1 {
		verb = "do"
	}
	return fmt.Sprintf("%s %s.", strings.Join(at, " or "), verb)
}

func sell(w *world.State, what, to string) rules.Interpretation {
	who, why := merchant(w, to)
	if who == "" {
		return reply(why)
	}
	if w != nil && what != "" && !carried(w, what) {
		return reply(fmt.Sprintf("You have no %s to sell.", strings.TrimPrefix(what, "the ")))
	}
	return reply(fmt.Sprintf("%s is not buying. (No one here trades for goods; you can give things away: give the %s to %s.)",
		nameOf(w, who), strings.TrimPrefix(cmpOr(strings.TrimPrefix(what, "my "), "it"), "the "), firstName(nameOf(w, who))))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// show asks someone about a thing: they say what they know of it. Showing
// hands nothing over.
func show(w *world.State, rest string) rules.Interpretation {
	if item, to, ok := cut(rest, "to"); ok {
		return one(rules.Talk{NPC: to, Topic: itemTopic(w, item)})
	}
	words := strings.Fields(rest)
	for i := 1; i < len(words); i++ {
		who := strings.Join(words[:i], " ")
		if isPerson(w, who) {
			return one(rules.Talk{NPC: who, Topic: itemTopic(w, strings.Join(words[i:], " "))})
		}
	}
	return reply("Show what to whom? Say: show the ledger to Maren.")
}

// itemTopic turns "my potion" into the words a topic is known by.
func itemTopic(w *world.State, item string) string {
	item = strings.TrimPrefix(strings.TrimPrefix(item, "my "), "the ")
	if w != nil {
		if it := findItem(w, rules.Normalise(item)); it != nil {
			for _, word := range strings.Fields(strings.ToLower(it.Name)) {
				if !strings.HasSuffix(word, "'s") && len(word) > 3 {
					item = word
				}
			}
		}
	}
	return item
}

func donate(w *world.State, rest string) rules.Interpretation {
	var n int
	var who string
	switch {
	case strings.HasPrefix(rest, "a coin") || strings.HasPrefix(rest, "one coin") || rest == "":
		n = 1
		_, who, _ = cut(rest, "to")
	default:
		f := strings.Fields(rest)
		who = f[0]
		if len(f) > 1 {
			n, _ = strconv.Atoi(f[1])
		}
	}
	if who == "" {
		var why string
		if who, why = merchant(w, ""); who == "" {
			return reply(why)
		}
	}
	return one(rules.GiveItem{Item: "gold", Qty: max(n, 1), To: who})
}

// throw attacks with a weapon thrown at a foe, hands a thing to a friend,
// or drops it.
func throw(w *world.State, rest string) rules.Interpretation {
	item, target, ok := cut(rest, "at")
	if !ok {
		item, target, ok = cut(rest, "to")
	}
	if !ok {
		for _, sep := range []string{"into", "over", "off", "in", "down"} {
			if item, _, ok = cut(rest, sep); ok {
				break
			}
		}
		if !ok {
			item = rest
		}
	}
	item = strings.TrimPrefix(item, "my ")
	if w != nil && !carried(w, strings.TrimPrefix(item, "the ")) {
		return reply(fmt.Sprintf("You have nothing like %s to throw. %s", strings.TrimPrefix(item, "a "), "(Type inventory to see what you carry.)"))
	}
	if target != "" && w != nil {
		if ch, err := rules.Present(w, target); err == nil && ch.ID != w.Player {
			if ch.Hostile {
				return one(rules.Attack{Target: target, Weapon: item})
			}
			return one(rules.GiveItem{Item: item, To: target})
		}
	}
	return one(rules.DropItem{Item: item})
}

// follow goes along an exit the words describe; a hidden way is searched
// for; tracks are read with Survival.
func follow(w *world.State, rest string) rules.Interpretation {
	dest, hidden, ok := exitFor(w, rest)
	switch {
	case ok && !hidden:
		return one(rules.Move{Destination: dest})
	case ok && hidden:
		return one(rules.Search{Skill: "survival"})
	}
	if w != nil && isPerson(w, rest) {
		return reply(fmt.Sprintf("%s is not going anywhere just now. Talk to them, or go your own way. %s", nameOf(w, rest), exitsHint(w)))
	}
	if strings.Contains(rest, "track") || strings.Contains(rest, "print") || strings.Contains(rest, "trail") || strings.Contains(rest, "smuggler") {
		return one(rules.Search{Skill: "survival"})
	}
	return reply(fmt.Sprintf("You see no way like that. %s", exitsHint(w)))
}

// climb goes up or down along an exit when there is one, looks for a
// hidden one, and is an Athletics check otherwise.
func climb(w *world.State, dir, rest string) rules.Interpretation {
	if w != nil {
		if here := w.Here(); here != nil {
			for _, e := range here.Exits {
				if e.Direction == dir && !e.Hidden {
					return one(rules.Move{Destination: dir})
				}
			}
			if dest, hidden, ok := exitFor(w, rest); ok {
				if hidden {
					return one(rules.Search{})
				}
				return one(rules.Move{Destination: dest})
			}
			for _, e := range here.Exits {
				if e.Direction == dir && e.Hidden {
					return one(rules.Search{})
				}
			}
		}
	}
	return one(rules.Check{Skill: "athletics", DC: 12, Reason: strings.TrimSpace("climb " + dir + " " + rest)})
}

// exitFor finds the exit here that ref names (a direction, the place it
// leads to, or words of its description), hidden ones too.
func exitFor(w *world.State, ref string) (dest string, hidden, ok bool) {
	if w == nil || w.Here() == nil {
		return "", false, false
	}
	ref, _, _ = cut(ref, "to")
	r := rules.Normalise(ref)
	if r == "" {
		return "", false, false
	}
	for _, e := range w.Here().Exits {
		to := w.Locations[e.To]
		hit := e.Direction == r || strings.Contains(rules.Normalise(e.Description), r)
		if to != nil {
			hit = hit || strings.Contains(rules.Normalise(to.Name), r)
			for _, a := range to.Aliases {
				hit = hit || rules.Normalise(a) == r
			}
		}
		if hit {
			if e.Direction != "" {
				return e.Direction, e.Hidden, true
			}
			return e.To, e.Hidden, true
		}
	}
	return "", false, false
}

// sense is listening, smelling, touching: at a thing present it looks at
// it; at the surroundings it is a Perception search that finds what is
// hidden or tells what the senses bring.
func sense(w *world.State, verb, what string) rules.Interpretation {
	what = strings.TrimPrefix(strings.TrimSpace(what), "the ")
	for _, p := range []string{"carefully", "closely", "around", "the air", "air", "quietly", "intently"} {
		if what == p {
			what = ""
		}
	}
	if what != "" && w != nil {
		if _, err := rules.Present(w, what); err == nil {
			return one(rules.Look{Target: what})
		}
		if carried(w, what) || here(w, what) {
			return one(rules.Look{Target: what})
		}
	}
	return one(rules.Search{Skill: "perception"})
}

func here(w *world.State, ref string) bool {
	l := w.Here()
	if l == nil {
		return false
	}
	r := rules.Normalise(ref)
	for id, n := range l.Items {
		if it := w.Items[id]; it != nil && n > 0 && (strings.Contains(rules.Normalise(it.Name), r) || id == r) {
			return true
		}
	}
	return false
}

func isLocationHere(w *world.State, ref string) bool {
	l := w.Here()
	if l == nil {
		return false
	}
	r := rules.Normalise(ref)
	if strings.Contains(rules.Normalise(l.Name), r) {
		return true
	}
	for _, a := range l.Aliases {
		if rules.Normalise(a) == r {
			return true
		}
	}
	return false
}

func interpretLeave(w *world.State) rules.Interpretation {
	in, _ := interpretClause(w, "leave")
	return in
}

// pronoun words and what they stand for.
var pronouns = map[string]bool{"her": true, "him": true, "them": true, "it": true}

// resolvePronouns replaces her, him, them and it with the last person or
// thing named: earlier in the same input, else the person most recently
// part of the story who is here, else the only person here.
func resolvePronouns(w *world.State, c string, earlier []rules.Intent) string {
	words := strings.Fields(c)
	found := false
	for _, word := range words {
		if pronouns[word] {
			found = true
		}
	}
	if !found {
		return c
	}
	var person, thing string
	for _, in := range earlier {
		switch v := in.(type) {
		case rules.Talk:
			person = v.NPC
		case rules.Attack:
			person = v.Target
		case rules.Grapple:
			if v.Target != "" {
				person = v.Target
			}
		case rules.GiveItem:
			person, thing = v.To, v.Item
		case rules.TakeItem:
			thing = v.Item
		case rules.UseItem:
			thing = v.Item
		case rules.Look:
			if isPerson(w, v.Target) {
				person = v.Target
			} else {
				thing = v.Target
			}
		}
	}
	if person == "" && w != nil {
		_, all := living(w)
		var best *world.Character
		var people int
		for _, ch := range all {
			if ch.ID == w.Player || ch.Kind == world.Creature {
				continue
			}
			people++
			if best == nil || ch.MentionedTurn > best.MentionedTurn {
				best = ch
			}
		}
		if best != nil && (people == 1 || best.MentionedTurn > 0) {
			person = strings.ToLower(firstName(best.Name))
		}
	}
	// "ask maren about her": a pronoun never stands for someone the same
	// clause names (that would be "herself"), so Maren is not its referent.
	if person != "" && slices.Contains(words, strings.ToLower(person)) {
		person = ""
	}
	for i, word := range words {
		switch {
		case word == "it" && thing != "":
			words[i] = thing
		case word != "it" && pronouns[word] && person != "":
			words[i] = person
		}
	}
	return strings.Join(words, " ")
}
