package skill

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const storyteller = `---
name: storyteller
description: Rich narrative enhancement using local or hosted LLMs. Use when
  the narrator needs to generate evocative prose for scene descriptions,
  dialogue, or transitions.
license: MIT
metadata:
  author: Narratoria
  version: "1.0.0"
  x-narratoria:
    displayName: Storyteller
    capabilities:
      - narration
      - prose
      - scene-setting
    priority: 80
    retryPolicy:
      maxRetries: 3
      backoffMs: 100
---

# Storyteller Skill

Some documentation.

## Behavioral Guidance

When generating plans that involve storytelling:
- Use vivid sensory details

## Scripts
`

func TestParseManifestSeedExample(t *testing.T) {
	m, body, line, warns, err := ParseManifest([]byte(storyteller))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "storyteller" || !strings.HasPrefix(m.Description, "Rich narrative") || m.License != "MIT" {
		t.Errorf("manifest = %+v", m)
	}
	want := Ext{DisplayName: "Storyteller", Capabilities: []string{"narration", "prose", "scene-setting"}, Priority: 80,
		RetryPolicy: &RetryPolicy{MaxRetries: 3, BackoffMs: 100}}
	if !reflect.DeepEqual(m.Ext, want) {
		t.Errorf("ext = %+v, want %+v", m.Ext, want)
	}
	if m.Metadata["author"] != "Narratoria" {
		t.Errorf("metadata = %v", m.Metadata)
	}
	if line != 21 || !strings.HasPrefix(string(body), "\n# Storyteller Skill") {
		t.Errorf("body starts on line %d with %q", line, string(body)[:20])
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	if g := GuidanceSection(string(body)); g != "When generating plans that involve storytelling:\n- Use vivid sensory details" {
		t.Errorf("guidance = %q", g)
	}
}

func TestParseManifestXHearthWins(t *testing.T) {
	src := "---\nname: a\ndescription: d\nmetadata:\n  x-narratoria:\n    priority: 10\n    displayName: A\n  x-hearth:\n    priority: 90\n    timeoutMs: 5000\n---\n"
	m, _, _, _, err := ParseManifest([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Ext.Priority != 90 || m.Ext.DisplayName != "A" || m.Ext.TimeoutMs != 5000 {
		t.Errorf("ext = %+v", m.Ext)
	}
}

func TestParseManifestErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"no frontmatter", "# Skill\n", 1, "must start with ---"},
		{"unclosed", "---\nname: a\n", 1, "never closed"},
		{"no name", "---\ndescription: d\n---\n", 1, "name is required"},
		{"bad name", "---\nname: My_Skill\ndescription: d\n---\n", 2, "lowercase letters"},
		{"hyphen edge", "---\nname: -a\ndescription: d\n---\n", 2, "start or end with a hyphen"},
		{"double hyphen", "---\nname: a--b\ndescription: d\n---\n", 2, "two in a row"},
		{"long name", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", 2, "longer than 64"},
		{"no description", "---\nname: a\n---\n", 1, "description is required"},
		{"long description", "---\nname: a\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", 3, "limit is 1024"},
		{"not a mapping", "---\n- a\n- b\n---\n", 2, "must be a mapping"},
		{"yaml syntax", "---\nname: a\ndescription: [unclosed\n---\n", 2, "did not find expected"},
		{"wrong type", "---\nname: [a]\ndescription: d\n---\n", 2, "cannot unmarshal"},
		{"alias", "---\nname: &x a\ndescription: *x\n---\n", 3, "aliases are not allowed"},
		{"bad capabilities", "---\nname: a\ndescription: d\nmetadata:\n  x-narratoria:\n    capabilities: 5\n---\n", 6, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, _, err := ParseManifest([]byte(tt.src))
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error = %v, want *ManifestError", err)
			}
			if me.Line != tt.line || !strings.Contains(me.Msg, tt.msg) {
				t.Errorf("error = %v, want line %d containing %q", err, tt.line, tt.msg)
			}
		})
	}
}

func TestParseManifestWarnings(t *testing.T) {
	src := "---\nname: a\ndescription: d\nmetadata:\n  x-narratoria:\n    priority: 150\n    retryPolicy: {maxRetries: 99, backoffMs: 1}\n---\n"
	m, _, _, warns, err := ParseManifest([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Ext.Priority != DefaultPriority || m.Ext.RetryPolicy != nil || len(warns) != 2 {
		t.Errorf("ext = %+v, warnings %q", m.Ext, warns)
	}
}

func TestGuidanceSection(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"none: whole body", "\n# Dice\n\nRoll things.\n", "# Dice\n\nRoll things."},
		{"british spelling, deeper levels kept", "# X\n### Behavioural guidance ###\nA\n#### Sub\nB\n## Next\nC", "A\n#### Sub\nB"},
		{"runs to the end", "## Behavioral Guidance\nonly this", "only this"},
		{"heading in a fence ignored", "```\n## Behavioral Guidance\n```\n## Behavioral Guidance\nreal\n```md\n# not a heading\n```\nmore", "real\n```md\n# not a heading\n```\nmore"},
		{"hash without space is text", "## Behavioral Guidance\n#hashtag\n## End", "#hashtag"},
	}
	for _, tt := range tests {
		if got := GuidanceSection(tt.md); got != tt.want {
			t.Errorf("%s: GuidanceSection = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSplitToolPath(t *testing.T) {
	tests := []struct{ path, skill, script string }{
		{"skills/dice-roller/scripts/roll", "dice-roller", "roll"},
		{"/opt/hearth/skills/memory/scripts/recall", "memory", "recall"},
		{"memory/scripts/recall", "memory", "recall"},
		{`skills\memory\scripts\recall`, "", ""}, // backslashes are not separators here
		{"/bin/sh", "", ""},
		{"skills/x/scripts/", "", ""},
		{"scripts/roll", "", ""},
	}
	for _, tt := range tests {
		s, sc := SplitToolPath(tt.path)
		if s != tt.skill || sc != tt.script {
			t.Errorf("SplitToolPath(%q) = %q, %q; want %q, %q", tt.path, s, sc, tt.skill, tt.script)
		}
	}
	if got := ToolPath("dice-roller", "roll"); got != "skills/dice-roller/scripts/roll" {
		t.Errorf("ToolPath = %q", got)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(storyteller))
	f.Add([]byte("---\nname: a\ndescription: d\n---\nbody"))
	f.Add([]byte("---\r\nname: a\r\ndescription: d\r\n---\r\n"))
	f.Add([]byte("---\nname: &x a\ndescription: *x\n---\n"))
	f.Add([]byte("---\nmetadata: {x-hearth: {priority: -1, retryPolicy: {maxRetries: 1}}}\nname: a\ndescription: d\n---"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, body, line, _, err := ParseManifest(b)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *ManifestError", err)
			}
			return
		}
		if validName(m.Name) != nil || m.Description == "" {
			t.Fatalf("accepted name %q description %q", m.Name, m.Description)
		}
		if m.Ext.Priority < 0 || m.Ext.Priority > 100 || (m.Ext.RetryPolicy != nil && m.Ext.RetryPolicy.Validate() != nil) {
			t.Fatalf("accepted ext %+v", m.Ext)
		}
		if line < 3 || len(body) > len(b) {
			t.Fatalf("body line %d, %d bytes of %d", line, len(body), len(b))
		}
	})
}
