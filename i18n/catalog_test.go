package i18n

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"text/template/parse"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
)

// TestCatalogsMatch guards every catalog file embedded in the package:
// each area has a file per language, with the same message ids, and each
// message uses the same template fields in every language.
func TestCatalogsMatch(t *testing.T) {
	files, err := fs.Glob(locales, "locales/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded catalogs (%v)", err)
	}
	for _, p := range checkCatalogs(locales) {
		t.Error(p)
	}
}

func TestCheckCatalogsFindsProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings, one per expected problem
	}{
		{"matching", map[string]string{
			"a.en.toml": `x = "Hi {{.Name}}"` + "\n" + `[n]` + "\n" + `one = "1 file"` + "\n" + `other = "{{.Count}} files"`,
			"a.de.toml": `x = "Hallo {{ .Name }}"` + "\n" + `[n]` + "\n" + `one = "1 Datei"` + "\n" + `other = "{{.Count}} Dateien"`,
		}, nil},
		{"missing in de", map[string]string{
			"a.en.toml": "x = \"X\"\ny = \"Y\"\n",
			"a.de.toml": "x = \"X\"\n",
		}, []string{`"y" is in locales/a.en.toml but not in locales/a.de.toml`}},
		{"missing in en", map[string]string{
			"a.en.toml": "x = \"X\"\n",
			"a.de.toml": "x = \"X\"\nz = \"Z\"\n",
		}, []string{`"z" is in locales/a.de.toml but not in locales/a.en.toml`}},
		{"no de file", map[string]string{
			"a.en.toml": "x = \"X\"\n",
			"b.en.toml": "y = \"Y\"\n",
			"b.de.toml": "y = \"Y\"\n",
		}, []string{"locales/a.de.toml is missing"}},
		{"no en file", map[string]string{
			"a.de.toml": "x = \"X\"\n",
		}, []string{"locales/a.en.toml is missing"}},
		{"different fields", map[string]string{
			"a.en.toml": `x = "{{.Limit}} bytes from {{.User.Name}}"`,
			"a.de.toml": `x = "{{.Limt}} Bytes von {{.User.Name}}"`,
		}, []string{`"x": locales/a.en.toml uses .Limit .User.Name, locales/a.de.toml uses .Limt .User.Name`}},
		{"field only in one plural form", map[string]string{
			"a.en.toml": "[x]\none = \"one\"\nother = \"{{.Count}}\"\n",
			"a.de.toml": "[x]\none = \"eins\"\nother = \"viele\"\n",
		}, []string{`locales/a.de.toml uses nothing`}},
		{"duplicate id", map[string]string{
			"a.en.toml": "x = \"X\"\n", "a.de.toml": "x = \"X\"\n",
			"b.en.toml": "x = \"X2\"\n", "b.de.toml": "x = \"X2\"\n",
		}, []string{`"x" is in both locales/a.de.toml and locales/b.de.toml`, `"x" is in both locales/a.en.toml and locales/b.en.toml`}},
		{"bad template", map[string]string{
			"a.en.toml": `x = "{{.Name"`,
			"a.de.toml": `x = "{{.Name}}"`,
		}, []string{"locales/a.en.toml: message \"x\": template"}},
		{"bad toml", map[string]string{
			"a.en.toml": "x = ",
			"a.de.toml": "x = \"X\"\n",
		}, []string{"locales/a.en.toml: "}},
		{"bad name", map[string]string{
			"common.toml": "x = \"X\"\n",
		}, []string{"locales/common.toml: name it AREA.LANG.toml"}},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{}
		for name, data := range tt.files {
			fsys["locales/"+name] = &fstest.MapFile{Data: []byte(data)}
		}
		got := checkCatalogs(fsys)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d problems, want %d: %q", tt.name, len(got), len(tt.want), got)
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q does not contain %q", tt.name, got[i], w)
			}
		}
	}
}

// checkCatalogs returns the problems of the catalogs under locales/ in
// fsys, sorted.
func checkCatalogs(fsys fs.FS) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	type msg struct {
		file   string
		fields string // the template fields used, sorted and space-separated
		broken bool   // its template does not parse
	}
	ids := map[string]map[string]msg{}               // lang → id → message
	areas := map[string]map[string][]string{}        // area → lang → ids
	langs := map[string]bool{"en": true, "de": true} // every area needs each
	broken := map[string]bool{}                      // areas with an unreadable file
	files, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return []string{err.Error()}
	}
	for _, f := range files {
		parts := strings.Split(path.Base(f), ".")
		if len(parts) != 3 {
			bad("%s: name it AREA.LANG.toml", f)
			continue
		}
		area, lang := parts[0], parts[1]
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			bad("%s: %v", f, err)
			continue
		}
		mf, err := goi18n.ParseMessageFileBytes(data, f, map[string]goi18n.UnmarshalFunc{"toml": toml.Unmarshal})
		if err != nil {
			bad("%s: %v", f, err)
			broken[area] = true
			continue
		}
		langs[lang] = true
		if areas[area] == nil {
			areas[area] = map[string][]string{}
		}
		if ids[lang] == nil {
			ids[lang] = map[string]msg{}
		}
		list := []string{}
		for _, m := range mf.Messages {
			fields, err := templateFields(m)
			if err != nil {
				bad("%s: message %q: template: %v", f, m.ID, err)
			}
			if prev, dup := ids[lang][m.ID]; dup {
				bad("message %q is in both %s and %s", m.ID, prev.file, f)
			}
			ids[lang][m.ID] = msg{file: f, fields: fields, broken: err != nil}
			list = append(list, m.ID)
		}
		areas[area][lang] = list
	}

	for area, byLang := range areas {
		if broken[area] {
			continue
		}
		enFile := "locales/" + area + ".en.toml"
		for lang := range langs {
			if _, ok := byLang[lang]; !ok {
				bad("locales/%s.%s.toml is missing: every area needs a catalog per language", area, lang)
			}
		}
		if _, ok := byLang["en"]; !ok {
			continue
		}
		en := byLang["en"]
		for lang, list := range byLang {
			if lang == "en" {
				continue
			}
			file := "locales/" + area + "." + lang + ".toml"
			for _, id := range en {
				if !slices.Contains(list, id) {
					bad("message %q is in %s but not in %s", id, enFile, file)
				}
			}
			for _, id := range list {
				if !slices.Contains(en, id) {
					bad("message %q is in %s but not in %s", id, file, enFile)
					continue
				}
				e, o := ids["en"][id], ids[lang][id]
				if e.fields != o.fields && !e.broken && !o.broken && e.file == enFile && o.file == file {
					bad("message %q: %s uses %s, %s uses %s", id, enFile, orNothing(e.fields), file, orNothing(o.fields))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// templateFields lists the fields ({{.Name}}, {{.User.Name}}) the message's
// plural forms use, together.
func templateFields(m *goi18n.Message) (string, error) {
	left, right := m.LeftDelim, m.RightDelim
	if left == "" {
		left = "{{"
	}
	if right == "" {
		right = "}}"
	}
	set := map[string]bool{}
	for _, src := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
		if src == "" {
			continue
		}
		tr := parse.New(m.ID)
		tr.Mode = parse.SkipFuncCheck
		if _, err := tr.Parse(src, left, right, map[string]*parse.Tree{}); err != nil {
			return "", err
		}
		collectFields(tr.Root, set)
	}
	fields := make([]string, 0, len(set))
	for f := range set {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return strings.Join(fields, " "), nil
}

func collectFields(n parse.Node, set map[string]bool) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			collectFields(c, set)
		}
	case *parse.ActionNode:
		collectFields(n.Pipe, set)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			collectFields(c, set)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			collectFields(a, set)
		}
	case *parse.FieldNode:
		set["."+strings.Join(n.Ident, ".")] = true
	case *parse.ChainNode:
		collectFields(n.Node, set)
	case *parse.IfNode:
		collectFields(&n.BranchNode, set)
	case *parse.RangeNode:
		collectFields(&n.BranchNode, set)
	case *parse.WithNode:
		collectFields(&n.BranchNode, set)
	case *parse.BranchNode:
		collectFields(n.Pipe, set)
		collectFields(n.List, set)
		collectFields(n.ElseList, set)
	case *parse.TemplateNode:
		collectFields(n.Pipe, set)
	}
}
