package assistant

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// jumpParams is traveller_jump_calc's schema: the seed's distance and ship
// (seed 000 appendix A), or two worlds to plot a route between.
type jumpParams struct {
	DistanceParsecs int    `json:"distance_parsecs,omitempty" jsonschema:"parsecs to cover, when no from and to are given"`
	ShipJumpRating  int    `json:"ship_jump_rating" jsonschema:"the ship's jump drive rating, 1 to 6"`
	ShipTonnage     int    `json:"ship_tonnage,omitempty" jsonschema:"the ship's hull tonnage, for fuel (default 200)"`
	From            string `json:"from,omitempty" jsonschema:"instead of a distance: where the ship is, a world name or sector and hex, e.g. Regina or Spinward Marches 1910"`
	To              string `json:"to,omitempty" jsonschema:"with from: where it is going, the same way"`
}

// jumpArgs decodes a call: jumpParams and the names the tool took before
// it followed the seed (jump_rating, hull_tons), still accepted.
type jumpArgs struct {
	jumpParams
	JumpRating int `json:"jump_rating,omitempty"`
	HullTons   int `json:"hull_tons,omitempty"`
}

// skillParams is traveller_skill_lookup's schema (seed 000 appendix A).
type skillParams struct {
	SkillName  string `json:"skill_name" jsonschema:"the skill's name, e.g. Engineer or Streetwise"`
	Speciality string `json:"speciality,omitempty" jsonschema:"a speciality of the skill, e.g. j-drive for Engineer"`
}

// skillArgs also takes skill, the name before the seed's skill_name.
type skillArgs struct {
	skillParams
	Skill string `json:"skill,omitempty"`
}

var (
	uwpSchema   = sync.OnceValue(func() json.RawMessage { return schema[uwpArgs](map[string][]any{"rules": {"mgt2e", "t5"}}) })
	jumpSchema  = sync.OnceValue(func() json.RawMessage { return schema[jumpParams](nil) })
	skillSchema = sync.OnceValue(func() json.RawMessage { return schema[skillParams](nil) })
)

// travellerTools is how many tools Traveller.tools gives at most.
const travellerTools = 3

func (t *Traveller) tools(tb *Toolbox, c Caller) []agent.Tool {
	tools := []agent.Tool{
		{Tool: llm.Tool{Name: TravellerUWPParse, Description: "Decode a Traveller world's UWP: starport, size, atmosphere, hydrographics, population, government, law and tech level with what each means, and its trade codes.",
			Parameters: uwpSchema()},
			Status: "Reading the world profile…",
			Run:    func(_ context.Context, args json.RawMessage) (agent.Result, error) { return t.parseUWP(args) }},
		{Tool: llm.Tool{Name: TravellerJumpCalc, Description: "Calculate a Traveller jump: for a distance in parsecs, or between two worlds (distance across sectors too, and the route), with the ship's jump rating and tonnage: whether one jump reaches, how many jumps, fuel and time in jump space.",
			Parameters: jumpSchema()},
			Status: "Plotting the jump…",
			Run:    func(_ context.Context, args json.RawMessage) (agent.Result, error) { return t.jump(args) }},
	}
	if tb.Search != nil {
		tools = append(tools, agent.Tool{Tool: llm.Tool{Name: TravellerSkillLookup, Description: "Look up a Traveller skill, or one of its specialities, in the table's Traveller books: what it covers, its specialities and typical checks.",
			Parameters: skillSchema()},
			Status: "Looking up the skill…",
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return tb.skill(ctx, callerOf(ctx, c).For(ctx), args)
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
	rating := cmp.Or(a.ShipJumpRating, a.JumpRating)
	tons := cmp.Or(a.ShipTonnage, a.HullTons, 200)
	if rating < 1 || rating > traveller.MaxJump {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "ship_jump_rating %d: a drive is rated 1 to %d", rating, traveller.MaxJump)
	}
	if tons < 1 {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "ship_tonnage %d: a ship displaces at least 1 ton", tons)
	}
	route := a.From != "" || a.To != ""
	switch {
	case route && a.DistanceParsecs != 0:
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "give distance_parsecs, or from and to, not both")
	case !route && a.DistanceParsecs <= 0:
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "give distance_parsecs (1 or more), or from and to")
	case !route:
		return distanceJump(a.DistanceParsecs, rating, tons)
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
	out := map[string]any{"from": from, "to": to, "distance_parsecs": dist, "jump_rating": rating,
		"one_jump": dist <= rating}
	stops := []traveller.World{from, to}
	if dist > rating {
		if len(t.Worlds) == 0 {
			out["route"] = "no world list is loaded, so no route through other worlds can be plotted"
			stops = nil
		} else if stops, err = traveller.Route(from, to, rating, t.Worlds); err != nil {
			out["route"] = err.Error()
			stops = nil
		}
	}
	if stops != nil {
		trip, err := traveller.Plan(stops, tons)
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

// maxDistance bounds a distance-only calculation (a long trade route).
const maxDistance = 1000

// distanceJump is the seed's calculation: a distance flown in jumps of at
// most the drive's rating, with no worlds to stop at named; the legs are
// as long as the drive allows, the last one the rest.
func distanceJump(dist, rating, tons int) (agent.Result, error) {
	if dist > maxDistance {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "distance_parsecs %d: at most %d", dist, maxDistance)
	}
	var legs []int
	var fuel, maxLeg float64
	for left := dist; left > 0; left -= rating {
		leg := min(left, rating)
		f, err := traveller.JumpFuel(tons, leg)
		if err != nil {
			return agent.Result{}, hearth.Errorf(hearth.Invalid, "%w", err)
		}
		legs = append(legs, leg)
		fuel += f
		maxLeg = max(maxLeg, f)
	}
	n := len(legs)
	out := map[string]any{"distance_parsecs": dist, "jump_rating": rating, "ship_tonnage": tons, "one_jump": n == 1,
		"trip": map[string]any{"jumps": n, "legs_parsecs": legs, "fuel_tons": math.Round(fuel*100) / 100, "max_leg_fuel_tons": maxLeg,
			"hours_in_jump_min": n * traveller.JumpHoursMin, "hours_in_jump_max": n * traveller.JumpHoursMax,
			"hours_in_jump_typical": n * traveller.JumpHoursTypical},
		"note": "stops between jumps need a world or gas giant to refuel at, or tankage for every jump"}
	b, err := json.Marshal(out)
	if err != nil {
		return agent.Result{}, err
	}
	return agent.Result{Content: string(b), Summary: fmt.Sprintf("%d parsecs at jump-%d: %d jumps", dist, rating, n)}, nil
}

func (tb *Toolbox) skill(ctx context.Context, c Caller, raw json.RawMessage) (agent.Result, error) {
	var a skillArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	name := strings.TrimSpace(cmp.Or(a.SkillName, a.Skill))
	spec := strings.TrimSpace(a.Speciality)
	if name == "" || len(name) > 60 || len(spec) > 60 {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "skill_name must name a skill, e.g. Engineer")
	}
	// Traveller's books only, whatever the chat selected: a D&D skill of
	// the same name is no answer.
	lib := Selection{System: "traveller", Tags: c.Library.Tags}
	text := strings.TrimSpace(name + " " + spec + " skill")
	res, err := tb.Search.Search(ctx, retrieve.Query{Text: text, Role: c.Role, Limit: 10, Budget: searchBudget,
		Filter: lib.filter(retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}, tb.Bundled)})
	if err != nil {
		return agent.Result{}, fmt.Errorf("search: %w", err)
	}
	// Passages under a heading naming the skill are its entry, those
	// naming the speciality first; the rest only mention it.
	var special, entry, mention []retrieve.Passage
	for _, p := range res.Passages {
		switch {
		case !strings.Contains(strings.ToLower(p.Chunk.Heading()), strings.ToLower(name)):
			mention = append(mention, p)
		case spec != "" && strings.Contains(strings.ToLower(p.Chunk.Text), strings.ToLower(spec)):
			special = append(special, p)
		default:
			entry = append(entry, p)
		}
	}
	ps := append(append(special, entry...), mention...)
	if len(ps) > 5 {
		ps = ps[:5]
	}
	label := name
	if spec != "" {
		label += " (" + spec + ")"
	}
	if len(ps) == 0 {
		return agent.Result{Content: fmt.Sprintf("The Traveller books have nothing on the skill %s.", label), Summary: "nothing found"}, nil
	}
	return agent.Result{Content: FormatPassages(ps), Summary: fmt.Sprintf("%s: %d passages", label, len(ps))}, nil
}
