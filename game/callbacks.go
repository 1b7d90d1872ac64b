package game

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/world"
)

// Callback tracking (seed 002 FR76–FR80): after each committed turn the
// story's narrative elements are extracted, references to earlier ones
// detected and elements the rules ended marked resolved, all as effects of
// the turn, so replay, restore and fork keep them exactly whatever the
// extractor was.

// Callback tuning.
const (
	// CallbackQuiet is how many turns an unresolved promise or threat must
	// go unmentioned before it is suggested to the DM.
	CallbackQuiet = 3
	// callbackSuggestMax is how many are suggested at most.
	callbackSuggestMax = 3
	// Caps on what an extractor may propose.
	elementNameMax = 80
	elementDescMax = 300
	elementsMax    = 8
)

// ElementExtractor proposes the narrative elements a turn introduced from
// its words (a model: the summariser or narrator role). Its proposals are
// validated (ValidElements) before they become effects.
type ElementExtractor interface {
	ExtractElements(ctx context.Context, in ExtractInput) ([]world.NarrativeElement, error)
}

// ExtractInput is what an extractor reads: the turn's words and the
// elements known already, which it must not propose again.
type ExtractInput struct {
	Turn      int
	Input     string
	Narrative string
	Known     []world.NarrativeElement
}

// UseElementExtractor sets the model that extracts narrative elements
// from the narration; without one they are found offline (named entities
// of the state in the narration).
func (s *Session) UseElementExtractor(x ElementExtractor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extractor = x
}

// ValidElements checks an extractor's proposals, as its structured output
// must be: a known type, a name of at most 80 characters, not one known or
// proposed already. What fails is dropped and reported in the error (the
// valid rest is kept).
func ValidElements(w *world.State, proposed []world.NarrativeElement) ([]world.NarrativeElement, error) {
	var out []world.NarrativeElement
	var bad []string
	seen := map[string]bool{}
	for _, e := range proposed {
		e.Name = strings.Join(strings.Fields(e.Name), " ")
		e.Description = strings.TrimSpace(e.Description)
		key := strings.ToLower(e.Name)
		switch {
		case !slices.Contains(world.ElementTypes, e.ElementType):
			bad = append(bad, fmt.Sprintf("%q: unknown type %q", e.Name, e.ElementType))
		case e.Name == "" || len([]rune(e.Name)) > elementNameMax:
			bad = append(bad, fmt.Sprintf("name %q: empty or longer than %d", e.Name, elementNameMax))
		case seen[key] || w.ElementNamed(e.Name) != nil:
			// Known already: a reference, found by detection.
		default:
			if r := []rune(e.Description); len(r) > elementDescMax {
				e.Description = string(r[:elementDescMax]) + "…"
			}
			seen[key] = true
			out = append(out, world.NarrativeElement{ElementType: e.ElementType, Name: e.Name, Description: e.Description})
		}
	}
	if len(out) > elementsMax {
		bad = append(bad, fmt.Sprintf("%d elements, more than %d", len(out), elementsMax))
		out = out[:elementsMax]
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("invalid narrative elements: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

// trackCallbacks adds the turn's callback effects: references to earlier
// elements, elements the rules resolved, and the elements the turn
// introduced (from the rules' effects, and from the narration by the
// extractor or offline).
func (t *Turn) trackCallbacks(ctx context.Context) error {
	s, w := t.s, t.s.w
	lower := strings.ToLower(t.Input + "\n" + t.Narrative())
	var add world.Effects

	for _, id := range world.SortedKeys(w.Elements) {
		if el := w.Elements[id]; el.TurnIntroduced < t.Number && mentionsLower(lower, el.Name) {
			add = append(add, world.ElementReferenced{ID: id, Turn: t.Number})
		}
	}
	add = append(add, resolvedBy(w, t.effects)...)

	fresh := fromEffects(w, t.effects)
	named := map[string]bool{}
	for _, e := range fresh {
		named[strings.ToLower(e.Name)] = true
	}
	x := s.extractor // the turn holds s.mu
	var fromWords []world.NarrativeElement
	if x != nil && strings.TrimSpace(t.Narrative()) != "" {
		known := make([]world.NarrativeElement, 0, len(w.Elements))
		for _, id := range world.SortedKeys(w.Elements) {
			known = append(known, *w.Elements[id])
		}
		proposed, err := x.ExtractElements(ctx, ExtractInput{Turn: t.Number, Input: t.Input, Narrative: t.Narrative(), Known: append(known, fresh...)})
		if err == nil {
			fromWords, err = ValidElements(w, proposed)
		}
		if err != nil {
			s.opts.Logger.Warn("narrative elements from the model", "turn", t.Number, "err", err)
		}
		if err != nil && len(fromWords) == 0 {
			fromWords = namedIn(w, t.Narrative())
		}
	} else {
		fromWords = namedIn(w, t.Narrative())
	}
	for _, e := range fromWords {
		if !named[strings.ToLower(e.Name)] {
			named[strings.ToLower(e.Name)] = true
			fresh = append(fresh, e)
		}
	}
	for i, e := range fresh {
		if w.ElementNamed(e.Name) != nil {
			continue
		}
		e.ID = fmt.Sprintf("t%d-%d", t.Number, i+1)
		e.TurnIntroduced = t.Number
		add = append(add, world.ElementExtracted{Element: e})
	}
	for _, e := range add {
		if err := w.Apply(e); err != nil {
			return fmt.Errorf("callback tracking: %w", err)
		}
		t.effects = append(t.effects, e)
	}
	return nil
}

// fromEffects derives elements from what the rules did this turn: a quest
// taken is a promise, a hostile in a fight or a consequence prepared a
// threat, an NPC, item, place or recorded event its own kind. Those drawn
// from what players cannot see are private.
func fromEffects(w *world.State, es world.Effects) []world.NarrativeElement {
	var out []world.NarrativeElement
	add := func(typ, name, desc, ref string, private bool) {
		if strings.TrimSpace(name) == "" || w.ElementNamed(name) != nil ||
			slices.ContainsFunc(out, func(e world.NarrativeElement) bool { return strings.EqualFold(e.Name, name) }) {
			return
		}
		out = append(out, world.NarrativeElement{ElementType: typ, Name: name, Description: desc, Ref: ref, Private: private})
	}
	for _, e := range es {
		switch e := e.(type) {
		case world.QuestCreated:
			if e.Quest.Status == world.QuestActive {
				add(world.ElementPromise, e.Quest.Name, e.Quest.Description, e.Quest.ID, false)
			}
		case world.QuestStatusChanged:
			if q := w.Quests[e.Quest]; q != nil && e.To == world.QuestActive {
				add(world.ElementPromise, q.Name, q.Description, q.ID, false)
			}
		case world.CombatStarted:
			for _, c := range e.Order {
				if ch := w.Characters[c.ID]; ch != nil && ch.Hostile {
					add(world.ElementThreat, ch.Name, ch.Description, ch.ID, false)
				}
			}
		case world.ConsequenceRegistered:
			add(world.ElementThreat, e.Consequence.Trigger, e.Consequence.Description, e.Consequence.ID, true)
		case world.NPCCreated:
			typ := world.ElementCharacter
			if e.NPC.Hostile {
				typ = world.ElementThreat
			}
			add(typ, e.NPC.Name, e.NPC.Description, e.NPC.ID, false)
		case world.ItemCreated:
			add(world.ElementItem, e.Item.Name, e.Item.Description, e.Item.ID, false)
		case world.LocationCreated:
			add(world.ElementLocation, e.Location.Name, e.Location.Description, e.Location.ID, false)
		case world.EventRecorded:
			add(world.ElementEvent, e.Event.Name, e.Event.Description, e.Event.ID, false)
		}
	}
	return out
}

// namedIn finds the state's named entities in the narration, offline and
// deterministically: characters (hostile ones as threats), items and
// places, in that order by ID.
func namedIn(w *world.State, narration string) []world.NarrativeElement {
	var out []world.NarrativeElement
	lower := strings.ToLower(narration) // once, not once a name
	add := func(typ, name, desc, ref string) {
		if name != "" && mentionsLower(lower, name) && w.ElementNamed(name) == nil {
			out = append(out, world.NarrativeElement{ElementType: typ, Name: name, Description: desc, Ref: ref})
		}
	}
	for _, id := range world.SortedKeys(w.Characters) {
		c := w.Characters[id]
		if w.InParty(id) || id == w.Player {
			continue
		}
		typ := world.ElementCharacter
		if c.Hostile && c.Alive() {
			typ = world.ElementThreat
		}
		add(typ, c.Name, c.Description, id)
	}
	for _, id := range world.SortedKeys(w.Items) {
		add(world.ElementItem, w.Items[id].Name, w.Items[id].Description, id)
	}
	for _, id := range world.SortedKeys(w.Locations) {
		add(world.ElementLocation, w.Locations[id].Name, w.Locations[id].Description, id)
	}
	return out
}

// resolvedBy marks resolved the elements the rules ended this turn: a
// quest completed or failed, a hostile dead or removed, every threat of a
// fight won.
func resolvedBy(w *world.State, es world.Effects) world.Effects {
	ended := map[string]string{}
	for _, e := range es {
		switch e := e.(type) {
		case world.QuestStatusChanged:
			if e.To == world.QuestCompleted || e.To == world.QuestFailed {
				ended[e.Quest] = "quest " + e.To
			}
		case world.HPChanged:
			if c := w.Characters[e.Target]; c != nil && e.To <= 0 && c.Hostile {
				ended[e.Target] = "defeated"
			}
		case world.NPCRemoved:
			ended[e.ID] = "gone"
		case world.ConsequenceTriggered:
			ended[e.ID] = "came to pass"
		}
	}
	var out world.Effects
	for _, id := range world.SortedKeys(w.Elements) {
		el := w.Elements[id]
		if why, ok := ended[el.Ref]; ok && el.Ref != "" && !el.Resolved {
			out = append(out, world.ElementResolved{ID: id, Reason: why})
		}
	}
	return out
}

// mentionsLower reports whether lower, a text already lowercased (once
// for all the names asked about), names name as whole words,
// case-insensitively.
func mentionsLower(lower, name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(lower[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		before := start == 0 || !isWordByte(lower[start-1])
		after := end == len(lower) || !isWordByte(lower[end])
		if before && after {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 0x80 || unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b))
}

// CallbackSuggestions returns the unresolved promises and threats the
// story has not mentioned for CallbackQuiet turns, longest quiet first:
// hooks for the DM's next turn. Private ones are offered only to the GM.
func CallbackSuggestions(w *world.State, turn int, gm bool) []world.NarrativeElement {
	var out []world.NarrativeElement
	for _, id := range world.SortedKeys(w.Elements) {
		el := w.Elements[id]
		if el.Resolved || (el.Private && !gm) || (el.ElementType != world.ElementPromise && el.ElementType != world.ElementThreat) {
			continue
		}
		if turn-el.LastMention() >= CallbackQuiet {
			out = append(out, *el)
		}
	}
	slices.SortStableFunc(out, func(a, b world.NarrativeElement) int {
		return cmp.Or(cmp.Compare(a.LastMention(), b.LastMention()), strings.Compare(a.ID, b.ID))
	})
	if len(out) > callbackSuggestMax {
		out = out[:callbackSuggestMax]
	}
	return out
}

// CallbackSections suggests the DM's callbacks as a context section: only
// the game master's context gets it (a PC agent is not the storyteller).
func (t *Turn) CallbackSections(_ context.Context, role access.Level) []contextpack.Section {
	if role < access.GM {
		return nil
	}
	sug := CallbackSuggestions(t.s.w, t.Number, true)
	if len(sug) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Unresolved threads the story has not touched lately (call one back if it fits):")
	for _, e := range sug {
		fmt.Fprintf(&b, "\n- %s (%s, introduced turn %d, last mentioned turn %d)", e.Name, e.ElementType, e.TurnIntroduced, e.LastMention())
		if e.Description != "" {
			fmt.Fprintf(&b, ": %s", e.Description)
		}
	}
	text := b.String()
	return []contextpack.Section{{Name: "callbacks", Tier: contextpack.TierContext, Text: text, Tokens: len(text)/4 + 1}}
}

// CallbackRate measures how often the story calls back: of the turns
// played after the first element was introduced, how many referenced an
// earlier one (a research metric of seed 002, read from the turns'
// effects).
func CallbackRate(turns []TurnRecord) (referencing, eligible int) {
	started := false
	for _, t := range turns {
		var es world.Effects
		if len(t.Effects) == 0 || json.Unmarshal(t.Effects, &es) != nil {
			continue
		}
		if started {
			eligible++
			if world.Has[world.ElementReferenced](es) {
				referencing++
			}
		}
		if world.Has[world.ElementExtracted](es) {
			started = true
		}
	}
	return referencing, eligible
}
