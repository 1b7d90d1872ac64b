package contextpack

import (
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
	Viewer   Viewer    `json:"viewer"`
	Budget   int       `json:"budget"`
	Tokens   int       `json:"tokens"`
	Sections []Section `json:"sections"`
	// Dropped names what the budget left out: "fact:<id>", "turns:1-40".
	Dropped []string `json:"dropped,omitempty"`
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
	// Budget in cl100k tokens; 0 means DefaultBudget.
	Budget int
}

// Campaign is the stable, authored part of the context.
type Campaign struct {
	Title, Genre, Tone, Description, RulesHint string
}

// DefaultBudget is the packet budget when none is given.
const DefaultBudget = 4000

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

// Build assembles the packet for in. Required sections (campaign, state,
// action) are always present, truncated if they alone exceed the budget;
// the rest are added in precedence order while they fit.
func (b *Builder) Build(in Input) *Packet {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	w, v := in.World, in.Viewer
	p := &Packet{Viewer: v, Budget: budget}

	campaign := b.section("campaign", 1, true, campaignText(in.Campaign))
	state := b.section("state", 2, false, stateText(w, v))
	action := b.section("action", 2, false, actionText(in.Action))
	// Required sections first; the state gives way if they do not fit.
	if over := campaign.Tokens + state.Tokens + action.Tokens - budget; over > 0 {
		state.Text, state.Tokens = b.tok.Truncate(state.Text, max(0, state.Tokens-over))
		if over := campaign.Tokens + state.Tokens + action.Tokens - budget; over > 0 {
			campaign.Text, campaign.Tokens = b.tok.Truncate(campaign.Text, max(0, campaign.Tokens-over))
		}
	}
	used := campaign.Tokens + state.Tokens + action.Tokens
	add := func(s Section) bool {
		if s.Text == "" {
			return true
		}
		if used+s.Tokens > budget {
			p.Dropped = append(p.Dropped, "section:"+s.Name)
			return false
		}
		used += s.Tokens
		p.Sections = append(p.Sections, s)
		return true
	}
	p.Sections = append(p.Sections, campaign, state)
	add(b.section("characters", 3, false, charactersText(w, v)))
	add(b.section("quests", 2, false, questsText(w, v)))
	if v.gm() {
		add(b.section("consequences", 2, false, consequencesText(w, in.Action)))
	}
	add(b.section("whispers", 2, false, whispersText(w, v)))
	for _, s := range in.Extra {
		if s.Tokens == 0 {
			s.Tokens = b.count(s.Text)
		}
		add(s)
	}
	// Facts, most important first, one by one while they fit.
	var facts strings.Builder
	factTokens := b.count("Established facts (canon, authoritative):\n")
	top := w.TopFacts(MaxFacts, v.Role)
	for i, f := range top {
		line := "- " + f.Text + "\n"
		n := b.count(line)
		if used+factTokens+n > budget {
			for _, rest := range top[i:] {
				p.Dropped = append(p.Dropped, "fact:"+rest.ID)
			}
			break
		}
		facts.WriteString(line)
		factTokens += n
	}
	if facts.Len() > 0 {
		text := "Established facts (canon, authoritative):\n" + facts.String()
		used += factTokens
		p.Sections = append(p.Sections, Section{Name: "facts", Tier: 5, Text: strings.TrimRight(text, "\n"), Tokens: factTokens})
	}
	if in.Summary != nil && in.Summary.Text != "" {
		add(b.section("summary", 6, false, fmt.Sprintf(
			"Summary of turns %d–%d (narrative, lossy; the facts above take precedence):\n%s",
			in.Summary.From, in.Summary.To, in.Summary.Text)))
	}
	// Recent turns, newest first while they fit, shown oldest first.
	var recent []string
	header := "Recent play (oldest first):\n"
	recentTokens := b.count(header)
	kept := 0
	for i := len(in.Recent) - 1; i >= 0; i-- {
		t := in.Recent[i]
		line := fmt.Sprintf("Turn %d. Player: %s\nGM: %s\n", t.Number, oneLine(t.Input), oneLine(t.Narrative))
		n := b.count(line)
		if used+recentTokens+n > budget {
			p.Dropped = append(p.Dropped, fmt.Sprintf("turns:%d-%d", in.Recent[0].Number, t.Number))
			break
		}
		recent = append(recent, line)
		recentTokens += n
		kept++
	}
	if kept > 0 {
		slices.Reverse(recent)
		used += recentTokens
		p.Sections = append(p.Sections, Section{Name: "recent", Tier: 6, Text: strings.TrimRight(header+strings.Join(recent, ""), "\n"), Tokens: recentTokens})
	}
	p.Sections = append(p.Sections, action)
	p.Tokens = used
	return p
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
