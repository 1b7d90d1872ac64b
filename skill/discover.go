package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Warning is a problem with one skill, naming the file (and line, when
// known). Discovery reports warnings instead of failing: a broken skill
// never stops the others (seed 001 §3.6).
type Warning struct {
	Path string
	Line int
	Msg  string
}

func (w *Warning) Error() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Msg)
	}
	return fmt.Sprintf("%s: %s", w.Path, w.Msg)
}

// Set is the skills discovered in one directory. It is immutable and safe
// for concurrent use; a nil *Set has no skills.
type Set struct {
	dir    string
	skills []*Skill // by name
	print  string   // fingerprint of what discovery read, for Changed
}

// Discover scans dir for skills/*/SKILL.md (seed 001 §3.2). A directory
// that does not exist is an empty set. Each skill whose SKILL.md is missing
// or invalid, or whose name does not match its directory, is skipped with
// a warning; lesser problems (a script that is not executable, a bad
// config schema) keep the skill and warn. The error is for a directory that
// exists but cannot be read.
func Discover(dir string) (*Set, []*Warning, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("skills directory %s: %w", dir, err)
	}
	set := &Set{dir: abs}
	entries, err := os.ReadDir(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading skills directory: %w", err)
	}
	var warns []*Warning
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		path := filepath.Join(abs, name)
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			continue // README.md and other files beside the skills
		}
		s, ws := Load(path)
		warns = append(warns, ws...)
		if s != nil {
			set.skills = append(set.skills, s)
		}
	}
	set.print = fingerprint(abs)
	return set, warns, nil
}

// Load reads the skill in dir. It returns nil and the reasons when the
// directory is not a usable skill.
func Load(dir string) (*Skill, []*Warning) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, []*Warning{{Path: dir, Msg: err.Error()}}
	}
	mpath := filepath.Join(abs, "SKILL.md")
	b, err := readLimited(mpath, MaxManifestSize)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "missing: every skill directory needs a SKILL.md with name and description; skipped"
		}
		return nil, []*Warning{{Path: mpath, Msg: msg}}
	}
	m, _, _, notes, err := ParseManifest(b)
	if err != nil {
		w := &Warning{Path: mpath, Msg: err.Error() + "; skipped"}
		var me *ManifestError
		if errors.As(err, &me) {
			w.Line, w.Msg = me.Line, me.Msg+"; skipped"
		}
		return nil, []*Warning{w}
	}
	var warns []*Warning
	for _, n := range notes {
		warns = append(warns, &Warning{Path: mpath, Msg: n})
	}
	if base := filepath.Base(abs); m.Name != base {
		return nil, append(warns, &Warning{Path: mpath, Line: 2,
			Msg: fmt.Sprintf("name %q must match the directory name %q; skipped", m.Name, base)})
	}
	s := &Skill{Manifest: m, Dir: abs}
	s.Scripts, warns = scanScripts(abs, warns)
	cpath := filepath.Join(abs, "references", "config-schema.json")
	if b, err := readLimited(cpath, MaxConfigSize); err == nil {
		cs, err := ParseConfigSchema(b)
		if err != nil {
			warns = append(warns, &Warning{Path: cpath, Msg: err.Error() + "; configuration is not validated"})
		} else {
			cs.Path = cpath
			s.Config = cs
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		warns = append(warns, &Warning{Path: cpath, Msg: err.Error()})
	}
	if cfg, err := s.LoadConfig(os.LookupEnv); err != nil {
		warns = append(warns, &Warning{Path: s.ConfigPath(), Msg: err.Error()})
	} else {
		for _, p := range cfg.Problems {
			warns = append(warns, &Warning{Path: s.ConfigPath(), Msg: "configuration: " + p})
		}
		for _, m := range cfg.Missing {
			warns = append(warns, &Warning{Path: s.ConfigPath(), Msg: fmt.Sprintf("${%s} is not set in the environment; the skill gets an empty string", m)})
		}
	}
	return s, warns
}

// scanScripts lists the executables in dir/scripts.
func scanScripts(dir string, warns []*Warning) ([]Script, []*Warning) {
	sdir := filepath.Join(dir, "scripts")
	entries, err := os.ReadDir(sdir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warns = append(warns, &Warning{Path: sdir, Msg: err.Error()})
		}
		return nil, warns
	}
	var scripts []Script
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") {
			continue
		}
		path := filepath.Join(sdir, name)
		fi, err := os.Stat(path)
		if err != nil {
			warns = append(warns, &Warning{Path: path, Msg: err.Error()})
			continue
		}
		if fi.IsDir() {
			continue
		}
		if fi.Mode().Perm()&0o111 == 0 {
			warns = append(warns, &Warning{Path: path, Msg: "not executable (chmod +x it); skipped"})
			continue
		}
		scripts = append(scripts, Script{Name: name, Path: path})
	}
	return scripts, warns
}

// Dir returns the directory the set was discovered in.
func (s *Set) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// All returns the skills by name.
func (s *Set) All() []*Skill {
	if s == nil {
		return nil
	}
	return slices.Clone(s.skills)
}

// Get returns the named skill, or nil.
func (s *Set) Get(name string) *Skill {
	if s == nil {
		return nil
	}
	for _, sk := range s.skills {
		if sk.Name == name {
			return sk
		}
	}
	return nil
}

// Resolve finds the discovered script a plan's toolPath names
// (skills/<skill>/scripts/<script>, or any path ending in
// <skill>/scripts/<script>). Only discovered scripts resolve: a plan can
// never run an arbitrary program.
func (s *Set) Resolve(toolPath string) (*Skill, Script, error) {
	name, script := SplitToolPath(toolPath)
	if name == "" {
		return nil, Script{}, &Error{Script: toolPath, Category: ProcessError, Code: CodeNotFound,
			Msg: fmt.Sprintf("toolPath %q is not of the form skills/<skill>/scripts/<script>", toolPath)}
	}
	sk := s.Get(name)
	if sk == nil {
		return nil, Script{}, &Error{Skill: name, Script: script, Category: ProcessError, Code: CodeNotFound,
			Msg: fmt.Sprintf("no skill named %q is installed (have: %s)", name, strings.Join(s.names(), ", "))}
	}
	sc, ok := sk.Script(script)
	if !ok {
		var have []string
		for _, x := range sk.Scripts {
			have = append(have, x.Name)
		}
		return nil, Script{}, &Error{Skill: name, Script: script, Category: ProcessError, Code: CodeNotFound,
			Msg: fmt.Sprintf("skill %s has no script %q (have: %s)", name, script, strings.Join(have, ", "))}
	}
	return sk, sc, nil
}

func (s *Set) names() []string {
	var n []string
	for _, sk := range s.All() {
		n = append(n, sk.Name)
	}
	return n
}

// Summaries returns every skill's summary, with its state in h (which may
// be nil).
func (s *Set) Summaries(h *Health) []Summary {
	var out []Summary
	for _, sk := range s.All() {
		sum := sk.Summary()
		sum.Health = h.State(sk.Name)
		out = append(out, sum)
	}
	return out
}

// RetryPolicy returns the named skill's own default retry policy, if it
// states one.
func (s *Set) RetryPolicy(name string) (RetryPolicy, bool) {
	if sk := s.Get(name); sk != nil && sk.Ext.RetryPolicy != nil {
		return *sk.Ext.RetryPolicy, true
	}
	return RetryPolicy{}, false
}

// Changed reports whether the skills directory looks different from when
// the set was discovered (a skill added or removed, a SKILL.md, script or
// config schema edited), so a caller can poll it and Discover again.
func (s *Set) Changed() bool {
	if s == nil {
		return false
	}
	return fingerprint(s.dir) != s.print
}

// fingerprint lists the size, modification time and mode of every file
// discovery reads: each skill's SKILL.md, config schema, scripts directory
// (a script added or removed) and each script in it (a script edited).
func fingerprint(dir string) string {
	var b strings.Builder
	stat := func(rel string) {
		if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			fmt.Fprintf(&b, "%s %d %d %v\n", rel, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		for _, p := range []string{"SKILL.md", "scripts", filepath.Join("references", "config-schema.json")} {
			stat(filepath.Join(e.Name(), p))
		}
		scripts, _ := os.ReadDir(filepath.Join(dir, e.Name(), "scripts"))
		for _, sc := range scripts {
			stat(filepath.Join(e.Name(), "scripts", sc.Name()))
		}
	}
	return b.String()
}
