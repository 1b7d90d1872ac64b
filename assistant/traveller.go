package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/rules/traveller"
)

// Traveller holds what the Traveller tools read: the world list jump
// routes may stop at (Traveller Map's tab-separated export; may be empty)
// and the trade-code rules the table uses.
type Traveller struct {
	Worlds []traveller.World
	Rules  traveller.Rules
}

type uwpArgs struct {
	UWP   string `json:"uwp" jsonschema:"the Universal World Profile, e.g. A788899-C"`
	Rules string `json:"rules,omitempty" jsonschema:"trade-code rules: mgt2e (Mongoose 2e, default) or t5 (Second Survey, as published sector data)"`
}

type jumpArgs struct {
	From       string `json:"from" jsonschema:"where the ship is: a world name or sector and hex, e.g. Regina or Spinward Marches 1910"`
	To         string `json:"to" jsonschema:"where it is going, the same way"`
	JumpRating int    `json:"jump_rating" jsonschema:"the ship's jump drive rating, 1 to 6"`
	HullTons   int    `json:"hull_tons,omitempty" jsonschema:"the ship's hull tonnage, for fuel (default 200)"`
}

type skillArgs struct {
	Skill string `json:"skill" jsonschema:"the skill's name, e.g. Engineer or Streetwise"`
}

var (
	uwpSchema   = sync.OnceValue(func() json.RawMessage { return schema[uwpArgs](map[string][]any{"rules": {"mgt2e", "t5"}}) })
	jumpSchema  = sync.OnceValue(func() json.RawMessage { return schema[jumpArgs](nil) })
	skillSchema = sync.OnceValue(func() json.RawMessage { return schema[skillArgs](nil) })
)

func (t *Traveller) tools(tb *Toolbox, c Caller) []agent.Tool {
	tools := []agent.Tool{
		{Tool: llm.Tool{Name: TravellerUWPParse, Description: "Decode a Traveller world's UWP: starport, size, atmosphere, hydrographics, population, government, law and tech level with what each means, and its trade codes.",
			Parameters: uwpSchema()},
			Status: "Reading the world profile…",
			Run:    func(_ context.Context, args json.RawMessage) (agent.Result, error) { return t.parseUWP(args) }},
		{Tool: llm.Tool{Name: TravellerJumpCalc, Description: "Plot a Traveller jump between two worlds: distance in parsecs (across sectors too), whether one jump reaches, the route for the ship's jump rating, fuel and time in jump space.",
			Parameters: jumpSchema()},
			Status: "Plotting the jump…",
			Run:    func(_ context.Context, args json.RawMessage) (agent.Result, error) { return t.jump(args) }},
	}
	if tb.Search != nil {
		tools = append(tools, agent.Tool{Tool: llm.Tool{Name: TravellerSkillLookup, Description: "Look up a Traveller skill in the table's rulebooks: what it covers, its specialities and typical checks.",
			Parameters: skillSchema()},
			Status: "Looking up the skill…",
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return tb.skill(ctx, c.For(ctx), args)
			}})
	}
	return tools
}

func (t *Traveller) parseUWP(raw json.RawMessage) (agent.Result, error) {
	var a uwpArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	rules := t.Rules
	if a.Rules != "" {
		r, err := traveller.ParseRules(a.Rules)
		if err != nil {
			return agent.Result{}, hearth.Errorf(hearth.Invalid, "%w", err)
		}
		rules = r
	}
	u, err := traveller.Parse(a.UWP)
	if err != nil {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "%w", err)
	}
	out := struct {
		Profile     traveller.UWP    `json:"profile"`
		Description string           `json:"description"`
		Rules       traveller.Rules  `json:"trade_code_rules"`
		TradeCodes  []traveller.Code `json:"trade_codes"`
	}{u, u.Describe(), rules, traveller.TradeCodes(u, rules)}
	b, err := json.Marshal(out)
	if err != nil {
		return agent.Result{}, err
	}
	return agent.Result{Content: string(b), Summary: u.String()}, nil
}

// hexAt reads "Sector Name 1910" (or "Spin 1910").
var hexAt = regexp.MustCompile(`^(.+?)\s+(\d{4})$`)

// world finds a world in the list, or takes "sector hex" as a place when
// the list does not have it (distance needs only the place).
func (t *Traveller) world(q string) (traveller.World, error) {
	q = strings.TrimSpace(q)
	w, err := traveller.Find(t.Worlds, q)
	if err == nil {
		return w, nil
	}
	var amb *traveller.AmbiguousError
	if errors.As(err, &amb) {
		return w, hearth.Errorf(hearth.Invalid, "%w", err)
	}
	if m := hexAt.FindStringSubmatch(q); m != nil {
		return traveller.World{Sector: m[1], Hex: m[2], Name: q}, nil
	}
	if len(t.Worlds) == 0 {
		return w, hearth.Errorf(hearth.Invalid, "no world list is loaded, so %q must be given as sector and hex, e.g. \"Spinward Marches 1910\"", q)
	}
	return w, err
}

func (t *Traveller) jump(raw json.RawMessage) (agent.Result, error) {
	var a jumpArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	if a.JumpRating < 1 || a.JumpRating > traveller.MaxJump {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "jump_rating %d: a drive is rated 1 to %d", a.JumpRating, traveller.MaxJump)
	}
	if a.HullTons == 0 {
		a.HullTons = 200
	}
	from, err := t.world(a.From)
	if err != nil {
		return agent.Result{}, hearth.Errorf(hearth.ErrorCode(err), "from: %w", err)
	}
	to, err := t.world(a.To)
	if err != nil {
		return agent.Result{}, hearth.Errorf(hearth.ErrorCode(err), "to: %w", err)
	}
	dist, err := traveller.Distance(from, to)
	if err != nil {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "%w", err)
	}
	out := map[string]any{"from": from, "to": to, "distance_parsecs": dist, "jump_rating": a.JumpRating,
		"one_jump": dist <= a.JumpRating}
	route := []traveller.World{from, to}
	if dist > a.JumpRating {
		if len(t.Worlds) == 0 {
			out["route"] = "no world list is loaded, so no route through other worlds can be plotted"
			route = nil
		} else if route, err = traveller.Route(from, to, a.JumpRating, t.Worlds); err != nil {
			out["route"] = err.Error()
			route = nil
		}
	}
	if route != nil {
		trip, err := traveller.Plan(route, a.HullTons)
		if err != nil {
			return agent.Result{}, hearth.Errorf(hearth.Invalid, "%w", err)
		}
		out["trip"] = trip
	}
	b, err := json.Marshal(out)
	if err != nil {
		return agent.Result{}, err
	}
	return agent.Result{Content: string(b), Summary: fmt.Sprintf("%s → %s: %d parsecs", from.Name, to.Name, dist)}, nil
}

func (tb *Toolbox) skill(ctx context.Context, c Caller, raw json.RawMessage) (agent.Result, error) {
	var a skillArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	name := strings.TrimSpace(a.Skill)
	if name == "" || len(name) > 60 {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "skill must name a skill, e.g. Engineer")
	}
	res, err := tb.Search.Search(ctx, retrieve.Query{Text: name + " skill", Role: c.Role, Limit: 10, Budget: searchBudget,
		Filter: retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}})
	if err != nil {
		return agent.Result{}, fmt.Errorf("search: %w", err)
	}
	// Passages under a heading naming the skill are its entry; the rest
	// only mention it.
	var entry, mention []retrieve.Passage
	for _, p := range res.Passages {
		if strings.Contains(strings.ToLower(p.Chunk.Heading()), strings.ToLower(name)) {
			entry = append(entry, p)
		} else {
			mention = append(mention, p)
		}
	}
	ps := append(entry, mention...)
	if len(ps) > 5 {
		ps = ps[:5]
	}
	if len(ps) == 0 {
		return agent.Result{Content: fmt.Sprintf("The books have nothing on the skill %q.", name), Summary: "nothing found"}, nil
	}
	return agent.Result{Content: FormatPassages(ps), Summary: fmt.Sprintf("%s: %d passages", name, len(ps))}, nil
}
