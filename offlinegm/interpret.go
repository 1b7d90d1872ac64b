package offlinegm

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// GM is the offline game master: its Interpret reads with patterns and
// its Narrate tells with templates. The zero value is ready for use.
type GM struct{}

// New returns an offline game master.
func New() *GM { return &GM{} }

// Name returns "offline".
func (*GM) Name() string { return "offline" }

// Help is the in-game help text.
func Help() string {
	return `Say what your character does, in plain words. For example:
  look, look at the lantern           where you are, or one thing
  go north, n, go to the quay, up     move along an exit
  talk to Maren, ask Maren about X    conversation (then pick a number)
  search                              look for what is hidden
  take the rope, loot the smuggler    pick things up
  use potion, put the lens in the lamp, unlock the door with the key
  give the coin to Tam, drop the rope, equip the sword
  attack the smuggler (with my sword), flee
  cast magic missile at the wolf, cast cure wounds on Bram, fire bolt the goblin
  climb the wall, sneak past, persuade Tam   skill checks
  grapple the thug, shove Rook, knock him prone, break free   contests
  listen, smell the air, sit by the fire and listen   what your senses bring
  read the letter, knock on the door, follow the track, throw the knife at X
  buy a drink (from an innkeeper or trader), pay Maren 2 gold, show the ledger to Maren
  rest, long rest, wait until dark, pray, roll 2d6+1
  what do I know about X, where can I go, inventory, sheet, quests, help
                                      questions that take no turn
Join actions with "then": go north then talk to Maren.`
}

var (
	politeness = regexp.MustCompile(`^(?:(?:please|ok(?:ay)?|so|now|well|then)\s*,?\s+|(?:i\s+(?:want|would like|wanna|will|'ll|try|decide|am going)\s+(?:to\s+)?|i'd like to\s+|i\s+|let's\s+|let me\s+|lets\s+|try to\s+|can i\s+|could i\s+|i'll\s+))+`)
	pickUp     = regexp.MustCompile(`^pick (.+) up$`)
	chain      = regexp.MustCompile(`\s*(?:,?\s+and then\s+|,?\s+then\s+|;\s*|\.\s+)`)
	directions = map[string]string{
		"n": "north", "s": "south", "e": "east", "w": "west", "u": "up", "d": "down",
		"ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest",
		"north": "north", "south": "south", "east": "east", "west": "west", "up": "up", "down": "down",
		"northeast": "northeast", "northwest": "northwest", "southeast": "southeast", "southwest": "southwest",
		"upstairs": "up", "downstairs": "down", "in": "in", "out": "out", "inside": "in", "outside": "out",
	}
	skillVerbs = []struct {
		re    *regexp.Regexp
		skill string
	}{
		{regexp.MustCompile(`^(?:climb|jump|leap|swim|force|break|lift|push|shove|bash)\b`), "athletics"},
		{regexp.MustCompile(`^(?:sneak|hide|creep|tiptoe)\b`), "stealth"},
		{regexp.MustCompile(`^(?:pick (?:the )?lock|pickpocket|pick .* pocket)`), "sleight_of_hand"},
		{regexp.MustCompile(`^(?:listen|spot|watch|keep watch|scan|peer)\b`), "perception"},
		{regexp.MustCompile(`^(?:persuade|convince|plead|reason with|charm)\b`), "persuasion"},
		{regexp.MustCompile(`^(?:lie|bluff|deceive|trick|con)\b`), "deception"},
		{regexp.MustCompile(`^(?:intimidate|threaten|scare|menace)\b`), "intimidation"},
		{regexp.MustCompile(`^(?:recall|remember)\b`), "history"},
		{regexp.MustCompile(`^(?:track|follow (?:the )?tracks|forage)\b`), "survival"},
		{regexp.MustCompile(`^(?:balance|tumble|vault|dodge)\b`), "acrobatics"},
		{regexp.MustCompile(`^(?:sense motive|read (?:\w+'s )?(?:face|mood|intent)|study)\b`), "insight"},
		{regexp.MustCompile(`^(?:bandage|treat|tend|stabilize|stabilise)\b`), "medicine"},
		{regexp.MustCompile(`^(?:calm|soothe|tame)\b`), "animal_handling"},
	}
	skills = []string{"athletics", "acrobatics", "sleight of hand", "stealth", "arcana", "history", "investigation",
		"nature", "religion", "animal handling", "insight", "medicine", "perception", "survival", "deception",
		"intimidation", "performance", "persuasion", "strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"}
)

// clean lower-cases, trims punctuation and politeness.
func clean(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Trim(s, ".!?\"' ")
	s = strings.Join(strings.Fields(s), " ")
	for {
		t := politeness.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return s
}

// Interpret reads input in the context of w (which may be nil).
func (g *GM) Interpret(ctx context.Context, w *world.State, input string) (rules.Interpretation, error) {
	if err := ctx.Err(); err != nil {
		return rules.Interpretation{}, err
	}
	in, _ := interpret(w, input)
	return in, nil
}

// interpret reads input and reports whether any clause fell through to
// the answer for input it could not read.
func interpret(w *world.State, input string) (rules.Interpretation, bool) {
	text := strings.ToLower(strings.TrimSpace(input))
	if text == "?" || text == "??" {
		return rules.Interpretation{Query: "help"}, false
	}
	clauses := chain.Split(strings.Trim(text, ".!? "), -1)
	var out rules.Interpretation
	lost := false
	for _, raw := range clauses {
		c := clean(raw)
		if c == "" {
			continue
		}
		c = resolvePronouns(w, c, out.Intents)
		in, ok := interpretClause(w, c)
		lost = lost || !ok
		if in.Query != "" || in.Reply != "" {
			if len(clauses) == 1 || len(out.Intents) == 0 {
				if in.Confirm == "" {
					in.Confirm = wastedHealing(w, in.Intents)
				}
				return in, lost
			}
			// A later clause not understood: act on what was, and say so.
			out.Reply = in.Reply
			break
		}
		out.Intents = append(out.Intents, in.Intents...)
		if in.Confirm != "" {
			out.Confirm = in.Confirm
		}
	}
	if len(out.Intents) == 0 && out.Reply == "" && out.Query == "" {
		return rules.Interpretation{Reply: "What do you do? (Type help for ideas.)"}, lost
	}
	if out.Confirm == "" {
		out.Confirm = wastedHealing(w, out.Intents)
	}
	return out, lost
}

func one(in rules.Intent) rules.Interpretation {
	return rules.Interpretation{Intents: []rules.Intent{in}}
}

// cut splits s at the first " sep " and reports whether it did.
func cut(s, sep string) (string, string, bool) {
	return strings.Cut(s, " "+sep+" ")
}

func after(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if s == strings.TrimSpace(p) {
			return "", true
		}
		if rest, ok := strings.CutPrefix(s, p); ok && strings.HasSuffix(p, " ") {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

func stripTo(s string) string {
	for _, p := range []string{"back to ", "to the ", "to ", "into ", "towards ", "toward ", "through ", "up to ", "down to ", "over to ", "across "} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest
		}
	}
	return s
}

// notFollowed is what parse returns for a clause it cannot read;
// interpretClause turns it into the helpful answer.
const notFollowed = "\x00not followed"

// interpretClause reads one clause and reports whether it understood it.
func interpretClause(w *world.State, c string) (rules.Interpretation, bool) {
	in := parse(w, c)
	if in.Reply == notFollowed {
		return unknown(w, c), false
	}
	return in, true
}

func parse(w *world.State, c string) rules.Interpretation {
	switch c {
	case "i", "inv", "inventory", "items", "what do i have", "what am i carrying":
		return rules.Interpretation{Query: "inventory"}
	case "sheet", "stats", "status", "character", "char", "character sheet", "hp", "health":
		return rules.Interpretation{Query: "sheet"}
	case "quests", "quest", "journal", "q", "quest log", "objectives", "tasks":
		return rules.Interpretation{Query: "quests"}
	case "recap", "what has happened", "what happened", "what has happened so far", "what happened so far",
		"story so far", "the story so far", "summary", "summarise", "summarize", "previously", "catch me up", "remind me":
		return rules.Interpretation{Query: "recap"}
	case "help", "?", "h", "commands", "what can i do", "how do i play":
		return rules.Interpretation{Query: "help"}
	case "look", "l", "look around", "examine room", "look at the room", "where am i", "describe room",
		"take a look", "take a look around", "have a look", "have a look around", "what is this place", "what's here",
		"what is here", "where is this":
		return one(rules.Look{})
	case "search", "search the room", "search room", "search around", "search here", "search the area", "investigate",
		"look for clues", "search for clues", "look around carefully", "examine the room closely":
		return one(rules.Search{})
	case "rest", "short rest", "take a short rest", "take a rest", "catch my breath", "take a breather":
		return one(rules.Rest{Rest: "short"})
	case "long rest", "sleep", "camp", "take a long rest", "go to sleep", "make camp", "rest for the night":
		return one(rules.Rest{Rest: "long"})
	case "flee", "run away", "escape", "retreat", "run", "flee the fight":
		if c == "escape" && w != nil && w.PC() != nil && w.PC().HasCondition("grappled") {
			// Held fast, escaping is breaking the grip first.
			return one(rules.Grapple{Maneuver: "escape"})
		}
		return one(rules.Flee{})
	case "wait", "z", "pass time", "wait a while", "bide my time":
		return one(rules.AdvanceTime{Duration: "10m", Reason: "waiting"})
	case "yes", "y", "no", "n?":
		return rules.Interpretation{Reply: "Nothing is waiting for a yes or a no."}
	case "leave", "exit", "go out", "get out", "go back", "back":
		if w != nil {
			if here := w.Here(); here != nil {
				for _, e := range here.Exits {
					if !e.Hidden {
						if e.Direction != "" {
							return one(rules.Move{Destination: e.Direction})
						}
						return one(rules.Move{Destination: e.To})
					}
				}
			}
		}
		return one(rules.Move{Destination: "out"})
	case "attack", "fight", "attack!", "kill", "strike":
		return attackWhom(w)
	case "hello", "hi", "greetings", "good evening", "good morning", "hey":
		return talkToOnly(w, "")
	case "take all", "take everything", "get all", "get everything", "pick up everything", "pick everything up":
		return takeAll(w)
	}
	if d, ok := directions[c]; ok {
		return one(rules.Move{Destination: d})
	}
	if in, ok := cast(w, c); ok {
		return in
	}
	if in, ok := verbs(w, c); ok {
		return in
	}
	if rest, ok := after(c, "roll "); ok {
		return roll(rest)
	}
	// Movement.
	if rest, ok := after(c, "go ", "walk ", "head ", "move ", "travel ", "return ", "enter ", "proceed ", "run to ", "hurry ", "step ", "descend ", "ascend "); ok {
		rest = stripTo(rest)
		if rest == "" {
			return rules.Interpretation{Reply: "Go where? " + exitsHint(w)}
		}
		if d, ok := directions[rest]; ok {
			rest = d
		}
		return one(rules.Move{Destination: rest})
	}
	if rest, ok := after(c, "climb "); ok {
		rest = stripTo(strings.TrimPrefix(rest, "up "))
		if w != nil && exitMatches(w, rest) {
			return one(rules.Move{Destination: rest})
		}
		return one(rules.Check{Skill: "athletics", DC: 12, Reason: "climb " + rest})
	}
	// Looking.
	if rest, ok := after(c, "take a look at ", "have a look at ", "look at ", "look ", "examine ", "x ", "inspect ", "describe ", "l ", "study the ", "read "); ok {
		if strings.HasPrefix(rest, "for ") || strings.HasPrefix(rest, "around for ") {
			return one(rules.Search{})
		}
		if strings.HasPrefix(c, "read ") && w != nil && carried(w, rest) {
			return one(rules.UseItem{Item: rest})
		}
		if rest == "around" || rest == "room" || rest == "" {
			return one(rules.Look{})
		}
		return one(rules.Look{Target: rest})
	}
	if rest, ok := after(c, "search for ", "look for ", "search the body of ", "search body of ", "search "); ok {
		if w != nil {
			if ch, err := rules.Present(w, rest); err == nil && ch.ID != w.Player && (!ch.Alive() || ch.HasCondition("dead")) {
				return one(rules.TakeItem{Item: "all", From: rest})
			}
		}
		return one(rules.Search{})
	}
	// Conversation.
	if rest, ok := after(c, "ask about ", "talk about ", "inquire about ", "ask them about "); ok {
		return talkToOnly(w, rest)
	}
	if rest, ok := after(c, "ask ", "tell "); ok {
		if who, topic, ok := cut(rest, "about"); ok {
			return one(rules.Talk{NPC: who, Topic: topic})
		}
		if who, topic, ok := cut(rest, "for"); ok {
			return one(rules.Talk{NPC: who, Topic: topic})
		}
		return one(rules.Talk{NPC: rest})
	}
	if rest, ok := after(c, "talk to ", "talk with ", "speak to ", "speak with ", "chat with ", "chat to ", "converse with ", "greet ", "hail ", "say hello to ", "say hi to ", "talk ", "hello ", "hi ", "address "); ok {
		if who, topic, ok := cut(rest, "about"); ok {
			return one(rules.Talk{NPC: who, Topic: topic})
		}
		return one(rules.Talk{NPC: rest})
	}
	// Fighting.
	if rest, ok := after(c, "attack ", "hit ", "fight ", "kill ", "strike ", "stab ", "slash ", "shoot ", "punch ", "kick ", "smite ", "charge ", "swing at ", "lunge at ", "cut "); ok {
		target, weapon, _ := cut(rest, "with")
		if target == "" {
			return attackWhom(w)
		}
		in := rules.Attack{Target: target, Weapon: strings.TrimPrefix(weapon, "my ")}
		out := one(in)
		if w != nil && w.Combat == nil {
			if ch, err := rules.Present(w, target); err == nil && ch.ID != w.Player && !ch.Hostile && ch.Alive() && !ch.HasCondition("dead") {
				out.Confirm = fmt.Sprintf("%s is not hostile. Attack anyway?", ch.Name)
			}
		}
		return out
	}
	// Items.
	if rest, ok := after(c, "loot ", "rob ", "plunder "); ok {
		return one(rules.TakeItem{Item: "all", From: rest})
	}
	if m := pickUp.FindStringSubmatch(c); m != nil { // "pick the rope up"
		return one(rules.TakeItem{Item: m[1]})
	}
	if rest, ok := after(c, "pick up ", "take ", "get ", "grab ", "collect ", "steal ", "snatch ", "pocket "); ok {
		rest = strings.TrimSuffix(rest, " up")
		if item, from, ok := cut(rest, "from"); ok {
			return one(rules.TakeItem{Item: item, From: from})
		}
		if rest == "all" || rest == "everything" {
			return takeAll(w)
		}
		n, item := quantity(rest)
		return one(rules.TakeItem{Item: item, Qty: n})
	}
	if rest, ok := after(c, "unlock ", "open "); ok {
		if target, key, ok := cut(rest, "with"); ok {
			return one(rules.UseItem{Item: key, Target: target})
		}
		if w != nil {
			if pc := w.PC(); pc != nil {
				for id := range pc.Inventory {
					if it := w.Items[id]; it != nil && it.Type == "key" {
						return one(rules.UseItem{Item: it.ID, Target: rest})
					}
				}
			}
		}
		return one(rules.Look{Target: rest})
	}
	if rest, ok := after(c, "put ", "place ", "insert ", "pour ", "fit ", "set "); ok {
		for _, sep := range []string{"into", "in", "on", "onto", "inside"} {
			if item, target, ok := cut(rest, sep); ok {
				return one(rules.UseItem{Item: item, Target: target})
			}
		}
		return one(rules.UseItem{Item: rest})
	}
	if rest, ok := after(c, "use ", "drink ", "quaff ", "eat ", "light ", "fill ", "apply ", "activate ", "pull ", "ring ", "blow ", "play ", "wave "); ok {
		for _, sep := range []string{"on", "with", "in", "at"} {
			if item, target, ok := cut(rest, sep); ok {
				if strings.HasPrefix(c, "light ") || strings.HasPrefix(c, "fill ") {
					return one(rules.UseItem{Item: target, Target: item})
				}
				return one(rules.UseItem{Item: item, Target: target})
			}
		}
		return one(rules.UseItem{Item: rest})
	}
	if rest, ok := after(c, "give ", "hand ", "offer ", "show "); ok {
		if item, to, ok := cut(rest, "to"); ok {
			n, item := quantity(item)
			return one(rules.GiveItem{Item: item, Qty: n, To: to})
		}
		// "give mira the coin"
		if w != nil {
			words := strings.Fields(rest)
			for i := 1; i < len(words); i++ {
				who := strings.Join(words[:i], " ")
				if _, err := rules.Present(w, who); err == nil {
					n, item := quantity(strings.Join(words[i:], " "))
					return one(rules.GiveItem{Item: item, Qty: n, To: who})
				}
			}
		}
		return rules.Interpretation{Reply: "Give what to whom? Say: give the coin to Maren."}
	}
	if rest, ok := after(c, "pay "); ok {
		var who string
		var n int
		if _, err := fmt.Sscanf(rest, "%s %d", &who, &n); err == nil && n > 0 {
			return one(rules.GiveItem{Item: "gold", Qty: n, To: who})
		}
		return rules.Interpretation{Reply: "Pay whom how much? Say: pay Maren 5 gold."}
	}
	if rest, ok := after(c, "drop ", "discard ", "leave behind "); ok {
		n, item := quantity(rest)
		return one(rules.DropItem{Item: item, Qty: n})
	}
	if rest, ok := after(c, "equip ", "wield ", "draw ", "wear ", "ready ", "hold "); ok {
		return one(rules.EquipItem{Item: rest})
	}
	if rest, ok := after(c, "unequip ", "sheathe ", "sheath ", "stow ", "remove ", "take off ", "put away "); ok {
		return one(rules.EquipItem{Item: rest, Unequip: true})
	}
	// Checks.
	if rest, ok := after(c, "make a ", "make an ", "check ", "roll for ", "attempt a ", "do a "); ok {
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, " check"), " roll")
		for _, s := range skills {
			if rest == s {
				if isAbility(s) {
					return one(rules.Check{Ability: s, DC: 12, Reason: c})
				}
				return one(rules.Check{Skill: strings.ReplaceAll(s, " ", "_"), DC: 12, Reason: c})
			}
		}
	}
	for _, sv := range skillVerbs {
		if sv.re.MatchString(c) {
			chk := rules.Check{Skill: sv.skill, DC: 12, Reason: voice(w, c)}
			if w != nil && (sv.skill == "persuasion" || sv.skill == "deception" || sv.skill == "intimidation" || sv.skill == "insight") {
				for _, ch := range w.CharactersAt(locationOf(w)) {
					if strings.Contains(c, strings.ToLower(firstName(ch.Name))) {
						chk.Target = ch.ID
					}
				}
			}
			return one(chk)
		}
	}
	return rules.Interpretation{Reply: notFollowed}
}

// quantity splits "2 gold" into 2 and "gold"; without a number it is 0
// (the engine's default of one) and the text as it is.
func quantity(s string) (int, string) {
	var n int
	var rest string
	if _, err := fmt.Sscanf(s, "%d %s", &n, &rest); err == nil && n > 0 {
		return n, strings.TrimSpace(s[strings.IndexByte(s, ' ')+1:])
	}
	return 0, s
}

func isAbility(s string) bool {
	switch s {
	case "strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma":
		return true
	}
	return false
}

func roll(rest string) rules.Interpretation {
	notation, reason, _ := cut(rest, "for")
	if notation == "" {
		return rules.Interpretation{Reply: "Roll what? For example: roll 2d6+1, roll 4d6kh3, roll 1d20+dex adv."}
	}
	for _, s := range skills {
		if notation == s {
			return one(rules.Check{Skill: strings.ReplaceAll(s, " ", "_"), DC: 12, Reason: "roll " + s})
		}
	}
	return one(rules.RollDice{Notation: notation, Reason: reason})
}

func locationOf(w *world.State) string {
	if pc := w.PC(); pc != nil {
		return pc.Location
	}
	return ""
}

func firstName(n string) string {
	f := strings.Fields(n)
	if len(f) == 0 {
		return n
	}
	return f[0]
}

func living(w *world.State) (hostile, all []*world.Character) {
	if w == nil {
		return nil, nil
	}
	for _, ch := range w.CharactersAt(locationOf(w)) {
		if !ch.Alive() || ch.HasCondition("dead") {
			continue
		}
		all = append(all, ch)
		if ch.Hostile {
			hostile = append(hostile, ch)
		}
	}
	return hostile, all
}

func attackWhom(w *world.State) rules.Interpretation {
	hostile, all := living(w)
	switch {
	case len(hostile) == 1:
		return one(rules.Attack{Target: hostile[0].Name})
	case len(hostile) > 1:
		return rules.Interpretation{Reply: "Attack whom? " + names(hostile, "or") + "."}
	case len(all) > 0:
		return rules.Interpretation{Reply: "No one here is fighting you. (Present: " + names(all, "and") + ".) To start a fight anyway, name who you attack."}
	}
	return rules.Interpretation{Reply: "There is no one here to fight."}
}

func talkToOnly(w *world.State, topic string) rules.Interpretation {
	_, all := living(w)
	var people []*world.Character
	for _, ch := range all {
		if ch.Kind != world.Creature {
			people = append(people, ch)
		}
	}
	switch len(people) {
	case 1:
		return one(rules.Talk{NPC: people[0].Name, Topic: topic})
	case 0:
		return rules.Interpretation{Reply: "There is no one here to talk to."}
	}
	return rules.Interpretation{Reply: "Talk to whom? " + names(people, "or") + "."}
}

func takeAll(w *world.State) rules.Interpretation {
	if w == nil {
		return rules.Interpretation{Reply: "Take what? Name it."}
	}
	here := w.Here()
	var out rules.Interpretation
	if here != nil {
		for _, id := range world.SortedKeys(here.Items) {
			if it := w.Items[id]; it != nil && !it.Fixed && here.Items[id] > 0 {
				out.Intents = append(out.Intents, rules.TakeItem{Item: it.ID, Qty: here.Items[id]})
			}
		}
	}
	if len(out.Intents) == 0 {
		return rules.Interpretation{Reply: "There is nothing here you can carry off."}
	}
	return out
}

func names(cs []*world.Character, conj string) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name
	}
	return list(parts, conj)
}

// list joins words as prose, as the engine's messages do.
func list(parts []string, conj string) string { return rules.List(parts, conj) }

func carried(w *world.State, ref string) bool {
	pc := w.PC()
	if pc == nil {
		return false
	}
	r := rules.Normalise(ref)
	for id := range pc.Inventory {
		if it := w.Items[id]; it != nil && (strings.Contains(rules.Normalise(it.Name), r) || id == r) {
			return true
		}
	}
	return false
}

func exitMatches(w *world.State, ref string) bool {
	here := w.Here()
	if here == nil {
		return false
	}
	r := rules.Normalise(ref)
	for _, e := range here.Exits {
		if e.Hidden {
			continue
		}
		to := w.Locations[e.To]
		if strings.Contains(rules.Normalise(e.Description), r) || e.Direction == r || (to != nil && strings.Contains(rules.Normalise(to.Name), r)) {
			return true
		}
		if to != nil {
			for _, a := range to.Aliases {
				if rules.Normalise(a) == r {
					return true
				}
			}
		}
	}
	return false
}

func exitsHint(w *world.State) string {
	if w == nil || w.Here() == nil {
		return ""
	}
	return "Exits: " + rules.ExitList(w, w.Here()) + "."
}

// unknown answers input the grammar does not cover: someone present who
// was named is spoken to; otherwise an in-world answer names what can be
// done here. It never repeats the player's words back.
func unknown(w *world.State, c string) rules.Interpretation {
	if w != nil {
		_, all := living(w)
		words := strings.FieldsFunc(c, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
		for _, ch := range all {
			for _, word := range words {
				if len(word) > 2 && strings.HasPrefix(strings.ToLower(ch.Name), word) && ch.Kind != world.Creature {
					return one(rules.Talk{NPC: ch.Name})
				}
			}
		}
		if dest, hidden, ok := exitFor(w, c); ok && !hidden {
			return rules.Interpretation{Reply: fmt.Sprintf("To go there, say \"go %s\". %s", dest, exitsHint(w))}
		}
	}
	lead := "You can't see a way to do that here."
	if w != nil && w.PC() != nil {
		lead = fmt.Sprintf("%s can't see a way to do that here.", firstName(w.PC().Name))
	}
	return rules.Interpretation{Reply: hereIdeas(w, lead)}
}

// wastedHealing asks before the player drinks a healing draught on
// themselves at full hit points, which would use it up for nothing.
func wastedHealing(w *world.State, ins []rules.Intent) string {
	if w == nil {
		return ""
	}
	pc := w.PC()
	if pc == nil || pc.MaxHP == 0 || pc.HP < pc.MaxHP {
		return ""
	}
	for _, in := range ins {
		u, ok := in.(rules.UseItem)
		if !ok || (u.Target != "" && !strings.Contains(u.Target, "self") && u.Target != "me") {
			continue
		}
		r := rules.Normalise(u.Item)
		for id := range pc.Inventory {
			it := w.Items[id]
			if it == nil || !(id == r || strings.Contains(rules.Normalise(it.Name), r)) {
				continue
			}
			effect := strings.ToLower(it.Effect)
			if strings.HasPrefix(effect, "heal") || strings.HasPrefix(effect, "hp ") || strings.HasPrefix(effect, "hit_points") {
				return fmt.Sprintf("You are unhurt (%d/%d HP); %s would be wasted. Use it anyway?", pc.HP, pc.MaxHP, it.Name)
			}
		}
	}
	return ""
}
