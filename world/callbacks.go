package world

import (
	"fmt"
	"slices"
	"strings"
)

// Narrative element types (seed 002, NarrativeElement.element_type).
const (
	ElementCharacter = "character"
	ElementItem      = "item"
	ElementLocation  = "location"
	ElementEvent     = "event"
	ElementPromise   = "promise"
	ElementThreat    = "threat"
)

// ElementTypes lists the element types in the seed's order.
var ElementTypes = []string{ElementCharacter, ElementItem, ElementLocation, ElementEvent, ElementPromise, ElementThreat}

// NarrativeElement is something the story introduced that a later turn
// may call back (seed 002 FR76–FR80): a character, an item, a place, an
// event, a promise or a threat. It lives in the state, changed only by
// effects, so restore and fork keep every element and its references.
type NarrativeElement struct {
	ID              string `json:"id"`
	ElementType     string `json:"element_type"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	TurnIntroduced  int    `json:"turn_introduced"`
	TurnsReferenced []int  `json:"turns_referenced"`
	Resolved        bool   `json:"resolved"`
	// Ref is the entity of the state the element stands for (a quest, a
	// character), by which the rules resolve it; "" for one the narration
	// alone introduced.
	Ref string `json:"ref,omitempty"`
	// Private marks an element drawn from what players cannot see (a
	// consequence the GM prepared): only the GM's views keep it.
	Private bool `json:"private,omitempty"`
}

// LastMention is the last turn that introduced or referenced e.
func (e *NarrativeElement) LastMention() int {
	if n := len(e.TurnsReferenced); n > 0 {
		return max(e.TurnIntroduced, e.TurnsReferenced[n-1])
	}
	return e.TurnIntroduced
}

// ElementNamed returns the element with the given name (case-insensitive), or nil.
func (s *State) ElementNamed(name string) *NarrativeElement {
	for _, id := range SortedKeys(s.Elements) {
		if strings.EqualFold(s.Elements[id].Name, strings.TrimSpace(name)) {
			return s.Elements[id]
		}
	}
	return nil
}

// ElementExtracted records a narrative element a turn introduced.
type ElementExtracted struct {
	Element NarrativeElement `json:"element"`
}

func (ElementExtracted) Kind() string { return "element_extracted" }
func (e ElementExtracted) apply(s *State) error {
	el := e.Element
	switch {
	case el.ID == "":
		return fmt.Errorf("narrative element without id")
	case !slices.Contains(ElementTypes, el.ElementType):
		return fmt.Errorf("narrative element %s: unknown type %q", el.ID, el.ElementType)
	case strings.TrimSpace(el.Name) == "":
		return fmt.Errorf("narrative element %s without a name", el.ID)
	case s.Elements[el.ID] != nil:
		return fmt.Errorf("narrative element %s exists already", el.ID)
	}
	if s.Elements == nil {
		s.Elements = map[string]*NarrativeElement{}
	}
	el.TurnsReferenced = slices.Clone(el.TurnsReferenced)
	s.Elements[el.ID] = &el
	return nil
}

// ElementReferenced records that a turn called an element back.
type ElementReferenced struct {
	ID   string `json:"id"`
	Turn int    `json:"turn"`
}

func (ElementReferenced) Kind() string { return "element_referenced" }
func (e ElementReferenced) apply(s *State) error {
	el := s.Elements[e.ID]
	if el == nil {
		return fmt.Errorf("no narrative element %q", e.ID)
	}
	if e.Turn <= el.TurnIntroduced {
		return fmt.Errorf("narrative element %s was introduced on turn %d, not referenced on turn %d", e.ID, el.TurnIntroduced, e.Turn)
	}
	if !slices.Contains(el.TurnsReferenced, e.Turn) {
		el.TurnsReferenced = append(el.TurnsReferenced, e.Turn)
	}
	return nil
}

// ElementResolved marks a promise kept or broken, a threat ended: the
// rules said so (a quest done, a hostile defeated).
type ElementResolved struct {
	ID     string `json:"id"`
	Reason string `json:"reason,omitempty"`
}

func (ElementResolved) Kind() string { return "element_resolved" }
func (e ElementResolved) apply(s *State) error {
	el := s.Elements[e.ID]
	if el == nil {
		return fmt.Errorf("no narrative element %q", e.ID)
	}
	el.Resolved = true
	return nil
}
