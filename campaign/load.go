package campaign

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/pack"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/world"
)

// Campaign is everything a campaign directory holds, parsed.
type Campaign struct {
	Dir   string
	Meta  Meta
	Files []File

	Locations     map[string]*world.Location
	Characters    map[string]*world.Character
	Items         map[string]*world.Item
	Quests        map[string]*world.Quest
	Factions      map[string]*world.Faction
	Stats         map[string]*world.StatDef
	Facts         []world.Fact
	Consequences  []world.Consequence
	Clocks        []world.Clock
	Threads       []world.Thread
	Scheduled     []world.ScheduledEvent
	Relationships []world.Relationship
	Constraints   Constraints

	// Warnings are problems that do not stop play (a file whose kind could
	// not be told).
	Warnings []string

	origin   map[string]string // "kind:id" → file:line that defined it
	src      map[string]source // "kind:id" → its file, for the lines of its keys
	pending  *source           // the file being read
	defs     []def             // every entity, in the order defined
	pack     packContext
	external []extRef  // references left for other packs to resolve
	meta     source    // campaign.yml (or scenario.yml), for the lines of its keys
	scenario *Scenario // set by BindPacks: games start through it
}

// metaAt returns the manifest's file and the line of a key.
func (c *Campaign) metaAt(key string) (string, int) {
	return cmp.Or(c.meta.file, "campaign.yml"), c.meta.fm.Lines[key]
}

// packContext is what reference checks need to know of the pack.
type packContext struct {
	self     string   // the pack's id
	campaign bool     // a playable campaign: its references may reach into the packs it plays with
	requires []string // ids of the packs it names (requires, or a campaign's packs)
}

// extRef is a reference to an entity of another pack, checked when the
// packs are layered.
type extRef struct {
	kind, id string
	file     string
	line     int
}

// source is where an entity was defined.
type source struct {
	file string
	fm   pack.Frontmatter
}

// Meta is campaign.yml.
type Meta struct {
	// ID names the campaign for its packs and saves; the title's slug when
	// empty.
	ID                     string   `yaml:"id"`
	Title                  string   `yaml:"title"`
	Version                string   `yaml:"version"`
	Author                 string   `yaml:"author"`
	Description            string   `yaml:"description"`
	Genre                  string   `yaml:"genre"`
	Tone                   string   `yaml:"tone"`
	License                string   `yaml:"license"`
	Homepage               string   `yaml:"homepage"`
	Tags                   []string `yaml:"tags"`
	ContentRating          string   `yaml:"content_rating"`
	ContentWarnings        []string `yaml:"content_warnings"`
	RulesHint              string   `yaml:"rules_hint"`
	HydrationGuidance      string   `yaml:"hydration_guidance"`
	EstimatedPlaytimeHours float64  `yaml:"estimated_playtime_hours"`
	System                 string   `yaml:"system"`
	Pipeline               string   `yaml:"pipeline"` // agentic or multipass; how a model runs the game
	// PlayMode "choices" offers 3–4 choices after every response, from the
	// player-choices skill (seed 001 §4.2.1); "free" (the default) waits
	// for free text.
	PlayMode string `yaml:"play_mode"`
	// Prompts pins prompt versions the campaign was written against
	// (narrator: 2).
	Prompts map[string]int `yaml:"prompts"`
	Player  string         `yaml:"player"`
	// Party lists the player characters of a party game (1 to 6), each an
	// id or a map with the id and how it is played; Player, when set too,
	// is the one who acts first.
	Party []PartyEntry `yaml:"party"`
	Intro string       `yaml:"intro"`
	Start Start        `yaml:"start"`
	// Packs are the content packs the campaign plays with ("srd51",
	// "srd51 >=5.1"); their entities are used by id (srd51:goblin).
	Packs       []pack.Requirement `yaml:"packs"`
	Access      string             `yaml:"access"` // default level of the campaign's text
	Attribution string             `yaml:"attribution"`
}

// Start is where and when play begins.
type Start struct {
	Location string `yaml:"location"`
	Time     string `yaml:"time"` // "21:00"
	Day      int    `yaml:"day"`
	Scene    string `yaml:"scene"`
	Mood     string `yaml:"mood"`
}

// Constraints is player_character_constraints.yml (seed 001 §6.2.6).
type Constraints struct {
	StartingLocation string   `json:"starting_location"`
	StartingItems    []string `json:"starting_items"`
}

// File is one content file.
type File struct {
	Path        string           // relative to the campaign directory
	Frontmatter pack.Frontmatter // for a YAML or JSON file, all of it
	Body        string
	BodyLine    int
	EntityType  string
	EntityID    string
	ContentType string // personality, background, rules, spell, …
	Structured  bool   // a YAML or JSON file, not prose
	Hash        string // sha256 of the file's bytes, hex
}

// Load reads the campaign in dir. Files may not reach outside it: a
// symbolic link that points out is an error.
func Load(ctx context.Context, dir string) (*Campaign, error) {
	files, errs, err := walkDir(ctx, dir)
	if err != nil {
		if err.Error() == "not a directory" {
			return nil, fmt.Errorf("campaign %s: not a directory", dir)
		}
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	return campaignOf(build(ctx, dir, files, errs))
}

// LoadFS reads the campaign in directory dir of fsys (an embedded
// campaign, an archive opened as a file system).
func LoadFS(ctx context.Context, fsys fs.FS, dir string) (*Campaign, error) {
	files, err := walkFS(ctx, fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	return campaignOf(build(ctx, dir, files, nil))
}

// campaignOf returns a loaded pack's campaign, or every error it has.
func campaignOf(p *Pack, err error) (*Campaign, error) {
	if err != nil {
		return nil, err
	}
	errs := pack.Problems(p.Problems)
	if !p.Manifest.Campaign {
		// The pack's own "missing manifest" problem speaks of packs.
		errs = slices.DeleteFunc(errs, func(x pack.Problem) bool { return x.File == "pack.yml" && strings.HasPrefix(x.Message, "missing:") })
		errs.Add("campaign.yml", 0, "missing: every campaign needs a campaign.yml with at least a title and a version")
	}
	if e := errs.Errors(); len(e) > 0 {
		return nil, errors.Join(e...)
	}
	return p.Content, nil
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (c *Campaign) loadMeta(rel string, b []byte, errs *pack.Problems) {
	c.meta.file = rel
	fm, err := pack.ParseYAML(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return
	}
	c.meta.fm = fm
	if err := yaml.Unmarshal(b, &c.Meta); err != nil {
		errs.Add(rel, 0, "%v", pack.YAMLError(err, 0))
		return
	}
	if c.Meta.Title == "" {
		errs.Add(rel, 0, "title is required")
	}
	if c.Meta.Version == "" {
		errs.Add(rel, 0, "version is required (e.g. 1.0.0)")
	}
	switch c.Meta.PlayMode {
	case "", "free", "choices":
	default:
		errs.Add(rel, fm.Lines["play_mode"], "play_mode %q: use free or choices", c.Meta.PlayMode)
	}
	switch c.Meta.System {
	case "", world.SystemD20, world.System2d6, world.SystemTraveller:
	default:
		errs.Add(rel, fm.Lines["system"], "system %q: use d20, 2d6 or traveller", c.Meta.System)
	}
	for key, target := range map[string]any{"clocks": &c.Clocks, "threads": &c.Threads, "relationships": &c.Relationships} {
		if v, ok := fm.Values[key]; ok {
			if err := viaJSON(v, target); err != nil {
				errs.Add(rel, fm.Lines[key], "%s: %v", key, err)
			}
		}
	}
	if v, ok := fm.Values["scheduled_events"]; ok {
		var evs []struct {
			ID          string            `json:"id"`
			At          any               `json:"at"`
			Description string            `json:"description"`
			Location    string            `json:"location"`
			Then        []json.RawMessage `json:"then"`
		}
		if err := viaJSON(v, &evs); err != nil {
			errs.Add(rel, fm.Lines["scheduled_events"], "scheduled_events: %v", err)
		}
		for _, e := range evs {
			at, err := parseWhen(e.At)
			if err != nil {
				errs.Add(rel, fm.Lines["scheduled_events"], "scheduled event %q: %v", e.ID, err)
				continue
			}
			then := make([]world.RawIntent, len(e.Then))
			for i, r := range e.Then {
				then[i] = world.RawIntent(r)
			}
			c.Scheduled = append(c.Scheduled, world.ScheduledEvent{ID: e.ID, At: at, Description: e.Description, Location: e.Location, Then: then})
		}
	}
	for i := range c.Threads {
		if c.Threads[i].Status == "" {
			c.Threads[i].Status = "open"
		}
	}
}

// parseWhen reads "day 2 18:00", "18:00" (day 1) or a number of minutes.
func parseWhen(v any) (world.GameTime, error) {
	switch x := v.(type) {
	case int:
		return world.GameTime(x), nil
	case float64:
		return world.GameTime(x), nil
	case string:
		day := 1
		s := strings.ToLower(strings.TrimSpace(x))
		if strings.HasPrefix(s, "day") {
			var rest string
			if _, err := fmt.Sscanf(s, "day %d %s", &day, &rest); err != nil {
				return 0, fmt.Errorf("at %q: write \"day 2 18:00\" or \"18:00\"", x)
			}
			s = rest
		}
		t, err := clockTime(s)
		if err != nil {
			return 0, err
		}
		return world.GameTime(day-1)*world.Day + t, nil
	}
	return 0, fmt.Errorf("at: write \"day 2 18:00\", \"18:00\" or minutes")
}

func clockTime(s string) (world.GameTime, error) {
	var h, m int
	if _, err := fmt.Sscanf(s, "%d:%d", &h, &m); err != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, fmt.Errorf("time %q: write it as HH:MM, e.g. 21:00", s)
	}
	return world.GameTime(h)*world.Hour + world.GameTime(m), nil
}

func (c *Campaign) loadConstraints(rel string, fm pack.Frontmatter, errs *pack.Problems) {
	if err := viaJSON(fm.Values, &c.Constraints); err != nil {
		errs.Add(rel, 0, "%v", err)
	}
}

// viaJSON decodes a YAML value into a struct through JSON, so the world
// types' JSON names are the one vocabulary.
func viaJSON(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s should be %s, not %s", fieldName(te.Field), typeName(te.Type.String()), te.Value)
		}
		return err
	}
	return nil
}

// fieldName turns encoding/json's field path into the author's key path:
// "Sheet.hit_points" (an embedded struct) is "hit_points".
func fieldName(f string) string {
	var keep []string
	for _, part := range strings.Split(f, ".") {
		if part != "" && !(part[0] >= 'A' && part[0] <= 'Z') {
			keep = append(keep, part)
		}
	}
	if len(keep) == 0 {
		return "value"
	}
	return strings.Join(keep, ".")
}

func typeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "text"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map"):
		return "a mapping"
	}
	return "a mapping"
}

// lineOf finds the line of the key a decode error names.
func lineOf(fm pack.Frontmatter, err error) int {
	msg := err.Error()
	for k, l := range fm.Lines {
		if strings.HasPrefix(msg, k+" ") || strings.HasPrefix(msg, k+".") {
			return l
		}
	}
	return fm.Line
}
