package campaign

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/pack"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/world"
)

// Beat is a plot beat (seed 001 §6.2.5, §7.5): a moment the story should
// reach when its conditions hold. This package parses and checks beats;
// the narrative engine decides when one fires.
//
// A beat is a plot_beat_*.yml or .md file, a file with entity_type:
// plot_beat, or an entry of a beats.yml (or plot/*.json) list:
//
//	entity_id: vision
//	title: Vision of the Future
//	description: Merlin sees Camelot in flames
//	priority: critical            # critical, high, medium, low, optional (or 5 … 1)
//	conditions:
//	  min_scene: 2                # or scene_count_min; max_scene / scene_count_max
//	  after_scenes: 1             # scenes that must pass after the prerequisites
//	  requires: [opening]         # prerequisite beats (requires_beat, prerequisites)
//	  location: camelot           # the player is there ("not camelot": is not)
//	  flags: [met_morgana]        # flags, player choices (player_state, choices)
//	  items: [excalibur]          # the player holds them
//	  stats: {suspicion: ">= 50"} # a bare number is a minimum
//	  reputation: {guild: 20}
//	  state: {world.weather: storm}
//	consequences:                 # or outcomes: what happens, for the engine
//	  - state_patch: {player.gained_knowledge: true}
//	skippable: false
//
// Conditions may also be a list of such mappings or of expressions
// ("suspicion >= 50", "reputation.guild > 10", "met_morgana").
type Beat struct {
	ID          string      `json:"id"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Priority    Priority    `json:"priority"`
	MinScene    int         `json:"min_scene,omitempty"`
	MaxScene    int         `json:"max_scene,omitempty"` // 0: no limit
	AfterScenes int         `json:"after_scenes,omitempty"`
	Requires    []string    `json:"requires,omitempty"` // prerequisite beat ids
	Conditions  []Condition `json:"conditions,omitempty"`
	Outcomes    []Outcome   `json:"outcomes,omitempty"`
	Skippable   bool        `json:"skippable"`
	Mood        string      `json:"mood,omitempty"`
	Music       string      `json:"music,omitempty"`
	Tags        []string    `json:"tags,omitempty"`
	Text        string      `json:"text,omitempty"` // a Markdown beat's prose
	File        string      `json:"file"`
	Line        int         `json:"line"`
}

// Priority orders beats that could fire together: critical > high >
// medium > low > optional. As a number (seed 001 §6.2.4), 5 is critical.
type Priority int

const (
	PriorityOptional Priority = iota + 1
	PriorityLow
	PriorityMedium
	PriorityHigh
	PriorityCritical
)

var priorityNames = map[Priority]string{PriorityOptional: "optional", PriorityLow: "low", PriorityMedium: "medium",
	PriorityHigh: "high", PriorityCritical: "critical"}

func (p Priority) String() string {
	if n, ok := priorityNames[p]; ok {
		return n
	}
	return "medium"
}

// MarshalText writes the name.
func (p Priority) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a name or a number.
func (p *Priority) UnmarshalText(b []byte) error {
	var v any = string(b)
	if n, err := strconv.Atoi(string(b)); err == nil {
		v = n
	}
	x, err := parsePriority(v)
	*p = x
	return err
}

func parsePriority(v any) (Priority, error) {
	switch x := v.(type) {
	case nil:
		return PriorityMedium, nil
	case int:
		if x >= 1 && x <= 5 {
			return Priority(x), nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "critical", "essential":
			return PriorityCritical, nil
		case "high", "important":
			return PriorityHigh, nil
		case "medium", "normal", "":
			return PriorityMedium, nil
		case "low":
			return PriorityLow, nil
		case "optional":
			return PriorityOptional, nil
		}
	}
	return 0, fmt.Errorf("priority %v: use critical, high, medium, low or optional (or 5 to 1)", v)
}

// ConditionKind says what a condition tests.
type ConditionKind string

const (
	CondStat       ConditionKind = "stat"       // a stat (or stat path) compared with a number
	CondReputation ConditionKind = "reputation" // a faction's reputation compared with a number
	CondLocation   ConditionKind = "location"   // the player is at a location
	CondFlag       ConditionKind = "flag"       // a flag or player choice is set
	CondItem       ConditionKind = "item"       // the player holds an item
	CondState      ConditionKind = "state"      // any state path compared with a value
)

// Condition is one test a beat waits for.
type Condition struct {
	Kind    ConditionKind `json:"kind"`
	Subject string        `json:"subject"`         // stat, faction, location, flag, item id or state path
	Op      string        `json:"op,omitempty"`    // ==, !=, <, <=, >, >=
	Value   string        `json:"value,omitempty"` // what Subject is compared with
	Not     bool          `json:"not,omitempty"`   // the flag unset, the item not held, elsewhere
	Line    int           `json:"line,omitempty"`  // where the file states it
}

// Number returns Value as a number, for stat and reputation tests.
func (c Condition) Number() (float64, bool) {
	f, err := strconv.ParseFloat(c.Value, 64)
	return f, err == nil
}

// Outcome is one consequence of a beat, as written: {state_patch: {…}},
// {npc_mood_change: {merlin: secretive}}, or {text: "…"}.
type Outcome map[string]any

// conditionKeys groups the keys a beat's conditions may use.
var conditionKeys = map[string][]string{
	"min_scene":    {"min_scene", "scene_count_min"},
	"max_scene":    {"max_scene", "scene_count_max"},
	"after_scenes": {"after_scenes", "after_scene"},
	"requires":     {"requires", "requires_beat", "requires_beats", "prerequisites", "plot_requirements", "after_beats"},
	"flag":         {"flags", "flag", "player_state", "choices", "choice"},
	"location":     {"location", "at"},
	"item":         {"items", "item", "has_item", "has_items"},
	"stat":         {"stats", "stat"},
	"reputation":   {"reputation", "faction_reputation", "factions"},
	"state":        {"state", "world_state", "npc_state"},
}

func conditionGroup(key string) string {
	for g, keys := range conditionKeys {
		if slices.Contains(keys, key) {
			return g
		}
	}
	return ""
}

func validConditionKeys() string {
	var all []string
	for _, keys := range conditionKeys {
		all = append(all, keys[0])
	}
	slices.Sort(all)
	return strings.Join(all, ", ")
}

// beatParser reads one beat, collecting problems at a line.
type beatParser struct {
	b    *Beat
	errs *pack.Problems
	file string
	line int
}

func (bp *beatParser) fail(format string, args ...any) {
	bp.errs.Add(bp.file, bp.line, "plot beat %q: %s", bp.b.ID, fmt.Sprintf(format, args...))
}

// ParseBeat reads one beat from a YAML or JSON file's bytes (rel names it
// in problems), as LoadPack does.
func ParseBeat(rel string, b []byte) (Beat, []pack.Problem) {
	var errs pack.Problems
	fm, err := pack.ParseYAML(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return Beat{}, errs
	}
	return parseBeat(rel, fm, "", &errs), errs
}

// parseBeat reads a beat from a file's values (frontmatter or YAML).
func parseBeat(rel string, fm pack.Frontmatter, body string, errs *pack.Problems) Beat {
	v := fm.Values
	b := Beat{File: rel, Line: max(fm.Line, 1), Skippable: true, Text: strings.TrimSpace(body)}
	_, b.ID = infer(rel)
	if id := cmp.Or(str(v["entity_id"]), str(v["id"])); id != "" {
		b.ID = id
	}
	bp := &beatParser{b: &b, errs: errs, file: rel, line: b.Line}
	line := func(key string) int {
		if l, ok := fm.Lines[key]; ok {
			return l
		}
		return b.Line
	}
	b.Title = cmp.Or(str(v["title"]), str(v["name"]))
	b.Description = str(v["description"])
	if b.Description == "" {
		b.Description = unwrap(b.Text)
	}
	b.Mood, b.Music = str(v["mood"]), str(v["music"])
	for _, k := range []string{"title", "name", "description", "mood", "music"} {
		if x, ok := v[k]; ok && x != nil {
			if _, isStr := x.(string); !isStr {
				bp.line = line(k)
				bp.fail("%s should be text", k)
			}
		}
	}
	if t, ok := v["tags"]; ok {
		bp.line = line("tags")
		b.Tags = bp.strings("tags", t)
	}
	p, err := parsePriority(v["priority"])
	if err != nil {
		bp.line = line("priority")
		bp.fail("%v", err)
	}
	b.Priority = max(p, PriorityOptional)
	if s, ok := v["skippable"]; ok {
		if x, isBool := s.(bool); isBool {
			b.Skippable = x
		} else {
			bp.line = line("skippable")
			bp.fail("skippable should be true or false")
		}
	}
	// Condition keys may sit at the top of a beat, as frontmatter writes
	// them, or under conditions.
	for _, k := range world.SortedKeys(v) {
		switch g := conditionGroup(k); g {
		case "min_scene", "max_scene", "after_scenes", "requires":
			bp.line = line(k)
			bp.condition(k, v[k])
		}
	}
	if c, ok := v["conditions"]; ok {
		bp.line = line("conditions")
		bp.conditions(c)
	}
	for _, k := range []string{"consequences", "outcomes", "outcome", "then"} {
		if o, ok := v[k]; ok {
			bp.line = line(k)
			bp.outcomes(k, o)
		}
	}
	bp.line = b.Line
	if b.ID == "" || strings.ContainsAny(b.ID, ": \t\n") {
		bp.fail("an id is a word without spaces or colons, e.g. entity_id: vision")
	}
	if b.MinScene < 0 || b.MaxScene < 0 || b.AfterScenes < 0 {
		bp.fail("scene counts cannot be negative")
	}
	if b.MaxScene > 0 && b.MaxScene < b.MinScene {
		bp.fail("max_scene %d is before min_scene %d", b.MaxScene, b.MinScene)
	}
	return b
}

// conditions reads the conditions value: a mapping, or a list of
// mappings and expressions.
func (bp *beatParser) conditions(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range world.SortedKeys(x) {
			bp.condition(k, x[k])
		}
	case []any:
		for _, it := range x {
			switch y := it.(type) {
			case map[string]any:
				for _, k := range world.SortedKeys(y) {
					bp.condition(k, y[k])
				}
			case string:
				bp.expression(y)
			default:
				bp.fail("a condition is a mapping (location: cave) or an expression (\"suspicion >= 50\"), not %v", it)
			}
		}
	case nil:
	default:
		bp.fail("conditions should be a mapping or a list")
	}
}

func (bp *beatParser) condition(key string, v any) {
	b := bp.b
	switch g := conditionGroup(key); g {
	case "min_scene", "max_scene", "after_scenes":
		n, ok := v.(int)
		if !ok {
			bp.fail("%s should be a whole number of scenes", key)
			return
		}
		*map[string]*int{"min_scene": &b.MinScene, "max_scene": &b.MaxScene, "after_scenes": &b.AfterScenes}[g] = n
	case "requires":
		for _, id := range bp.strings(key, v) {
			if !slices.Contains(b.Requires, id) {
				b.Requires = append(b.Requires, id)
			}
		}
	case "flag", "location", "item":
		for _, s := range bp.strings(key, v) {
			not := false
			for _, neg := range []string{"not ", "!"} {
				if rest, ok := strings.CutPrefix(s, neg); ok {
					s, not = strings.TrimSpace(rest), true
				}
			}
			b.Conditions = append(b.Conditions, Condition{Kind: ConditionKind(g), Subject: s, Not: not, Line: bp.line})
		}
	case "stat", "reputation", "state":
		m, ok := v.(map[string]any)
		if !ok {
			for _, s := range bp.strings(key, v) { // a list of expressions
				bp.expression(s)
			}
			return
		}
		for _, subj := range world.SortedKeys(m) {
			bp.compare(ConditionKind(g), subj, m[subj])
		}
	default:
		bp.fail("unknown condition %q; use %s", key, validConditionKeys())
	}
}

// compare adds a comparison written as a value: 50, ">= 50", "storm".
func (bp *beatParser) compare(kind ConditionKind, subject string, v any) {
	c := Condition{Kind: kind, Subject: subject, Line: bp.line}
	switch x := v.(type) {
	case int, float64:
		c.Op, c.Value = ">=", fmt.Sprint(x)
		if kind == CondState {
			c.Op = "=="
		}
	case bool:
		c.Op, c.Value = "==", strconv.FormatBool(x)
	case string:
		c.Op, c.Value = splitOp(x)
		if c.Op == "" {
			c.Op = "=="
			if kind != CondState {
				c.Op = ">="
			}
		}
	default:
		bp.fail("%s %s: compare with a number or text, e.g. \">= 50\"", kind, subject)
		return
	}
	if kind != CondState {
		if _, ok := c.Number(); !ok {
			bp.fail("%s %s: %q is not a number", kind, subject, c.Value)
			return
		}
	}
	bp.b.Conditions = append(bp.b.Conditions, c)
}

// splitOp cuts a leading comparison operator from s.
func splitOp(s string) (op, value string) {
	s = strings.TrimSpace(s)
	for _, o := range []string{"==", "!=", ">=", "<=", ">", "<", "="} {
		if rest, ok := strings.CutPrefix(s, o); ok {
			if o == "=" {
				o = "=="
			}
			return o, strings.TrimSpace(rest)
		}
	}
	return "", s
}

// expression reads "suspicion >= 50", "reputation.guild > 10",
// "world.weather == storm" or a bare flag.
func (bp *beatParser) expression(s string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, "=!<>")
	if i < 0 {
		bp.condition("flag", s)
		return
	}
	subject := strings.TrimSpace(s[:i])
	op, value := splitOp(s[i:])
	if subject == "" || value == "" || op == "" {
		bp.fail("cannot read condition %q; write it like \"suspicion >= 50\"", s)
		return
	}
	kind := CondStat
	switch {
	case strings.HasPrefix(subject, "reputation."), strings.HasPrefix(subject, "faction."):
		kind, subject = CondReputation, subject[strings.IndexByte(subject, '.')+1:]
	case strings.Contains(subject, "."):
		kind = CondState
	}
	bp.compare(kind, subject, op+" "+value)
}

// strings reads a string or a list of strings.
func (bp *beatParser) strings(key string, v any) []string {
	switch x := v.(type) {
	case string:
		if x = strings.TrimSpace(x); x != "" {
			return []string{x}
		}
		return nil
	case []any:
		var out []string
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				bp.fail("%s should be a list of ids, not %v", key, it)
				continue
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out
	case nil:
		return nil
	}
	bp.fail("%s should be an id or a list of ids", key)
	return nil
}

func (bp *beatParser) outcomes(key string, v any) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, it := range list {
		switch x := it.(type) {
		case map[string]any:
			bp.b.Outcomes = append(bp.b.Outcomes, Outcome(x))
		case string:
			bp.b.Outcomes = append(bp.b.Outcomes, Outcome{"text": x})
		default:
			bp.fail("%s: each outcome is a mapping ({state_patch: {…}}) or a sentence", key)
		}
	}
}

// addBeat parses a beat and adds it to the pack; it returns its id.
func (p *Pack) addBeat(rel string, fm pack.Frontmatter, body string, errs *pack.Problems) string {
	b := parseBeat(rel, fm, body, errs)
	p.defineBeat(b, fm, errs)
	return b.ID
}

func (p *Pack) defineBeat(b Beat, fm pack.Frontmatter, errs *pack.Problems) {
	c := p.Content
	c.pending = &source{b.File, fm}
	defer func() { c.pending = nil }()
	if c.define("plot_beat", b.ID, b.File+":"+itoa(b.Line), errs, b.File, b.Line) {
		p.Beats = append(p.Beats, b)
	}
}

// addBeatList reads a file holding a list of beats (or beats: [...]).
func (p *Pack) addBeatList(rel string, _ pack.Frontmatter, raw []byte, errs *pack.Problems) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		errs.Add(rel, 0, "%v", pack.YAMLError(err, 0))
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		list = nil
		for i := 0; i+1 < len(doc.Content[0].Content); i += 2 {
			if doc.Content[0].Content[i].Value == "beats" {
				list = doc.Content[0].Content[i+1]
			}
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		errs.Add(rel, 1, "a beats file is a list of plot beats, or has beats: [...]")
		return
	}
	for _, n := range list.Content {
		fm := pack.Frontmatter{Values: map[string]any{}, Lines: map[string]int{}, Line: n.Line}
		if err := fm.FromNode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}, 0); err != nil {
			errs.Add(rel, n.Line, "%v", err)
			continue
		}
		fm.Line = n.Line
		if str(fm.Values["entity_id"]) == "" && str(fm.Values["id"]) == "" {
			errs.Add(rel, n.Line, "each beat of a list needs an id")
			continue
		}
		b := parseBeat(rel, fm, "", errs)
		p.defineBeat(b, fm, errs)
	}
}

// checkBeats checks prerequisites: each names a beat, and they form no
// cycle.
func (p *Pack) checkBeats(errs *pack.Problems) {
	byID := map[string]*Beat{}
	for i := range p.Beats {
		byID[p.Beats[i].ID] = &p.Beats[i]
	}
	c := p.Content
	set := c.entities()
	for i := range p.Beats {
		b := &p.Beats[i]
		for _, r := range b.Requires {
			pk, local := splitID(r)
			switch {
			case pk == "" || pk == c.pack.self:
				if byID[local] == nil {
					errs.Add(b.File, b.Line, "plot beat %q requires %q, which is not a plot beat; known beats: %s", b.ID, r, known(byID))
				}
			case slices.Contains(c.pack.requires, pk):
				c.external = append(c.external, extRef{kind: "plot_beat", id: r, file: b.File, line: b.Line})
			default:
				errs.Add(b.File, b.Line, "plot beat %q requires %q of pack %q, which this pack does not name in %s", b.ID, r, pk, requiresKey(c.pack.campaign))
			}
		}
		for _, cond := range b.Conditions {
			kind := map[ConditionKind]string{CondLocation: kindLocation, CondItem: kindItem, CondReputation: kindFaction}[cond.Kind]
			if kind == "" {
				continue
			}
			c.checkRef(kind, cond.Subject, set, b.File, cond.Line, errs)
		}
	}
	// Cycles, found by depth-first search from each beat in id order.
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(id string)
	visit = func(id string) {
		state[id] = open
		stack = append(stack, id)
		b := byID[id]
		for _, r := range b.Requires {
			pk, next := splitID(r)
			if (pk != "" && pk != c.pack.self) || byID[next] == nil {
				continue
			}
			switch state[next] {
			case open:
				i := slices.Index(stack, next)
				cycle := append(slices.Clone(stack[i:]), next)
				first := byID[next]
				errs.Add(first.File, first.Line, "plot beats' prerequisites form a cycle: %s; remove one of them", strings.Join(cycle, " → "))
			case unseen:
				visit(next)
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
	}
	for _, id := range world.SortedKeys(byID) {
		if state[id] == unseen {
			visit(id)
		}
	}
}

func requiresKey(campaign bool) string {
	if campaign {
		return "packs"
	}
	return "requires"
}
