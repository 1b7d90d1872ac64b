package pack

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is a file's YAML header: its values, and the line of each
// top-level key so Problems can name it.
type Frontmatter struct {
	Values map[string]any
	Lines  map[string]int
	Line   int // line of the opening ---
}

// MaxFileSize bounds one content file.
const MaxFileSize = 1 << 20

// ParseFrontmatter splits a file into its YAML frontmatter (between a
// first line of --- and the next line of ---) and its body. A file without
// frontmatter is all body. bodyLine is the 1-based line the body starts on.
func ParseFrontmatter(b []byte) (fm Frontmatter, body []byte, bodyLine int, err error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a BOM
	fm = Frontmatter{Values: map[string]any{}, Lines: map[string]int{}}
	if len(b) > MaxFileSize {
		return fm, nil, 0, fmt.Errorf("file is %d bytes; the limit is %d", len(b), MaxFileSize)
	}
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	if strings.TrimRight(string(first), " \t\r") != "---" {
		return fm, b, 1, nil
	}
	fm.Line = 1
	// Find the closing line.
	line := 2
	var head []byte
	found := false
	for len(rest) > 0 || !found {
		l, r, more := bytes.Cut(rest, []byte("\n"))
		if strings.TrimRight(string(l), " \t\r") == "---" {
			found = true
			body, bodyLine = r, line+1
			break
		}
		head = append(head, l...)
		head = append(head, '\n')
		rest = r
		line++
		if !more {
			break
		}
	}
	if !found {
		return fm, nil, 0, fmt.Errorf("line 1: frontmatter opened with --- is never closed; add a line with --- after it")
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return fm, body, bodyLine, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(head, &doc); err != nil {
		return fm, nil, 0, YAMLError(err, 1)
	}
	if err := fm.FromNode(&doc, 1); err != nil {
		return fm, nil, 0, err
	}
	return fm, body, bodyLine, nil
}

// FromNode reads a YAML document node into fm; offset is the line the
// document starts after.
func (fm *Frontmatter) FromNode(doc *yaml.Node, offset int) error {
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: frontmatter must be a mapping of keys to values, like \"name: Mira\"", root.Line+offset)
	}
	if err := checkAliases(root, 0); err != nil {
		return err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		fm.Lines[k.Value] = k.Line + offset
	}
	if err := root.Decode(&fm.Values); err != nil {
		return YAMLError(err, offset)
	}
	return nil
}

// checkAliases refuses documents whose aliases could expand without bound
// (a "billion laughs") and deep nesting.
func checkAliases(n *yaml.Node, depth int) error {
	if depth > 64 {
		return fmt.Errorf("line %d: nested more than 64 levels deep", n.Line)
	}
	if n.Kind == yaml.AliasNode {
		return fmt.Errorf("line %d: YAML aliases (*%s) are not allowed in campaign files; write the value out", n.Line, n.Value)
	}
	for _, c := range n.Content {
		if err := checkAliases(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// YAMLError rewrites a YAML error's line numbers to file lines.
func YAMLError(err error, offset int) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	var n int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &n); scanErr == nil {
		rest := msg[strings.Index(msg, ":")+1:]
		return fmt.Errorf("line %d:%s", n+offset, rest)
	}
	return fmt.Errorf("line %d: %s", offset+1, msg)
}

// ParseYAML reads a whole YAML file (campaign.yml, a stat, an item)
// with key lines.
func ParseYAML(b []byte) (Frontmatter, error) {
	fm := Frontmatter{Values: map[string]any{}, Lines: map[string]int{}}
	if len(b) > MaxFileSize {
		return fm, fmt.Errorf("file is %d bytes; the limit is %d", len(b), MaxFileSize)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fm, YAMLError(err, 0)
	}
	return fm, fm.FromNode(&doc, 0)
}
