package pack

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// LayerName orders packs when they are layered: a base pack (a rules
// system, a world) first, supplements over it, homebrew last.
type LayerName string

const (
	Base       LayerName = "base"
	Supplement LayerName = "supplement"
	Homebrew   LayerName = "homebrew"
)

// Rank orders layers from the base system up to homebrew: a higher rank
// wins where two packs define the same thing.
func (l LayerName) Rank() int {
	switch l {
	case Supplement:
		return 1
	case Homebrew:
		return 2
	}
	return 0
}

// Manifest describes a pack: pack.yml (or manifest.json, manifest.yml),
// or for a campaign its campaign.yml (or scenario.yml).
type Manifest struct {
	ID          string        `json:"id"` // slug; namespaces the pack's entities (id:entity)
	Name        string        `json:"name"`
	Version     string        `json:"version"` // semantic version
	Description string        `json:"description,omitempty"`
	Author      string        `json:"author,omitempty"`
	License     string        `json:"license,omitempty"`
	Attribution string        `json:"attribution,omitempty"`
	Layer       LayerName     `json:"layer"`
	Requires    []Requirement `json:"requires,omitempty"`
	// Access is the level of the pack's content unless a file says
	// otherwise.
	Access   access.Level `json:"access"`
	Tags     []string     `json:"tags,omitempty"`
	System   string       `json:"system,omitempty"` // d20, 2d6, traveller
	Homepage string       `json:"homepage,omitempty"`
	// Campaign is set when the manifest is a campaign.yml or scenario.yml:
	// the pack is playable, and Requires lists the packs it plays with.
	Campaign bool `json:"campaign,omitempty"`
	// File is the manifest's path inside the pack.
	File string `json:"file"`

	version   Version
	values    Frontmatter // every key, for asset references and lines
	idDerived bool        // a campaign's id made from its title
}

// manifestNames are the files a manifest may be, campaigns first.
var manifestNames = []string{
	"campaign.yml", "campaign.yaml", "scenario.yml", "scenario.yaml",
	"pack.yml", "pack.yaml", "manifest.json", "manifest.yml", "manifest.yaml",
}

// ManifestNames lists the file names a pack's or campaign's manifest may
// have at its root, in the order they are looked for.
func ManifestNames() []string { return slices.Clone(manifestNames) }

// IsManifest reports whether rel names a manifest.
func IsManifest(rel string) bool { return slices.Contains(manifestNames, rel) }

func isCampaignManifest(rel string) bool {
	return strings.HasPrefix(rel, "campaign.") || strings.HasPrefix(rel, "scenario.")
}

// manifestKeys are the keys a pack manifest may have; others draw a
// warning (a typo loses a setting silently otherwise).
var manifestKeys = []string{
	"access", "attribution", "author", "content_rating", "content_warnings", "cover", "default_access",
	"description", "genre", "homepage", "id", "language", "layer", "license", "name", "packs", "requires",
	"system", "tags", "title", "tone", "ui_customization", "version",
}

// rawManifest is what a manifest file may say.
type rawManifest struct {
	ID            string        `yaml:"id"`
	Name          string        `yaml:"name"`
	Title         string        `yaml:"title"`
	Version       string        `yaml:"version"`
	Description   string        `yaml:"description"`
	Author        string        `yaml:"author"`
	License       string        `yaml:"license"`
	Attribution   string        `yaml:"attribution"`
	Layer         string        `yaml:"layer"`
	Requires      []Requirement `yaml:"requires"`
	Packs         []Requirement `yaml:"packs"`
	Access        string        `yaml:"access"`
	DefaultAccess string        `yaml:"default_access"`
	Tags          []string      `yaml:"tags"`
	System        string        `yaml:"system"`
	Homepage      string        `yaml:"homepage"`
}

// ParseManifest reads a manifest file. rel is its name inside the pack
// (pack.yml, manifest.json, campaign.yml …), used in Problems. It
// returns the manifest and every problem found, each naming a line.
func ParseManifest(rel string, b []byte) (Manifest, []Problem) {
	var errs Problems
	m := ReadManifest(rel, b, &errs)
	return m, errs
}

// ReadManifest parses a manifest file named rel, adding what is wrong
// with it to errs.
func ReadManifest(rel string, b []byte, errs *Problems) Manifest {
	m := Manifest{File: rel, Campaign: isCampaignManifest(rel), Access: access.Player}
	fm, err := ParseYAML(b)
	if err != nil {
		errs.Add(rel, 0, "%v", err)
		return m
	}
	m.values = fm
	var raw rawManifest
	if err := yaml.Unmarshal(b, &raw); err != nil {
		errs.Add(rel, 0, "%v", YAMLError(err, 0))
		return m
	}
	line := func(key string) int {
		if l, ok := fm.Lines[key]; ok {
			return l
		}
		return 1
	}
	m.ID, m.Name, m.Version = raw.ID, firstOf(raw.Name, raw.Title), raw.Version
	m.Description, m.Author, m.License, m.Attribution = raw.Description, raw.Author, raw.License, raw.Attribution
	m.Tags, m.System, m.Homepage = raw.Tags, raw.System, raw.Homepage
	m.Requires = append(raw.Requires, raw.Packs...)
	m.Layer = LayerName(firstOf(raw.Layer, string(Base)))

	switch {
	case m.Campaign && m.ID == "":
		// A campaign's id is its title's, as the game names it (loadMeta
		// reports a missing title).
		if m.Name != "" {
			m.ID, m.idDerived = rules.Slug(m.Name), true
		}
	case m.ID == "":
		errs.Add(rel, 1, "id is required: a short name that namespaces the pack's entities, e.g. id: %s", slugOf(firstOf(m.Name, "my_pack")))
	default:
		if err := checkSlug(m.ID); err != nil {
			errs.Add(rel, line("id"), "%v", err)
		}
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	if m.Version == "" {
		if !m.Campaign { // campaigns have their own message, in loadMeta
			errs.Add(rel, 1, "version is required (e.g. version: 1.0.0)")
		}
	} else if v, err := ParseVersion(m.Version); err != nil {
		errs.Add(rel, line("version"), "%v", err)
	} else {
		m.version = v
	}
	switch m.Layer {
	case Base, Supplement, Homebrew:
	default:
		errs.Add(rel, line("layer"), "layer %q: use base, supplement or homebrew", m.Layer)
	}
	if a := firstOf(raw.Access, raw.DefaultAccess); a != "" {
		lv, err := access.Parse(a)
		if err != nil {
			errs.Add(rel, line(FirstKey(fm, "access", "default_access")), "%v", err)
		}
		m.Access = lv
	}
	switch m.System {
	case "", world.SystemD20, world.System2d6, world.SystemTraveller:
	default:
		if !m.Campaign { // loadMeta says it for campaigns
			errs.Add(rel, line("system"), "system %q: use d20, 2d6 or traveller", m.System)
		}
	}
	seen := map[string]bool{}
	for _, r := range m.Requires {
		key := FirstKey(fm, "requires", "packs")
		switch {
		case r.ID == m.ID:
			errs.Add(rel, line(key), "the pack requires itself; remove %q from %s", r.ID, key)
		case seen[r.ID]:
			errs.Add(rel, line(key), "pack %q is required twice; keep one entry", r.ID)
		}
		seen[r.ID] = true
	}
	if !m.Campaign {
		for _, k := range world.SortedKeys(fm.Values) {
			if !slices.Contains(manifestKeys, k) {
				errs.Warn(rel, fm.Lines[k], "unknown key %q is ignored; a manifest may have %s", k, strings.Join(manifestKeys, ", "))
			}
		}
		if m.License == "" {
			errs.Warn(rel, 1, "no license: add license: (e.g. CC-BY-4.0) so others know how they may share the pack")
		}
	}
	return m
}

// Merge fills the fields m left empty from o, a second manifest file of
// the same pack (a campaign.yml beside a manifest.json). Two different
// ids or versions are an error.
func (m *Manifest) Merge(o Manifest, errs *Problems) {
	switch {
	case m.idDerived && o.ID != "":
		m.ID, m.idDerived = o.ID, false
	case m.ID != "" && o.ID != "" && m.ID != o.ID:
		errs.Add(o.File, o.values.Lines["id"], "id %q differs from %q in %s; a pack has one id", o.ID, m.ID, m.File)
	}
	if m.Version != "" && o.Version != "" && m.Version != o.Version {
		errs.Add(o.File, o.values.Lines["version"], "version %s differs from %s in %s; a pack has one version", o.Version, m.Version, m.File)
	}
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	fill(&m.ID, o.ID)
	fill(&m.Version, o.Version)
	fill(&m.Description, o.Description)
	fill(&m.Author, o.Author)
	fill(&m.License, o.License)
	fill(&m.Attribution, o.Attribution)
	fill(&m.System, o.System)
	fill(&m.Homepage, o.Homepage)
	if m.values.Values["layer"] == nil {
		m.Layer = o.Layer
	}
	if m.values.Values["access"] == nil && m.values.Values["default_access"] == nil {
		m.Access = o.Access
	}
	if m.version == (Version{}) {
		m.version = o.version
	}
	m.Requires = append(m.Requires, o.Requires...)
	m.Tags = append(m.Tags, o.Tags...)
}

// Satisfies reports whether the manifest's version meets a requirement.
func (m Manifest) Satisfies(r Requirement) bool {
	return m.ID == r.ID && r.Version.Allows(m.version)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// FirstKey returns the first of keys present in fm, else the first.
func FirstKey(fm Frontmatter, keys ...string) string {
	for _, k := range keys {
		if _, ok := fm.Lines[k]; ok {
			return k
		}
	}
	return keys[0]
}

// UnmarshalYAML accepts the string and the mapping form.
func (r *Requirement) UnmarshalYAML(n *yaml.Node) error {
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		*r, err = ParseRequirement(n.Value)
	case yaml.MappingNode:
		var m struct {
			ID      string `yaml:"id"`
			Version string `yaml:"version"`
		}
		if err = n.Decode(&m); err == nil {
			*r, err = ParseRequirement(strings.TrimSpace(m.ID + " " + m.Version))
		}
	default:
		err = fmt.Errorf("a requirement is a pack id (\"srd51 >=5.1\") or {id, version}")
	}
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	return nil
}

// Keys is every key of the manifest file with its line, for checks that
// point at a key (asset references in the manifest).
func (m Manifest) Keys() Frontmatter { return m.values }
