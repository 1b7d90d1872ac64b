package contextpack

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/tokens"
	"github.com/hearth-rpg/hearth/world"
)

// Viewer is who a packet is for.
type Viewer struct {
	Role access.Level `json:"role"`
	// Character is the viewer's character (the player's, or an AI
	// character's); whispers to it are visible. Empty for the GM.
	Character string `json:"character,omitempty"`
}

// GM sees everything.
func GM() Viewer { return Viewer{Role: access.GM} }

// PlayerOf is the view of the player controlling character id.
func PlayerOf(id string) Viewer { return Viewer{Role: access.Player, Character: id} }

func (v Viewer) gm() bool { return v.Role >= access.GM }

// Section is one part of a packet.
type Section struct {
	Name   string `json:"name"`
	Tier   int    `json:"tier,omitempty"` // precedence tier, 1 (canon) … 6 (history)
	Stable bool   `json:"stable,omitempty"`
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// Packet is the assembled context.
type Packet struct {
	Viewer Viewer `json:"viewer"`
	Budget int    `json:"budget"`
	// Tokens is all the call spends of the budget: the system prompt, the
	// tool schemas and the sections.
	Tokens int `json:"tokens"`
	// System and Tools are what the system prompt and the tool schemas
	// cost; they come off the budget before any section.
	System   int       `json:"system_tokens,omitempty"`
	Tools    int       `json:"tool_tokens,omitempty"`
	Sections []Section `json:"sections"`
	// Dropped is what the budget left out, lowest precedence first to go.
	Dropped []Drop `json:"dropped,omitempty"`
}

// Turn is a past turn, for the recent-play section.
type Turn struct {
	Number    int
	Input     string
	Narrative string
}

// Summary is a narrative summary of turns From..To.
type Summary struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Text string `json:"text"`
}

// Input is what a packet is built from.
type Input struct {
	World    *world.State
	Campaign Campaign
	Viewer   Viewer
	// Action is the player's words this turn; pending consequences whose
	// triggers it mentions are brought forward.
	Action string
	// Recent turns, oldest first; Summary covers what came before them.
	Recent  []Turn
	Summary *Summary
	// Extra sections (scene lore, retrieved documents) go after the state.
	Extra []Section
	// Budget in cl100k tokens; 0 means DefaultBudget. The system prompt
	// and the tool schemas count against it.
	Budget int
	// System is the call's system prompt and Tools the tools offered with
	// it, counted against the budget (Messages adds the prompt itself).
	System string
	Tools  []llm.Tool
	// Keep, when set, names the sections the call wants (a subagent's
	// slice); the others are left out before the budget is spent.
	Keep func(name string) bool
}

// Campaign is the stable, authored part of the context.
type Campaign struct {
	Title, Genre, Tone, Description, RulesHint string
}

// DefaultBudget is the packet budget when none is given. It covers the
// system prompt and the tool schemas too, and the general game master's
// tool schemas alone come to about 4,000 tokens.
const DefaultBudget = 8000

// MaxFacts is how many facts are considered, most important first.
const MaxFacts = 60

// Builder builds packets. It caches token counts of texts it has seen,
// since most of a packet repeats from turn to turn. Safe for concurrent use.
type Builder struct {
	tok   *tokens.Counter
	mu    sync.Mutex
	cache map[string]int
}

// NewBuilder returns a builder counting with tok.
func NewBuilder(tok *tokens.Counter) *Builder {
	return &Builder{tok: tok, cache: map[string]int{}}
}

const cacheLimit = 8192

func (b *Builder) count(s string) int {
	if len(s) > 16<<10 {
		return b.tok.Count(s)
	}
	b.mu.Lock()
	n, ok := b.cache[s]
	b.mu.Unlock()
	if ok {
		return n
	}
	n = b.tok.Count(s)
	b.mu.Lock()
	if len(b.cache) >= cacheLimit {
		clear(b.cache)
	}
	b.cache[s] = n
	b.mu.Unlock()
	return n
}

// Build assembles the packet for in. The system prompt and the tool
// schemas are spent first; the required sections (campaign, state,
// action) are always present, truncated if they alone exceed what is
// left; the rest are given the budget in precedence order — tier by tier,
// facts and recent turns line by line — and what does not fit beside
// everything of higher precedence is dropped and listed. Kept sections
// appear in a fixed order, stable ones first, whatever their tier. Only a
// system prompt, tools and action that alone exceed the budget take a
// packet over it.
func (b *Builder) Build(in Input) *Packet {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	w, v := in.World, in.Viewer
	p := &Packet{Viewer: v, Budget: budget}
	keep := func(name string) bool { return in.Keep == nil || in.Keep(name) }
	if in.System != "" {
		p.System = b.count(in.System)
	}
	p.Tools = b.toolTokens(in.Tools)
	used := p.System + p.Tools

	campaign := b.section("campaign", TierCanon, true, campaignText(in.Campaign))
	state := b.section("state", TierState, false, stateText(w, v))
	action := b.section("action", TierState, false, actionText(in.Action))
	required := []*Section{&campaign, &state, &action}
	for _, s := range required {
		if !keep(s.Name) {
			*s = Section{}
		}
	}
	// Required sections first; the state gives way if they do not fit.
	if over := used + campaign.Tokens + state.Tokens + action.Tokens - budget; over > 0 {
		state.Text, state.Tokens = b.truncate(state, state.Tokens-over)
		if over := used + campaign.Tokens + state.Tokens + action.Tokens - budget; over > 0 {
			campaign.Text, campaign.Tokens = b.truncate(campaign, campaign.Tokens-over)
		}
	}
	used += campaign.Tokens + state.Tokens + action.Tokens

	// The optional parts in the order they appear; each fills itself from
	// what is left when its turn in precedence order comes.
	type part struct {
		tier int
		fill func(left int) (Section, []Drop)
	}
	var parts []part
	whole := func(s Section) {
		if s.Text == "" || !keep(s.Name) {
			return
		}
		if s.Tokens == 0 {
			s.Tokens = b.count(s.Text)
		}
		if s.Tier == 0 {
			s.Tier = TierContext // a section that names no tier yields to state and authored prose
		}
		parts = append(parts, part{s.Tier, func(left int) (Section, []Drop) {
			if s.Tokens > left {
				return Section{}, []Drop{{What: "section:" + s.Name, Tier: s.Tier, Tokens: s.Tokens, Over: s.Tokens - left}}
			}
			return s, nil
		}})
	}
	whole(b.section("characters", TierAuthored, false, charactersText(w, v)))
	whole(b.section("quests", TierState, false, questsText(w, v)))
	if v.gm() {
		whole(b.section("consequences", TierState, false, consequencesText(w, in.Action)))
	}
	whole(b.section("whispers", TierState, false, whispersText(w, v)))
	for _, s := range in.Extra {
		whole(s)
	}
	if keep("facts") {
		parts = append(parts, part{TierFacts, func(left int) (Section, []Drop) { return b.facts(w, v, left) }})
	}
	if in.Summary != nil && in.Summary.Text != "" {
		whole(b.section("summary", TierHistory, false, fmt.Sprintf(
			"Summary of turns %d–%d (narrative, lossy; the facts above take precedence):\n%s",
			in.Summary.From, in.Summary.To, in.Summary.Text)))
	}
	if keep("recent") {
		parts = append(parts, part{TierHistory, func(left int) (Section, []Drop) { return b.recent(in.Recent, left) }})
	}

	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, c int) int { return parts[a].tier - parts[c].tier })
	kept := make([]Section, len(parts))
	for _, i := range order {
		s, drops := parts[i].fill(max(0, budget-used))
		used += s.Tokens
		kept[i] = s
		p.Dropped = append(p.Dropped, drops...)
	}
	for _, s := range []Section{campaign, state} {
		if s.Name != "" {
			p.Sections = append(p.Sections, s)
		}
	}
	for _, s := range kept {
		if s.Name != "" {
			p.Sections = append(p.Sections, s)
		}
	}
	if action.Name != "" {
		p.Sections = append(p.Sections, action)
	}
	p.Tokens = used
	return p
}

// facts is the facts section: the most important first, one by one while
// they fit in left tokens.
func (b *Builder) facts(w *world.State, v Viewer, left int) (Section, []Drop) {
	const header = "Established facts (canon, authoritative):\n"
	var text strings.Builder
	n := b.count(header)
	var drops []Drop
	top := w.TopFacts(MaxFacts, v.Role)
	for i, f := range top {
		line := "- " + f.Text + "\n"
		c := b.count(line)
		if n+c > left {
			over := n + c - left
			for _, rest := range top[i:] {
				drops = append(drops, Drop{What: "fact:" + rest.ID, Tier: TierFacts, Tokens: b.count("- " + rest.Text + "\n"), Over: over})
			}
			break
		}
		text.WriteString(line)
		n += c
	}
	if text.Len() == 0 {
		return Section{}, drops
	}
	return Section{Name: "facts", Tier: TierFacts, Text: strings.TrimRight(header+text.String(), "\n"), Tokens: n}, drops
}

// recent is the recent-play section: the newest turns while they fit in
// left tokens, shown oldest first.
func (b *Builder) recent(turns []Turn, left int) (Section, []Drop) {
	const header = "Recent play (oldest first):\n"
	var lines []string
	n := b.count(header)
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		line := fmt.Sprintf("Turn %d. Player: %s\nGM: %s\n", t.Number, oneLine(t.Input), oneLine(t.Narrative))
		c := b.count(line)
		if n+c > left {
			drop := Drop{What: fmt.Sprintf("turns:%d-%d", turns[0].Number, t.Number), Tier: TierHistory, Tokens: c, Over: n + c - left}
			if len(lines) == 0 {
				return Section{}, []Drop{drop}
			}
			slices.Reverse(lines)
			return Section{Name: "recent", Tier: TierHistory, Text: strings.TrimRight(header+strings.Join(lines, ""), "\n"), Tokens: n}, []Drop{drop}
		}
		lines = append(lines, line)
		n += c
	}
	if len(lines) == 0 {
		return Section{}, nil
	}
	slices.Reverse(lines)
	return Section{Name: "recent", Tier: TierHistory, Text: strings.TrimRight(header+strings.Join(lines, ""), "\n"), Tokens: n}, nil
}

// toolTokens is what the tool schemas cost as a provider sends them.
func (b *Builder) toolTokens(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		js, err := json.Marshal(t)
		if err != nil {
			js = []byte(t.Name + t.Description + string(t.Parameters))
		}
		n += b.count(string(js))
	}
	return n
}

// truncate shortens a required section to at most n tokens.
func (b *Builder) truncate(s Section, n int) (string, int) {
	return b.tok.Truncate(s.Text, max(0, n))
}

func (b *Builder) section(name string, tier int, stable bool, text string) Section {
	text = strings.TrimSpace(text)
	return Section{Name: name, Tier: tier, Stable: stable, Text: text, Tokens: b.count(text)}
}

// Text joins the sections.
func (p *Packet) Text() string {
	var b strings.Builder
	for i, s := range p.Sections {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## %s\n%s", s.Name, s.Text)
	}
	return b.String()
}

// Messages lays the packet out for a model: the system prompt and the
// stable sections in one system message marked for prompt caching, the
// volatile sections in a second, and the player's action as the user
// message.
func (p *Packet) Messages(system string) []llm.Message {
	var stable, volatile strings.Builder
	stable.WriteString(system)
	action := ""
	for _, s := range p.Sections {
		switch {
		case s.Name == "action":
			action = s.Text
		case s.Stable:
			fmt.Fprintf(&stable, "\n\n## %s\n%s", s.Name, s.Text)
		default:
			if volatile.Len() > 0 {
				volatile.WriteString("\n\n")
			}
			fmt.Fprintf(&volatile, "## %s\n%s", s.Name, s.Text)
		}
	}
	msgs := []llm.Message{{Role: llm.System, Content: stable.String(), Cache: true}}
	if volatile.Len() > 0 {
		msgs = append(msgs, llm.Message{Role: llm.System, Content: volatile.String()})
	}
	if action != "" {
		msgs = append(msgs, llm.Message{Role: llm.User, Content: action})
	}
	return msgs
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
