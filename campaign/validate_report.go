package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/tokens"
	"github.com/hearth-rpg/hearth/world"
)

// Report is what validating a pack found (hearth pack validate): every
// problem, errors and warnings, each naming its file and line, and a
// summary of what the pack holds. It encodes to JSON as it is.
type Report struct {
	Pack     string         `json:"pack"` // the pack's id
	Name     string         `json:"name"`
	Version  string         `json:"version"`
	Source   string         `json:"source"`
	Campaign bool           `json:"campaign"`
	Problems []pack.Problem `json:"problems"`
	Summary  Summary        `json:"summary"`
}

// Summary counts what a pack holds.
type Summary struct {
	Files     int            `json:"files"`    // every file read, assets and sidecars too
	Entities  map[string]int `json:"entities"` // by type: location, npc, creature, pc, item, lore, …
	Stats     int            `json:"stats"`
	Items     int            `json:"items"`
	PlotBeats int            `json:"plot_beats"`
	Assets    int            `json:"assets"`
	Generated int            `json:"generated"` // AI-generated assets and files
	Chunks    int            `json:"chunks"`
	Tokens    int            `json:"tokens"` // cl100k, all chunks
	Warnings  int            `json:"warnings"`
	Errors    int            `json:"errors"`
}

// OK reports whether the pack has no errors.
func (r Report) OK() bool { return r.Summary.Errors == 0 }

// Validate checks the pack or campaign at path (a directory or an
// archive) and reports everything it finds. The error is only for a path
// that cannot be validated at all: one that does not exist.
func Validate(ctx context.Context, path string) (Report, error) {
	return ValidateWithPacks(ctx, path, nil)
}

// PackFinder loads the pack with the given id that the campaign in
// campaignDir plays with.
type PackFinder func(ctx context.Context, campaignDir, id string) (*Pack, error)

// ValidateWithPacks is Validate that, for a campaign using entities of
// its packs, also finds those packs with find and binds the campaign to
// them as a game does (BindPacks): a pack not found, a version the
// campaign does not allow and an entity no pack has are errors of the
// report. A nil find checks what Validate checks.
func ValidateWithPacks(ctx context.Context, path string, find PackFinder) (Report, error) {
	r := Report{Source: path, Summary: Summary{Entities: map[string]int{}}}
	if _, err := os.Stat(path); err != nil {
		return r, fmt.Errorf("validate %s: %w", path, err)
	}
	p, err := readPack(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.Problems = []pack.Problem{{File: filepath.Base(path), Severity: pack.Error, Message: err.Error()}}
		r.Summary.Errors = 1
		return r, nil
	}
	tok, err := tokens.CL100K()
	if err != nil {
		return r, err
	}
	r.Pack, r.Name, r.Version, r.Campaign = p.Manifest.ID, p.Manifest.Name, p.Manifest.Version, p.Manifest.Campaign
	r.Problems = slices.Clone(p.Problems)
	slices.SortStableFunc(r.Problems, func(a, b pack.Problem) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	s := &r.Summary
	s.Files = p.files
	c := p.Content
	for _, d := range c.defs {
		kind := d.kind
		if ch := c.Characters[d.id]; kind == kindCharacter && ch != nil {
			kind = string(ch.Kind)
		}
		s.Entities[kind]++
	}
	if find != nil && p.Manifest.Campaign && c.UsesPackEntities() && pack.Problems(r.Problems).Count(pack.Error) == 0 {
		r.Problems = append(r.Problems, packProblems(ctx, c, path, find)...)
	}
	s.Stats, s.Items, s.PlotBeats, s.Assets, s.Generated = len(c.Stats), len(c.Items), len(p.Beats), len(p.Assets), p.Generated
	for _, ch := range p.Chunks(tok) {
		s.Chunks++
		s.Tokens += ch.Tokens
	}
	s.Warnings, s.Errors = pack.Problems(r.Problems).Count(pack.Warning), pack.Problems(r.Problems).Count(pack.Error)
	return r, nil
}

// Text renders the report for a terminal: the problems, one a line as
// editors read them ("file:line: severity: message"), then the summary.
func (r Report) Text() string {
	var b strings.Builder
	name := r.Pack
	if r.Version != "" {
		name += " " + r.Version
	}
	kind := "pack"
	if r.Campaign {
		kind = "campaign"
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", kind, name, r.Source)
	for _, p := range r.Problems {
		loc := p.File
		if p.Line > 0 {
			loc = fmt.Sprintf("%s:%d", p.File, p.Line)
		}
		fmt.Fprintf(&b, "%s: %s: %s\n", loc, p.Severity, p.Message)
	}
	s := r.Summary
	var ents []string
	for _, k := range world.SortedKeys(s.Entities) {
		ents = append(ents, fmt.Sprintf("%d %s", s.Entities[k], k))
	}
	if len(ents) == 0 {
		ents = []string{"none"}
	}
	fmt.Fprintf(&b, "files %d; entities: %s\n", s.Files, strings.Join(ents, ", "))
	fmt.Fprintf(&b, "stats %d, items %d, plot beats %d, assets %d (%d AI-generated)\n", s.Stats, s.Items, s.PlotBeats, s.Assets, s.Generated)
	fmt.Fprintf(&b, "chunks %d, tokens %d\n", s.Chunks, s.Tokens)
	verdict := "ok"
	if !r.OK() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "%d error(s), %d warning(s): %s\n", s.Errors, s.Warnings, verdict)
	return b.String()
}

// packProblems binds c, read from dir, to the packs find finds, and
// returns what stops it.
func packProblems(ctx context.Context, c *Campaign, dir string, find PackFinder) pack.Problems {
	var probs pack.Problems
	file, line := c.metaAt("packs")
	var packs []*Pack
	for _, r := range c.Meta.Packs {
		p, err := find(ctx, dir, r.ID)
		if err != nil {
			probs.Add(file, line, "%v", err)
			continue
		}
		packs = append(packs, p)
	}
	if len(probs) > 0 {
		return probs
	}
	_, bound, err := scenarioOf(c, packs)
	if err != nil {
		probs.Add(file, line, "the packs do not layer: %v", err)
		return probs
	}
	return bound
}
