package modelgm

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/world"
)

// PartyAgent plays one party member with the member's own model (seed 002's
// character agents): it prompts the model with the character's
// personality and sheet, the scene before it, the party's quests, its own
// whispers and its own memory, and returns the action the model chose as
// the words a player would type. It is given only the character's own
// view (game.AgentView), and of that it uses no place the character does
// not stand in and no event: what happened elsewhere reaches it only
// through its memory, which holds what it witnessed.
type PartyAgent struct {
	Role Role
}

// NewPartyAgent returns the agent of a member whose model is role.
func NewPartyAgent(role Role) *PartyAgent { return &PartyAgent{Role: role} }

var _ game.Agent = (*PartyAgent)(nil)

// Name is the agent's "provider/model", as turns record it.
func (a *PartyAgent) Name() string {
	return a.Role.Provider.Name() + "/" + a.Role.Model
}

// maxAction bounds the action taken from a model's reply.
const maxAction = 300

// Decide asks the member's model what the character does.
func (a *PartyAgent) Decide(ctx context.Context, view *world.State, m world.PartyMember) (string, error) {
	prompt, err := AgentPrompt(view, m)
	if err != nil {
		return "", err
	}
	resp, err := a.Role.Provider.Chat(ctx, llm.Request{Model: a.Role.Model, MaxTokens: 120, Messages: []llm.Message{
		{Role: llm.System, Content: agentSystem},
		{Role: llm.User, Content: prompt},
	}}, nil)
	if err != nil {
		return "", fmt.Errorf("%s decides for %s: %w", a.Name(), m.Character, err)
	}
	action := actionLine(resp.Message.Content)
	if action == "" {
		return "", fmt.Errorf("%s decided nothing for %s", a.Name(), m.Character)
	}
	return action, nil
}

const agentSystem = `You play one player character in a tabletop role-playing game run by a game master.
Stay in character: act as the personality below would. Decide the character's next action only.
Answer with one short line in the first person imperative a player would type (for example "talk to the innkeeper", "go north", "search the crates", "attack the wolf", "drink the healing potion"). No narration, no quotes, no explanation.
Whispers marked [SECRET - DO NOT REVEAL DIRECTLY] are known to your character alone; act on them, but do not say them aloud.`

// AgentPrompt is what a member's model is told: the character, the scene
// where it stands, the quests, its whispers and its memory, all from view,
// the character's own view of the world.
func AgentPrompt(view *world.State, m world.PartyMember) (string, error) {
	me := view.Characters[m.Character]
	if me == nil {
		return "", fmt.Errorf("%q is not in its own view of the world", m.Character)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s", me.Name)
	if cls := cmpOr(m.Class, me.Class); cls != "" {
		fmt.Fprintf(&b, ", a %s", cls)
	}
	fmt.Fprintf(&b, ". Hit points %d of %d.\n", me.HP, me.MaxHP)
	p := m.Personality
	for _, f := range []struct{ name, v string }{{"Traits", p.Traits}, {"Ideals", p.Ideals}, {"Bonds", p.Bonds},
		{"Flaws", p.Flaws}, {"Backstory", p.Backstory}} {
		if f.v != "" {
			fmt.Fprintf(&b, "%s: %s\n", f.name, f.v)
		}
	}
	var inv []string
	for _, id := range world.SortedKeys(me.Inventory) {
		if n := me.Inventory[id]; n > 0 {
			name := id
			if it := view.Items[id]; it != nil {
				name = it.Name
			}
			inv = append(inv, fmt.Sprintf("%s ×%d", name, n))
		}
	}
	if len(inv) > 0 {
		fmt.Fprintf(&b, "You carry: %s.\n", strings.Join(inv, ", "))
	}

	if here := view.Locations[me.Location]; here != nil {
		fmt.Fprintf(&b, "\nYou are at %s. %s\n", here.Name, strings.TrimSpace(here.Description))
		var who []string
		for _, id := range world.SortedKeys(view.Characters) {
			c := view.Characters[id]
			if c.ID == me.ID || c.Location != me.Location {
				continue
			}
			s := c.Name
			switch {
			case view.InParty(c.ID):
				s += " (your companion)"
			case c.Hostile:
				s += " (hostile)"
			}
			who = append(who, s)
		}
		if len(who) > 0 {
			fmt.Fprintf(&b, "Here with you: %s.\n", strings.Join(who, ", "))
		}
		var exits []string
		for _, e := range here.Exits {
			if e.Hidden || e.Locked {
				continue
			}
			to := e.To
			if l := view.Locations[e.To]; l != nil {
				to = l.Name
			}
			exits = append(exits, strings.TrimSpace(e.Direction+" to "+to))
		}
		if len(exits) > 0 {
			fmt.Fprintf(&b, "Ways on: %s.\n", strings.Join(exits, "; "))
		}
		var items []string
		for _, id := range world.SortedKeys(here.Items) {
			if it := view.Items[id]; it != nil && here.Items[id] > 0 {
				items = append(items, it.Name)
			}
		}
		if len(items) > 0 {
			fmt.Fprintf(&b, "Lying here: %s.\n", strings.Join(items, ", "))
		}
	}
	if view.Combat != nil {
		fmt.Fprintf(&b, "You are in a fight (round %d).\n", view.Combat.Round)
	}

	var quests []string
	for _, id := range world.SortedKeys(view.Quests) {
		q := view.Quests[id]
		if q.Status != world.QuestActive {
			continue
		}
		var open []string
		for _, o := range q.Objectives {
			if !o.Done {
				open = append(open, o.Text)
			}
		}
		quests = append(quests, fmt.Sprintf("- %s: %s", q.Name, strings.Join(open, "; ")))
	}
	if len(quests) > 0 {
		fmt.Fprintf(&b, "\nThe party's quests:\n%s\n", strings.Join(quests, "\n"))
	}

	var secrets []string
	for _, id := range world.SortedKeys(view.Whispers) {
		w := view.Whispers[id]
		if w.To == me.ID && !w.Revealed {
			secrets = append(secrets, "[SECRET - DO NOT REVEAL DIRECTLY] "+w.Text)
		}
	}
	if len(secrets) > 0 {
		fmt.Fprintf(&b, "\nWhispered to you:\n%s\n", strings.Join(secrets, "\n"))
	}

	if mem := view.Memory[me.ID]; mem != nil {
		if mem.Summary != "" {
			fmt.Fprintf(&b, "\nWhat you remember from earlier:\n%s\n", mem.Summary)
		}
		if len(mem.Recent) > 0 {
			b.WriteString("\nWhat you saw lately:\n")
			for _, e := range mem.Recent {
				if e.Secret {
					// Its whispers are listed above while secret.
					continue
				}
				fmt.Fprintf(&b, "(turn %d) %s\n", e.Turn, strings.TrimSpace(e.Text))
			}
		}
	}
	b.WriteString("\nWhat do you do?")
	return b.String(), nil
}

// actionLine is a model's reply cut to the action: its first non-empty
// line, without quotes or a speaker's label, bounded.
func actionLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if i := strings.Index(l, ":"); i > 0 && i < 20 && !strings.Contains(l[:i], " ") {
			l = strings.TrimSpace(l[i+1:]) // "Action: go north"
		}
		l = strings.Trim(l, `"'“”`)
		if r := []rune(l); len(r) > maxAction {
			l = string(r[:maxAction])
		}
		return l
	}
	return ""
}

// MemorySummariser compresses party members' memories with the summariser
// model, each from what that member remembers only.
type MemorySummariser struct {
	Role Role
}

var _ game.MemorySummariser = MemorySummariser{}

// SummariseMemory implements game.MemorySummariser.
func (s MemorySummariser) SummariseMemory(ctx context.Context, character, summary string, entries []world.MemoryEntry) (string, error) {
	var in strings.Builder
	if summary != "" {
		fmt.Fprintf(&in, "Memory so far:\n%s\n\n", summary)
	}
	in.WriteString("To add:\n")
	for _, e := range entries {
		if e.Secret {
			fmt.Fprintf(&in, "(turn %d) [SECRET] %s\n", e.Turn, e.Text)
			continue
		}
		fmt.Fprintf(&in, "(turn %d) %s\n", e.Turn, e.Text)
	}
	resp, err := s.Role.Provider.Chat(ctx, llm.Request{Model: s.Role.Model, Messages: []llm.Message{
		{Role: llm.System, Content: "Rewrite the memory of one character of a role-playing game as a short summary in the second person (under 150 words). Keep names, places, items, promises, threats and goals; drop dialogue. Keep what is marked [SECRET] marked so."},
		{Role: llm.User, Content: in.String()},
	}}, nil)
	if err != nil {
		return "", fmt.Errorf("summarise %s's memory: %w", character, err)
	}
	return strings.TrimSpace(resp.Message.Content), nil
}
