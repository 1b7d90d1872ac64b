package world

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Resolution systems a campaign can choose.
const (
	SystemD20       = "d20"       // 5e-style: d20 + modifiers against DC or AC
	System2d6       = "2d6"       // 2d6 bands: 6- fail, 7-9 partial, 10+ success
	SystemTraveller = "traveller" // Traveller: 2D6 + DMs against 8+, with Effect
)

// State is the whole game state. The zero value is not ready for use; call
// New. State is not safe for concurrent use: the game layer serialises
// turns.
type State struct {
	// Turn is the number of the turn being (or last) applied.
	Turn   int      `json:"turn"`
	Time   GameTime `json:"time"`
	System string   `json:"system"`
	// Player is the ID of the character acting this turn: the one the
	// player controls in a game of one, the party member whose turn it is
	// in a party (changed only by ActorChanged).
	Player string `json:"player"`
	// Party lists the player characters in their order; empty in a game of
	// one (see Members).
	Party []PartyMember `json:"party,omitempty"`
	Scene Scene         `json:"scene"`

	Characters   map[string]*Character      `json:"characters"`
	Locations    map[string]*Location       `json:"locations"`
	Items        map[string]*Item           `json:"items"`
	Quests       map[string]*Quest          `json:"quests"`
	Factions     map[string]*Faction        `json:"factions"`
	Facts        map[string]*Fact           `json:"facts"`
	Clocks       map[string]*Clock          `json:"clocks"`
	Threads      map[string]*Thread         `json:"threads"`
	Consequences map[string]*Consequence    `json:"consequences"`
	Scheduled    map[string]*ScheduledEvent `json:"scheduled"`
	Events       map[string]*Event          `json:"events"`
	Whispers     map[string]*Whisper        `json:"whispers"`
	StatDefs     map[string]*StatDef        `json:"stat_defs"`
	// Memory is each party member agent's memory, by character.
	Memory map[string]*Memory `json:"agent_memory,omitempty"`
	// Elements are the story's narrative elements a later turn may call
	// back, by ID.
	Elements map[string]*NarrativeElement `json:"narrative_elements,omitempty"`
	// Module is the adventure module the game master runs, nil for none:
	// the GM's alone (View drops it for everyone else).
	Module *Module `json:"module,omitempty"`

	Relationships []Relationship `json:"relationships,omitempty"`
	Combat        *Combat        `json:"combat,omitempty"`
	Decay         DecayRules     `json:"decay"`

	// Vars is free-form session state (seed 001 §2.6) updated by deep merge.
	// Stats and perception named in a patch go to the typed fields instead.
	Vars map[string]any `json:"vars,omitempty"`
}

// New returns an empty state for the given resolution system.
func New(system string) *State {
	s := &State{System: system, Decay: DefaultDecay()}
	s.init()
	return s
}

func (s *State) init() {
	if s.Characters == nil {
		s.Characters = map[string]*Character{}
	}
	if s.Locations == nil {
		s.Locations = map[string]*Location{}
	}
	if s.Items == nil {
		s.Items = map[string]*Item{}
	}
	if s.Quests == nil {
		s.Quests = map[string]*Quest{}
	}
	if s.Factions == nil {
		s.Factions = map[string]*Faction{}
	}
	if s.Facts == nil {
		s.Facts = map[string]*Fact{}
	}
	if s.Clocks == nil {
		s.Clocks = map[string]*Clock{}
	}
	if s.Threads == nil {
		s.Threads = map[string]*Thread{}
	}
	if s.Consequences == nil {
		s.Consequences = map[string]*Consequence{}
	}
	if s.Scheduled == nil {
		s.Scheduled = map[string]*ScheduledEvent{}
	}
	if s.Events == nil {
		s.Events = map[string]*Event{}
	}
	if s.Whispers == nil {
		s.Whispers = map[string]*Whisper{}
	}
	if s.StatDefs == nil {
		s.StatDefs = map[string]*StatDef{}
	}
}

// UnmarshalJSON decodes a state and makes its maps ready for use.
func (s *State) UnmarshalJSON(b []byte) error {
	type plain State
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = State(p)
	s.init()
	return nil
}

// Clone returns a deep copy, made through JSON so it cannot share memory.
func (s *State) Clone() (*State, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("clone state: %w", err)
	}
	var c State
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("clone state: %w", err)
	}
	return &c, nil
}

// PC returns the player's character, or nil if none is set.
func (s *State) PC() *Character { return s.Characters[s.Player] }

// Here returns the location of the player's character, or nil.
func (s *State) Here() *Location {
	if pc := s.PC(); pc != nil {
		return s.Locations[pc.Location]
	}
	return nil
}

// CharactersAt returns the characters at a location other than the player,
// ordered by name so output is deterministic.
func (s *State) CharactersAt(location string) []*Character {
	var out []*Character
	for _, c := range s.Characters {
		if c.Location == location && c.ID != s.Player {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *Character) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out
}

// Alive reports whether a character can still act.
func (c *Character) Alive() bool {
	return c.MaxHP == 0 || c.HP > 0
}

// HasCondition reports whether the character has the condition.
func (c *Character) HasCondition(cond string) bool {
	return slices.ContainsFunc(c.Conditions, func(x string) bool { return strings.EqualFold(x, cond) })
}

// Exit returns the exit from l leading to the location to, if any.
func (l *Location) Exit(to string) (Exit, bool) {
	for _, e := range l.Exits {
		if e.To == to {
			return e, true
		}
	}
	return Exit{}, false
}

// Objective returns the quest's objective with the given ID, or nil.
func (q *Quest) Objective(id string) *Objective {
	for i := range q.Objectives {
		if q.Objectives[i].ID == id {
			return &q.Objectives[i]
		}
	}
	return nil
}

// SortedKeys returns a map's keys in order; every loop over a map whose
// result is visible goes through it so play is deterministic.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
