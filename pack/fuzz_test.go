package pack

import (
	"strings"
	"testing"
)

// checkProblems fails on a problem that names no file or has no message.
func checkProblems(t *testing.T, probs []Problem) {
	t.Helper()
	for _, p := range probs {
		if p.File == "" || p.Message == "" || p.Line < 0 || (p.Severity != Error && p.Severity != Warning) {
			t.Fatalf("bad problem %+v", p)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add("yml", "id: srd51\nname: SRD\nversion: 5.1.0\nlicense: CC-BY-4.0\nrequires: [core ^1, {id: maps, version: \">=2\"}]\n")
	f.Add("manifest.json", `{"id": "x", "version": "1", "layer": "homebrew", "access": "gm_only"}`)
	f.Add("campaign.yml", "title: T\nversion: 1.0.0\npacks: [srd51]\n")
	f.Fuzz(func(t *testing.T, name, in string) {
		if !IsManifest(name) {
			name = "yml"
		}
		m, probs := ParseManifest(name, []byte(in))
		checkProblems(t, probs)
		errs := Problems(probs).Errors()
		if len(errs) == 0 && !m.Campaign {
			if checkSlug(m.ID) != nil {
				t.Fatalf("accepted id %q", m.ID)
			}
			if _, err := ParseVersion(m.Version); err != nil {
				t.Fatalf("accepted version %q: %v", m.Version, err)
			}
		}
		for _, r := range m.Requires {
			if _, err := ParseRequirement(r.String()); err != nil {
				t.Fatalf("requirement %q does not read back: %v", r, err)
			}
		}
	})
}

func FuzzParseFrontmatter(f *testing.F) {
	f.Add([]byte("---\na: 1\n---\nbody"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fm, body, line, err := ParseFrontmatter(b)
		if err != nil {
			if !strings.Contains(err.Error(), "line") && !strings.Contains(err.Error(), "limit") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if line < 1 {
			t.Fatalf("body line %d", line)
		}
		// The body is the input's tail, starting on bodyLine.
		s := string(b)
		if !strings.HasSuffix(s, string(body)) {
			t.Fatalf("body is not the input's tail")
		}
		head := strings.TrimPrefix(s[:len(s)-len(body)], "\xef\xbb\xbf")
		if got := strings.Count(head, "\n") + 1; len(body) > 0 && got != line {
			t.Fatalf("body line %d, but the body starts after %d newlines", line, got-1)
		}
		for k, l := range fm.Lines {
			if l < 2 || l >= max(line, 2) {
				t.Fatalf("key %q on line %d, outside the frontmatter (body at %d)", k, l, line)
			}
		}
	})
}
