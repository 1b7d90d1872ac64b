package skill

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Skill is a discovered skill directory.
type Skill struct {
	Manifest
	Dir     string        // absolute path of the skill's directory
	Scripts []Script      // executables in scripts/, by name
	Config  *ConfigSchema // from references/config-schema.json; nil if there is none
}

// Script is one executable in a skill's scripts/ directory.
type Script struct {
	Name string // file name, which plans use in toolPath
	Path string // absolute path
}

// Script returns the named script.
func (s *Skill) Script(name string) (Script, bool) {
	for _, sc := range s.Scripts {
		if sc.Name == name {
			return sc, true
		}
	}
	return Script{}, false
}

// DataDir is the skill's private storage (seed 001 §3.5), created by
// Prepare on first use.
func (s *Skill) DataDir() string { return filepath.Join(s.Dir, "data") }

// ManifestPath is the path of the skill's SKILL.md.
func (s *Skill) ManifestPath() string { return filepath.Join(s.Dir, "SKILL.md") }

// Summary is what a plan generator sees of a skill before activating it:
// the lightweight fields of progressive disclosure, plus its health.
type Summary struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	DisplayName  string   `json:"displayName,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Priority     int      `json:"priority"`
	Scripts      []string `json:"scripts"`
	Health       State    `json:"health,omitempty"`
}

// Summary returns the skill's summary; health is filled in by Set.Summaries.
func (s *Skill) Summary() Summary {
	sum := Summary{
		Name: s.Name, Description: s.Description, DisplayName: s.Ext.DisplayName,
		Capabilities: s.Ext.Capabilities, Priority: s.Ext.Priority,
	}
	for _, sc := range s.Scripts {
		sum.Scripts = append(sum.Scripts, sc.Name)
	}
	return sum
}

// ToolPath is the toolPath a plan uses for a skill's script:
// skills/<skill>/scripts/<script>.
func ToolPath(skill, script string) string {
	return "skills/" + skill + "/scripts/" + script
}

// SplitToolPath returns the skill and script a toolPath names: the
// directory before the last "scripts" element and the element after it.
// It returns empty strings for a path of another shape.
func SplitToolPath(toolPath string) (skill, script string) {
	parts := strings.FieldsFunc(filepath.ToSlash(toolPath), func(r rune) bool { return r == '/' })
	n := len(parts)
	if n < 3 || parts[n-2] != "scripts" {
		return "", ""
	}
	return parts[n-3], parts[n-1]
}

// Body reads the markdown body of the skill's SKILL.md: documentation and
// behavioural guidance, read only when the skill is activated.
func (s *Skill) Body() (string, error) {
	b, err := readLimited(s.ManifestPath(), MaxManifestSize)
	if err != nil {
		return "", err
	}
	_, body, _, _, err := ParseManifest(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.ManifestPath(), err)
	}
	return string(body), nil
}

// Guidance returns the behavioural guidance for the plan generator's
// context: the body's "Behavioral Guidance" section if it has one, else the
// whole body.
func (s *Skill) Guidance() (string, error) {
	body, err := s.Body()
	if err != nil {
		return "", err
	}
	return GuidanceSection(body), nil
}

// GuidanceSection extracts the section headed "Behavioral Guidance" (or
// "Behavioural Guidance", any level, any case) from markdown, up to the
// next heading of the same or a higher level; without one it returns the
// whole text. Fenced code blocks are not searched for headings.
func GuidanceSection(md string) string {
	lines := strings.Split(md, "\n")
	start, level := -1, 0
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if f := fenceOf(t); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		lv, text := heading(t)
		if lv == 0 {
			continue
		}
		if start >= 0 && lv <= level {
			return strings.TrimSpace(strings.Join(lines[start:i], "\n"))
		}
		if start < 0 {
			name := strings.ToLower(text)
			if name == "behavioral guidance" || name == "behavioural guidance" {
				start, level = i+1, lv
			}
		}
	}
	if start >= 0 {
		return strings.TrimSpace(strings.Join(lines[start:], "\n"))
	}
	return strings.TrimSpace(md)
}

func fenceOf(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// heading returns the level and text of an ATX heading line, or 0.
func heading(t string) (int, string) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, ""
	}
	return n, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
}

func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than the limit of %d bytes", path, max)
	}
	return b, nil
}
