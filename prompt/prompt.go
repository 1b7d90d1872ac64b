package prompt

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

//go:embed prompts/*.tmpl
var builtin embed.FS

// seedPlaceholders are the placeholders seed 001's prompt templates use,
// written {name}; each stands for a field of the data a prompt is
// rendered with, so a prompt written to the seed works unchanged.
// {player_stats} is the player character's stats (the game's
// PlayerStats), which the choice and narration prompts state.
var seedPlaceholders = strings.NewReplacer("{player_stats}", "{{.PlayerStats}}")

// Template is one version of one prompt.
type Template struct {
	Name    string
	Version int
	Source  string // "builtin" or the override file's path
	// Notes say what this version changed and why: the template's leading
	// {{/* … */}} comment, without its Status line.
	Notes string
	// Candidate is a version on trial ("Status: candidate" in its notes):
	// it runs only where pinned, and unpinned prompts keep the latest
	// version that is not one.
	Candidate bool
	tmpl      *template.Template
}

// header reads a template's leading comment: its notes and whether it
// is a candidate.
func header(body string) (notes string, candidate bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(body, " \t\r\n"), "{{/*")
	if !ok {
		return "", false
	}
	text, _, ok := strings.Cut(rest, "*/}}")
	if !ok {
		return "", false
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Status:"); ok {
			candidate = strings.EqualFold(strings.TrimSpace(v), "candidate")
			continue
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	return strings.TrimSpace(strings.Join(lines, " ")), candidate
}

// ID is "name@version".
func (t *Template) ID() string { return fmt.Sprintf("%s@%d", t.Name, t.Version) }

// Render executes the template with data.
func (t *Template) Render(data any) (string, error) {
	var b strings.Builder
	if err := t.tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", t.ID(), err)
	}
	return strings.TrimSpace(b.String()), nil
}

// Registry holds every version of every prompt. Build it with New; it is
// read-only afterwards and safe for concurrent use.
type Registry struct {
	all  map[string]map[int]*Template // name → version → template
	pins map[string]int
}

// New loads the built-in prompts and then, when dir is not empty, the
// overrides in dir (files NAME@VERSION.tmpl; an override with the same name
// and version replaces the built-in one). pins maps prompt names to the
// versions to use; unpinned prompts use their latest version that is not a
// candidate.
func New(dir string, pins map[string]int) (*Registry, error) {
	r := &Registry{all: map[string]map[int]*Template{}, pins: map[string]int{}}
	if err := r.load(builtin, "prompts", "builtin"); err != nil {
		return nil, err
	}
	if dir != "" {
		if err := r.load(os.DirFS(dir), ".", dir); err != nil {
			return nil, err
		}
	}
	for name, v := range pins {
		if _, err := r.Version(name, v); err != nil {
			return nil, fmt.Errorf("campaign pins %s@%d: %w", name, v, err)
		}
		r.pins[name] = v
	}
	return r, nil
}

func (r *Registry) load(fsys fs.FS, dir, source string) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("read prompts in %s: %w", source, err)
	}
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".tmpl")
		if e.IsDir() || !ok {
			continue
		}
		name, ver, ok := strings.Cut(base, "@")
		v, err := strconv.Atoi(ver)
		if !ok || err != nil || v < 1 || name == "" {
			return fmt.Errorf("prompt file %s: name it NAME@VERSION.tmpl, e.g. narrator@2.tmpl", filepath.Join(source, e.Name()))
		}
		body, err := fs.ReadFile(fsys, filepath.ToSlash(filepath.Join(dir, e.Name())))
		if err != nil {
			return fmt.Errorf("read prompt %s: %w", e.Name(), err)
		}
		t, err := template.New(base).Option("missingkey=error").Parse(seedPlaceholders.Replace(string(body)))
		if err != nil {
			return fmt.Errorf("prompt %s: %w", filepath.Join(source, e.Name()), err)
		}
		src := source
		if source != "builtin" {
			src = filepath.Join(source, e.Name())
		}
		if r.all[name] == nil {
			r.all[name] = map[int]*Template{}
		}
		notes, candidate := header(string(body))
		r.all[name][v] = &Template{Name: name, Version: v, Source: src, Notes: notes, Candidate: candidate, tmpl: t}
	}
	return nil
}

// Get returns the pinned version of a prompt, else its latest version
// that is not a candidate (the latest candidate when all are).
func (r *Registry) Get(name string) (*Template, error) {
	if v, ok := r.pins[name]; ok {
		return r.Version(name, v)
	}
	vs := r.all[name]
	if len(vs) == 0 {
		return nil, fmt.Errorf("no prompt named %q; prompts: %s", name, strings.Join(r.Names(), ", "))
	}
	latest, settled := 0, 0
	for v, t := range vs {
		latest = max(latest, v)
		if !t.Candidate {
			settled = max(settled, v)
		}
	}
	if settled > 0 {
		return vs[settled], nil
	}
	return vs[latest], nil
}

// Version returns one version of a prompt.
func (r *Registry) Version(name string, v int) (*Template, error) {
	t := r.all[name][v]
	if t == nil {
		return nil, fmt.Errorf("no prompt %s@%d; versions of %s: %v", name, v, name, r.Versions(name))
	}
	return t, nil
}

// Names lists the prompts.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.all))
	for n := range r.all {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Versions lists a prompt's versions, oldest first.
func (r *Registry) Versions(name string) []int {
	var out []int
	for v := range r.all[name] {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// ParsePins reads "narrator@2,interpreter@1" (as flags give it).
func ParsePins(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		name, ver, ok := strings.Cut(p, "@")
		v, err := strconv.Atoi(ver)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("prompt version %q: write NAME@VERSION, e.g. narrator@2", p)
		}
		out[name] = v
	}
	return out, nil
}
