package world

import (
	"fmt"
	"slices"
)

// Memory is what one party member's agent remembers (seed 002, "Memory
// System Architecture"): a short-term buffer of the turns it witnessed,
// was told or was whispered, newest last, and a long-term summary of the
// older ones. It lives in the state, changed only by effects, so that
// snapshots, restore and fork keep every agent's memory exactly.
type Memory struct {
	Summary string `json:"summary,omitempty"`
	// Through is the last turn the summary covers.
	Through int           `json:"through,omitempty"`
	Recent  []MemoryEntry `json:"recent,omitempty"`
}

// MemoryEntry is one remembered turn.
type MemoryEntry struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
	// Secret marks a whisper: the agent knows it but must not reveal it
	// directly.
	Secret bool `json:"secret,omitempty"`
}

// MemoryRecorded adds an entry to a party member's short-term memory.
type MemoryRecorded struct {
	Character string      `json:"character"`
	Entry     MemoryEntry `json:"entry"`
}

func (MemoryRecorded) Kind() string { return "memory_recorded" }
func (e MemoryRecorded) apply(s *State) error {
	if !s.InParty(e.Character) {
		return fmt.Errorf("%q is not in the party; only party members remember", e.Character)
	}
	if s.Memory == nil {
		s.Memory = map[string]*Memory{}
	}
	m := s.Memory[e.Character]
	if m == nil {
		m = &Memory{}
		s.Memory[e.Character] = m
	}
	m.Recent = append(m.Recent, e.Entry)
	return nil
}

// MemoryCompressed folds a member's oldest short-term entries, up to and
// including turn Through, into its long-term Summary (which replaces the
// old one: the summariser was given it).
type MemoryCompressed struct {
	Character string `json:"character"`
	Through   int    `json:"through"`
	Summary   string `json:"summary"`
}

func (MemoryCompressed) Kind() string { return "memory_compressed" }
func (e MemoryCompressed) apply(s *State) error {
	m := s.Memory[e.Character]
	if m == nil {
		return fmt.Errorf("%q remembers nothing to compress", e.Character)
	}
	if e.Through < m.Through {
		return fmt.Errorf("%s's memory is summarised through turn %d already, not back to %d", e.Character, m.Through, e.Through)
	}
	m.Recent = slices.DeleteFunc(m.Recent, func(x MemoryEntry) bool { return x.Turn <= e.Through })
	m.Summary, m.Through = e.Summary, e.Through
	return nil
}
