package skill

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxManifestSize bounds a SKILL.md file.
const MaxManifestSize = 256 << 10

// Manifest is the YAML frontmatter of a SKILL.md file: the fields of the
// Agent Skills standard and the Narratoria extensions under
// metadata.x-narratoria (metadata.x-hearth is accepted too and wins).
type Manifest struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	Metadata      map[string]any // everything under metadata, as written
	Ext           Ext            // metadata.x-narratoria merged with metadata.x-hearth
}

// Ext holds the Narratoria extensions of seed 001 §3.1.
type Ext struct {
	DisplayName  string       `yaml:"displayName" json:"displayName,omitempty"`
	Capabilities []string     `yaml:"capabilities" json:"capabilities,omitempty"`
	Priority     int          `yaml:"priority" json:"priority"` // 0–100, default 50
	RetryPolicy  *RetryPolicy `yaml:"retryPolicy" json:"retryPolicy,omitempty"`
	// TimeoutMs is Hearth's addition: the default timeout of the skill's
	// scripts (seed 001 §2.5 "via skill manifest").
	TimeoutMs int `yaml:"timeoutMs" json:"timeoutMs,omitempty"`
}

// DefaultPriority is the priority of a skill that states none.
const DefaultPriority = 50

// ManifestError is a problem in a SKILL.md, with the line it is on (0 when
// it concerns the whole file).
type ManifestError struct {
	Line int
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// ParseManifest reads a SKILL.md: the frontmatter between a first line of
// --- and the next line of ---, and the markdown body after it. bodyLine is
// the 1-based line the body starts on. Problems that leave the skill usable
// (a priority out of range) are returned as warnings.
func ParseManifest(b []byte) (m Manifest, body []byte, bodyLine int, warnings []string, err error) {
	if len(b) > MaxManifestSize {
		return m, nil, 0, nil, &ManifestError{Msg: fmt.Sprintf("file is %d bytes; the limit is %d", len(b), MaxManifestSize)}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	head, body, bodyLine, err := splitFrontmatter(b)
	if err != nil {
		return m, nil, 0, nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(head, &doc); err != nil {
		return m, nil, 0, nil, yamlError(err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return m, nil, 0, nil, &ManifestError{Line: 2, Msg: "frontmatter must be a mapping with at least name and description"}
	}
	root := doc.Content[0]
	if err := noAliases(root, 0); err != nil {
		return m, nil, 0, nil, err
	}
	lines := map[string]int{}
	var fm struct {
		Name          string         `yaml:"name"`
		Description   string         `yaml:"description"`
		License       string         `yaml:"license"`
		Compatibility string         `yaml:"compatibility"`
		Metadata      map[string]any `yaml:"metadata"`
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		lines[root.Content[i].Value] = root.Content[i].Line + 1
	}
	if err := root.Decode(&fm); err != nil {
		return m, nil, 0, nil, yamlError(err)
	}
	m = Manifest{Name: fm.Name, Description: strings.TrimSpace(fm.Description), License: fm.License,
		Compatibility: fm.Compatibility, Metadata: fm.Metadata}
	line := func(k string) int {
		if l, ok := lines[k]; ok {
			return l
		}
		return 1
	}
	if err := validName(m.Name); err != nil {
		return m, nil, 0, nil, &ManifestError{Line: line("name"), Msg: err.Error()}
	}
	switch n := len([]rune(m.Description)); {
	case n == 0:
		return m, nil, 0, nil, &ManifestError{Line: line("description"), Msg: "description is required: say what the skill does and when to use it"}
	case n > 1024:
		return m, nil, 0, nil, &ManifestError{Line: line("description"), Msg: fmt.Sprintf("description is %d characters; the limit is 1024", n)}
	}
	if n := len([]rune(m.Compatibility)); n > 500 {
		return m, nil, 0, nil, &ManifestError{Line: line("compatibility"), Msg: fmt.Sprintf("compatibility is %d characters; the limit is 500", n)}
	}
	m.Ext.Priority = DefaultPriority
	if meta := mappingValue(root, "metadata"); meta != nil {
		for _, key := range []string{"x-narratoria", "x-hearth"} {
			n := mappingValue(meta, key)
			if n == nil {
				continue
			}
			if err := n.Decode(&m.Ext); err != nil {
				return m, nil, 0, nil, yamlError(err)
			}
		}
	}
	if p := m.Ext.Priority; p < 0 || p > 100 {
		warnings = append(warnings, fmt.Sprintf("line %d: priority %d is outside 0–100; using %d", line("metadata"), p, DefaultPriority))
		m.Ext.Priority = DefaultPriority
	}
	if rp := m.Ext.RetryPolicy; rp != nil {
		if err := rp.Validate(); err != nil {
			warnings = append(warnings, fmt.Sprintf("line %d: retryPolicy: %v; using the default", line("metadata"), err))
			m.Ext.RetryPolicy = nil
		}
	}
	if m.Ext.TimeoutMs < 0 {
		warnings = append(warnings, fmt.Sprintf("line %d: timeoutMs %d is negative; using the default", line("metadata"), m.Ext.TimeoutMs))
		m.Ext.TimeoutMs = 0
	}
	return m, body, bodyLine, warnings, nil
}

func splitFrontmatter(b []byte) (head, body []byte, bodyLine int, err error) {
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	if !isFence(first) {
		return nil, nil, 0, &ManifestError{Line: 1, Msg: "SKILL.md must start with --- and YAML frontmatter (name, description)"}
	}
	for off, line := 0, 2; ; line++ {
		l, after, more := bytes.Cut(rest[off:], []byte("\n"))
		if isFence(l) {
			return rest[:off], after, line + 1, nil
		}
		if !more {
			return nil, nil, 0, &ManifestError{Line: 1, Msg: "frontmatter opened with --- is never closed; add a line with --- after it"}
		}
		off += len(l) + 1
	}
}

func isFence(l []byte) bool { return strings.TrimRight(string(l), " \t\r") == "---" }

// validName checks a skill name per the Agent Skills standard.
func validName(name string) error {
	if name == "" {
		return errors.New("name is required")
	}
	if len(name) > 64 {
		return fmt.Errorf("name %q is longer than 64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q may use only lowercase letters, digits and hyphens", name)
		}
	}
	if name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return fmt.Errorf("name %q may not start or end with a hyphen or have two in a row", name)
	}
	return nil
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// noAliases refuses YAML aliases, which could expand without bound, and
// deep nesting.
func noAliases(n *yaml.Node, depth int) error {
	if depth > 32 {
		return &ManifestError{Line: n.Line + 1, Msg: "frontmatter is nested more than 32 levels deep"}
	}
	if n.Kind == yaml.AliasNode {
		return &ManifestError{Line: n.Line + 1, Msg: "YAML aliases are not allowed in SKILL.md; write the value out"}
	}
	for _, c := range n.Content {
		if err := noAliases(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// yamlError turns a YAML error into a ManifestError with file lines (the
// frontmatter starts on line 2).
func yamlError(err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	var n int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &n); scanErr == nil {
		return &ManifestError{Line: n + 1, Msg: strings.TrimSpace(msg[strings.Index(msg, ":")+1:])}
	}
	return &ManifestError{Line: 2, Msg: msg}
}
