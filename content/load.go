package content

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/world"
)

// MaxFiles bounds the files of one campaign.
const MaxFiles = 10_000

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

	origin  map[string]string // "kind:id" → file:line that defined it
	src     map[string]source // "kind:id" → its file, for the lines of its keys
	pending *source           // the file being read
}

// source is where an entity was defined.
type source struct {
	file string
	fm   Frontmatter
}

// Meta is campaign.yml.
type Meta struct {
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
	// Prompts pins prompt versions the campaign was written against
	// (narrator: 2).
	Prompts map[string]int `yaml:"prompts"`
	Player  string         `yaml:"player"`
	Intro   string         `yaml:"intro"`
	Start   Start          `yaml:"start"`
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
	Path        string // relative to the campaign directory
	Frontmatter Frontmatter
	Body        string
	BodyLine    int
	EntityType  string
	EntityID    string
}

// problems collects errors that name a file and line.
type problems []error

func (p *problems) add(file string, line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// Parser errors carry their own "line N: " prefix; make it file:N.
	if line == 0 {
		var n int
		if _, err := fmt.Sscanf(msg, "line %d:", &n); err == nil {
			line, msg = n, strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
	}
	loc := file
	if line > 0 {
		loc = fmt.Sprintf("%s:%d", file, line)
	}
	*p = append(*p, fmt.Errorf("%s: %s", loc, msg))
}

// Load reads the campaign in dir. Files may not reach outside it: a
// symbolic link that points out is an error.
func Load(ctx context.Context, dir string) (*Campaign, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("campaign %s: not a directory", dir)
	}
	var errs problems
	var files []rawFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil || !within(root, target) {
				errs.add(rel, 0, "symbolic link points outside the campaign; campaign files must stay inside %s", dir)
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(files) >= MaxFiles {
			return fmt.Errorf("more than %d files; is %s really a campaign?", MaxFiles, dir)
		}
		files = append(files, rawFile{rel: rel, read: func() ([]byte, error) { return readLimited(path) }})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	return parse(ctx, dir, files, errs)
}

// LoadFS reads the campaign in directory dir of fsys (an embedded
// campaign, an archive opened as a file system).
func LoadFS(ctx context.Context, fsys fs.FS, dir string) (*Campaign, error) {
	var files []rawFile
	err := fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(files) >= MaxFiles {
			return fmt.Errorf("more than %d files; is %s really a campaign?", MaxFiles, dir)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, dir), "/")
		files = append(files, rawFile{rel: rel, read: func() ([]byte, error) {
			f, err := fsys.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return readAll(f)
		}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	return parse(ctx, dir, files, nil)
}

// rawFile is a campaign file not yet read.
type rawFile struct {
	rel  string // slash-separated, relative to the campaign
	read func() ([]byte, error)
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// readAll reads at most one byte past MaxFileSize, so an oversized file is
// detected without reading it all.
func readAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, MaxFileSize+1))
}

// parse reads and interprets the files of a campaign.
func parse(ctx context.Context, dir string, files []rawFile, errs problems) (*Campaign, error) {
	c := &Campaign{Dir: dir,
		Locations: map[string]*world.Location{}, Characters: map[string]*world.Character{},
		Items: map[string]*world.Item{}, Quests: map[string]*world.Quest{}, Factions: map[string]*world.Faction{},
		Stats: map[string]*world.StatDef{}, origin: map[string]string{}, src: map[string]source{}}
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	metaFound := false
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel := f.rel
		b, err := f.read()
		if err != nil {
			errs.add(rel, 0, "%v", err)
			continue
		}
		if len(b) > MaxFileSize {
			errs.add(rel, 0, "file is over %d bytes, the limit", MaxFileSize)
			continue
		}
		ext := strings.ToLower(filepath.Ext(rel))
		dirName := strings.ToLower(strings.SplitN(rel, "/", 2)[0])
		base := filepath.Base(rel)
		switch {
		case rel == "campaign.yml" || rel == "campaign.yaml":
			metaFound = true
			c.loadMeta(rel, b, &errs)
		case rel == "player_character_constraints.yml" || rel == "player_character_constraints.yaml":
			c.loadConstraints(rel, b, &errs)
		case dirName == "stats" && (ext == ".json" || ext == ".yml" || ext == ".yaml"):
			c.loadStat(rel, b, &errs)
		case dirName == "items" && (ext == ".json" || ext == ".yml" || ext == ".yaml"):
			c.loadItem(rel, b, &errs)
		case ext == ".md" || ext == ".txt" || ext == ".markdown":
			if strings.EqualFold(base, "README.md") || strings.HasPrefix(strings.ToUpper(base), "LICENSE") {
				continue
			}
			c.loadFile(rel, b, &errs)
		case (ext == ".yml" || ext == ".yaml") && strings.HasPrefix(base, "item_"):
			c.loadItem(rel, b, &errs)
		}
	}
	if !metaFound {
		errs.add("campaign.yml", 0, "missing: every campaign needs a campaign.yml with at least a title and a version")
	}
	c.validate(&errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (c *Campaign) loadMeta(rel string, b []byte, errs *problems) {
	fm, err := parseYAMLFile(b)
	if err != nil {
		errs.add(rel, 0, "%v", err)
		return
	}
	if err := yaml.Unmarshal(b, &c.Meta); err != nil {
		errs.add(rel, 0, "%v", yamlError(err, 0))
		return
	}
	if c.Meta.Title == "" {
		errs.add(rel, 0, "title is required")
	}
	if c.Meta.Version == "" {
		errs.add(rel, 0, "version is required (e.g. 1.0.0)")
	}
	switch c.Meta.System {
	case "", world.SystemD20, world.System2d6, world.SystemTraveller:
	default:
		errs.add(rel, fm.Lines["system"], "system %q: use d20, 2d6 or traveller", c.Meta.System)
	}
	for key, target := range map[string]any{"clocks": &c.Clocks, "threads": &c.Threads, "relationships": &c.Relationships} {
		if v, ok := fm.Values[key]; ok {
			if err := viaJSON(v, target); err != nil {
				errs.add(rel, fm.Lines[key], "%s: %v", key, err)
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
			errs.add(rel, fm.Lines["scheduled_events"], "scheduled_events: %v", err)
		}
		for _, e := range evs {
			at, err := parseWhen(e.At)
			if err != nil {
				errs.add(rel, fm.Lines["scheduled_events"], "scheduled event %q: %v", e.ID, err)
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

func (c *Campaign) loadConstraints(rel string, b []byte, errs *problems) {
	fm, err := parseYAMLFile(b)
	if err != nil {
		errs.add(rel, 0, "%v", err)
		return
	}
	if err := viaJSON(fm.Values, &c.Constraints); err != nil {
		errs.add(rel, 0, "%v", err)
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
func lineOf(fm Frontmatter, err error) int {
	msg := err.Error()
	for k, l := range fm.Lines {
		if strings.HasPrefix(msg, k+" ") || strings.HasPrefix(msg, k+".") {
			return l
		}
	}
	return fm.Line
}
