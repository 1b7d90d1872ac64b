package chunk

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/tokens"
)

// Fields renders a structured value (a decoded JSON or YAML object) as
// readable "key: value" lines, keys in sorted order, and splits it by
// field group: the short scalar fields of an object together, each nested
// object, list of objects or long text on its own, with its path in
// Section (["personality", "traits"]). A group over the cap is split into
// its own fields, a list into runs of items. Pieces carry no Line: a
// decoded value has none; callers that kept key lines can fill it in.
func Fields(v map[string]any, tok *tokens.Counter, opt Options) []Piece {
	s := &splitter{tok: tok, opt: opt.norm()}
	s.fields(nil, v)
	return s.out
}

// fields splits the object m at path: its short scalar fields first,
// then the others one by one.
func (s *splitter) fields(path []string, m map[string]any) {
	var simple []unit
	var rest []string
	for _, k := range sortedKeys(m) {
		v := m[k]
		if isScalar(v) || scalarList(v) {
			text := strings.TrimRight(render(pathName(path, k), v), "\n")
			if n := s.tok.Count(text); n <= s.opt.Target/2 {
				simple = append(simple, unit{text: text, tokens: n, sep: "\n"})
				continue
			}
		}
		rest = append(rest, k)
	}
	s.pack(path, simple)
	for _, k := range rest {
		s.field(append(slices.Clone(path), k), pathName(path, k), m[k])
	}
}

func pathName(path []string, key string) string {
	return strings.Join(append(slices.Clone(path), key), ".")
}

// field splits one field that is not short: whole when it fits, else by
// its parts.
func (s *splitter) field(path []string, name string, v any) {
	text := strings.TrimRight(render(name, v), "\n")
	if n := s.tok.Count(text); n <= s.opt.Max {
		s.out = append(s.out, Piece{Section: path, Text: text, Tokens: n})
		return
	}
	switch x := v.(type) {
	case map[string]any:
		s.fields(path, x)
	case map[any]any:
		s.fields(path, stringKeys(x))
	case []any:
		us := []unit{{text: name + ":"}}
		us[0].tokens = s.tok.Count(us[0].text)
		for i, it := range x {
			t := strings.TrimRight(renderItem(it, "  "), "\n")
			if n := s.tok.Count(t); n <= s.opt.Max {
				us = append(us, unit{text: t, tokens: n, sep: "\n"})
				continue
			}
			// An item too big alone: flush the run so far, split it.
			s.pack(path, us)
			us = nil
			itemPath := append(slices.Clone(path), strconv.Itoa(i))
			switch m := it.(type) {
			case map[string]any:
				s.fields(itemPath, m)
			case map[any]any:
				s.fields(itemPath, stringKeys(m))
			default:
				s.long(itemPath, "- ", scalar(it))
			}
		}
		s.pack(path, us)
	default:
		s.long(path, name+": ", scalar(v))
	}
}

// long splits a long text value, the first piece led by its key.
func (s *splitter) long(path []string, lead, text string) {
	us := s.units(block{kind: para, line: 1, lines: []string{lead + text}})
	for i := range us {
		if i > 0 && us[i].sep == "\n\n" {
			us[i].sep = "\n"
		}
	}
	s.pack(path, us)
}

// pack merges units up to the target, as split does for one section.
func (s *splitter) pack(path []string, us []unit) {
	var group []unit
	for _, u := range us {
		if len(group) > 0 && sum(group)+u.tokens > s.opt.Target {
			s.emit(path, group)
			group = nil
		}
		group = append(group, u)
	}
	s.emit(path, group)
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, map[any]any, []any, []string:
		return false
	}
	return true
}

func scalarList(v any) bool {
	switch x := v.(type) {
	case []string:
		return true
	case []any:
		for _, it := range x {
			if !isScalar(it) {
				return false
			}
		}
		return true
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stringKeys turns a YAML mapping with non-string keys into one with
// their printed forms.
func stringKeys(m map[any]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[scalar(k)] = v
	}
	return out
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

// render writes "name: value" with nested objects and lists indented
// under it.
func render(name string, v any) string {
	var b strings.Builder
	writeField(&b, name, v, "")
	return b.String()
}

func writeField(b *strings.Builder, key string, v any, indent string) {
	if m, ok := v.(map[any]any); ok {
		v = stringKeys(m)
	}
	b.WriteString(indent)
	b.WriteString(key)
	b.WriteByte(':')
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteByte('\n')
		for _, k := range sortedKeys(x) {
			writeField(b, k, x[k], indent+"  ")
		}
	case []string:
		writeList(b, x, indent)
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		if scalarList(x) {
			parts := make([]string, len(x))
			for i, it := range x {
				parts[i] = scalar(it)
			}
			writeList(b, parts, indent)
			return
		}
		b.WriteByte('\n')
		for _, it := range x {
			b.WriteString(renderItem(it, indent+"  "))
		}
	default:
		b.WriteString(" " + scalar(v) + "\n")
	}
}

// writeList writes short words inline ("tags: a, b") and anything
// longer, such as sentences, one item a line.
func writeList(b *strings.Builder, items []string, indent string) {
	n := 0
	inline := true
	for _, it := range items {
		n += len(it)
		if strings.Contains(it, ", ") || strings.Contains(it, "\n") {
			inline = false
		}
	}
	if inline && n <= 80 {
		b.WriteString(" " + strings.Join(items, ", ") + "\n")
		return
	}
	b.WriteByte('\n')
	for _, it := range items {
		b.WriteString(indent + "  - " + it + "\n")
	}
}

// renderItem writes one list item as "- …" at indent.
func renderItem(it any, indent string) string {
	switch x := it.(type) {
	case map[any]any:
		return renderItem(stringKeys(x), indent)
	case map[string]any:
		if len(x) == 0 {
			return indent + "- {}\n"
		}
		var b strings.Builder
		for _, k := range sortedKeys(x) {
			writeField(&b, k, x[k], indent+"  ")
		}
		s := b.String()
		return indent + "- " + s[len(indent)+2:]
	case []any, []string:
		var b strings.Builder
		writeField(&b, "-", x, indent)
		return strings.Replace(b.String(), "-:", "-", 1)
	}
	return indent + "- " + scalar(it) + "\n"
}
