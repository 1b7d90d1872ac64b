package lore

import (
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

// DefaultTurnBudget is what a turn spends on lore: the scene cache and
// keyword lore together.
const DefaultTurnBudget = 2500

// Book is a keyword lorebook the keeper activates every turn, with the
// access level its entries are read at.
type Book struct {
	Book   *lorebook.Book
	Access access.Level
}

// TurnInput is what a turn's lore is chosen from.
type TurnInput struct {
	Cache *Cache
	// Messages is the recent conversation, oldest first: the scan buffer
	// for keyword lore.
	Messages []string
	Turn     int
	Seed     uint64
	// State carries keyword lore's timed effects from turn to turn; nil
	// activates without them.
	State *lorebook.State
	// Budget is shared by the scene cache and keyword lore; 0 means
	// DefaultTurnBudget.
	Budget  int
	Counter *tokens.Counter
}

// TurnLore is the lore chosen for a turn, for every reader at once: each
// passage keeps its access level and Sections projects it.
type TurnLore struct {
	Cache   *Cache    `json:"-"`
	Keyword []Passage `json:"keyword,omitempty"`
	// Kept are the ids of the passages within the budget, best first.
	Kept []string `json:"kept,omitempty"`
	// Cuts are what was considered and left out: keyword entries that
	// matched but lost (budget, group, probability, cooldown, delay) and
	// cache passages that did not fit.
	Cuts []Cut `json:"cuts,omitempty"`
}

// Turn activates keyword lore over the conversation and fits it with the
// scene cache into one budget. Keyword entries (what the conversation has
// just brought up) and cache passages (the scene's preparation) alternate
// in rank, so neither crowds the other out.
func (k *Keeper) Turn(in TurnInput) TurnLore {
	out := TurnLore{Cache: in.Cache}
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultTurnBudget
	}
	var keyword []retrieve.Passage
	for _, b := range k.Books {
		a := b.Book.Activate(lorebook.Input{Messages: in.Messages, Counter: in.Counter, Seed: in.Seed, Turn: in.Turn}, in.State)
		for _, c := range a.Cut {
			out.Cuts = append(out.Cuts, Cut{ID: lorebook.PassageID(a.Book, c.UID), Section: "keyword", Reason: string(c.Reason), Why: c.Detail})
		}
		for i, p := range a.Passages() {
			src := "lorebook " + b.Book.Name
			if p.Comment != "" {
				src += " › " + p.Comment
			}
			lp := Passage{ID: p.ID, Source: src, Text: p.Text, Tokens: p.Tokens, Access: b.Access, Why: "keyword " + fmt.Sprintf("%q", p.Key)}
			out.Keyword = append(out.Keyword, lp)
			keyword = append(keyword, asRetrieved(lp, retrieve.Keyword, i+1))
		}
	}
	var cached []retrieve.Passage
	if c := in.Cache; c != nil {
		for _, p := range c.all() {
			cached = append(cached, asRetrieved(p, retrieve.Metadata, len(cached)+1))
		}
	}
	var ranked []retrieve.Passage
	for i := 0; i < max(len(keyword), len(cached)); i++ {
		if i < len(keyword) {
			ranked = append(ranked, keyword[i])
		}
		if i < len(cached) {
			ranked = append(ranked, cached[i])
		}
	}
	fit := retrieve.Fit(ranked, budget)
	for _, p := range fit.Passages {
		out.Kept = append(out.Kept, p.Chunk.ID)
	}
	for _, p := range fit.Considered {
		if p.Trace.Cut != retrieve.Kept {
			out.Cuts = append(out.Cuts, Cut{ID: p.Chunk.ID, Section: "turn", Reason: string(p.Trace.Cut)})
		}
	}
	return out
}

// Sections projects the turn's lore for a reader with role: only kept
// passages the role may see.
func (t TurnLore) Sections(role access.Level, count func(string) int) []contextpack.Section {
	kept := make(map[string]bool, len(t.Kept))
	for _, id := range t.Kept {
		kept[id] = true
	}
	out := t.Cache.sections(role, count, func(id string) bool { return kept[id] })
	var b strings.Builder
	for _, p := range t.Keyword {
		if kept[p.ID] && role.CanSee(p.Access) {
			fmt.Fprintf(&b, "- (%s) %s\n", p.Source, oneLine(p.Text))
		}
	}
	if b.Len() > 0 {
		text := strings.TrimRight(b.String(), "\n")
		out = append(out, contextpack.Section{Name: "lore: keyword", Tier: 3, Text: text, Tokens: count(text)})
	}
	return out
}

// asRetrieved dresses a cache or keyword passage as a retrieved one so
// retrieve.Fit can budget them together. The access level travels along
// so that nothing about a passage is lost; projection happens later.
func asRetrieved(p Passage, kind retrieve.SignalKind, rank int) retrieve.Passage {
	return retrieve.Passage{
		Chunk: chunk.Chunk{ID: p.ID, Text: p.Text, Tokens: p.Tokens, Access: p.Access},
		Trace: retrieve.Trace{Signals: []retrieve.Signal{{Kind: kind, Rank: rank}}},
	}
}

// all lists the cache's passages in section order: atmosphere, briefings,
// discoverable, thread connections.
func (c *Cache) all() []Passage {
	out := append([]Passage(nil), c.Atmosphere...)
	for _, b := range c.NPCBriefings {
		out = append(out, b.Passages...)
	}
	out = append(out, c.Discoverable...)
	return append(out, c.ThreadConnections...)
}
