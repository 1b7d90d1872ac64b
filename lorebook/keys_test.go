package lorebook

import (
	"strings"
	"testing"
)

func TestPlainKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry string
		in    Input
		msg   string
		want  bool
	}{
		{"substring, any case by default", `{"key":["Dragon"]}`, Input{}, "a DRAGON lands", true},
		{"substring inside a word", `{"key":["king"]}`, Input{}, "it's not to my liking", true},
		{"absent", `{"key":["dragon"]}`, Input{}, "a wyvern lands", false},
		{"global case-sensitive", `{"key":["Rose"]}`, Input{CaseSensitive: true}, "a rose blooms", false},
		{"global case-sensitive, same case", `{"key":["Rose"]}`, Input{CaseSensitive: true}, "Rose smiles", true},
		{"entry case-sensitive overrides global", `{"key":["Rose"],"caseSensitive":true}`, Input{}, "a rose blooms", false},
		{"entry case-insensitive overrides global", `{"key":["Rose"],"caseSensitive":false}`, Input{CaseSensitive: true}, "a rose blooms", true},
		{"whole words: part of a word", `{"key":["king"]}`, Input{MatchWholeWords: true}, "it's not to my liking", false},
		{"whole words: the word", `{"key":["king"]}`, Input{MatchWholeWords: true}, "long live the king", true},
		{"whole words: punctuation is a boundary", `{"key":["king"]}`, Input{MatchWholeWords: true}, "the king's crown", true},
		{"whole words: underscore is not", `{"key":["king"]}`, Input{MatchWholeWords: true}, "the king_slayer", false},
		{"whole words: later occurrence counts", `{"key":["king"]}`, Input{MatchWholeWords: true}, "liking the king", true},
		{"whole words: non-ASCII letters are boundaries", `{"key":["cafe"]}`, Input{MatchWholeWords: true}, "notrecafeé", false},
		{"whole words: multi-word key is a substring", `{"key":["old king"]}`, Input{MatchWholeWords: true}, "the bold kingdom", true},
		{"entry whole words overrides global", `{"key":["king"],"matchWholeWords":true}`, Input{}, "liking", false},
		{"entry substring overrides global", `{"key":["king"],"matchWholeWords":false}`, Input{MatchWholeWords: true}, "liking", true},
		{"any of several keys", `{"key":["wyvern","dragon"]}`, Input{}, "a dragon", true},
		{"blank keys are dropped", `{"key":["  ",""]}`, Input{}, "anything", false},
		{"keys are trimmed", `{"key":["  dragon "]}`, Input{MatchWholeWords: true}, "dragon!", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := book(t, tc.entry)
			tc.in.Messages = []string{tc.msg}
			got := len(b.Activate(tc.in, nil).Included) == 1
			if got != tc.want {
				t.Errorf("activated = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMatchedKeyIsTheFirstThatMatches(t *testing.T) {
	b := book(t, `{"key":["wyvern","dragon","lands"]}`)
	a := b.Activate(Input{Messages: []string{"a dragon lands"}}, nil)
	if len(a.Included) != 1 || a.Included[0].Key != "dragon" || a.Included[0].Reason != ByKey {
		t.Fatalf("got %+v, want key dragon", a.Included)
	}
}

func TestRegexKeys(t *testing.T) {
	for _, tc := range []struct {
		name, key, msg string
		in             Input
		want           bool
	}{
		{"pattern", `/drag(on|ons)/`, "two dragons", Input{}, true},
		{"regex ignores the global case setting", `/Dragon/`, "a dragon", Input{}, false},
		{"i flag", `/Dragon/i`, "a dragon", Input{}, true},
		{"word boundary", `/\bfog\b/`, "foggy", Input{}, false},
		{"alternation with comma", `/(north|south), then east/`, "go south, then east", Input{}, true},
		{"m flag anchors lines", `/^gate$/m`, "the\ngate", Input{}, true},
		{"without m, ^ is the start of the buffer", `/^gate/`, "gate", Input{}, false}, // the buffer starts with \x01
		{"message separator", `/\x01Mira:[^\x01]*hello/`, "Mira: well hello", Input{}, true},
		{"separator keeps messages apart", `/\x01Mira:[^\x01]*hello/`, "", Input{Messages: []string{"Mira: hi", "Odran: hello"}}, false},
		{"y anchors at the start", `/\x01gate/y`, "gate", Input{}, true},
		{"y anchors at the start, no match later", `/gate/y`, "the gate", Input{}, false},
		{"s flag", `/a.b/s`, "a\nb", Input{}, true},
		{"escaped slash", `/either\/or/`, "either/or", Input{}, true},
		{"unescaped slash is plain text", `/either/or/`, "/either/or/", Input{}, true},
		{"unknown flag is plain text", `/dragon/x`, "a dragon", Input{}, false},
		{"\\u escape", `/\u0044ragon/`, "Dragon", Input{}, true},
		{"named group", `/(?<beast>dragon)/`, "dragon", Input{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := book(t, `{"key":[`+quote(tc.key)+`]}`)
			if len(b.Warnings) > 0 {
				t.Fatalf("warnings: %v", b.Warnings)
			}
			if tc.in.Messages == nil {
				tc.in.Messages = []string{tc.msg}
			}
			got := len(b.Activate(tc.in, nil).Included) == 1
			if got != tc.want {
				t.Errorf("key %s on %q: activated = %v, want %v", tc.key, tc.in.Messages, got, tc.want)
			}
		})
	}
}

func TestRegexKeysRE2CannotRun(t *testing.T) {
	for _, key := range []string{`/(?<=sir )dragon/`, `/(dragon) \1/`, `/dragon(?!fly)/`, `/[^]/`, `/dragon/ii`} {
		t.Run(key, func(t *testing.T) {
			b := book(t, `{"key":[`+quote(key)+`, "wyvern"], "content":"x"}`)
			if len(b.Warnings) != 1 || b.Warnings[0].UID != 0 || !strings.Contains(b.Warnings[0].Message, "never match") {
				t.Fatalf("warnings = %v, want one about the key", b.Warnings)
			}
			if a := b.Activate(Input{Messages: []string{"sir dragon dragon []"}}, nil); len(a.Included) != 0 {
				t.Errorf("the key matched: %+v", a.Included)
			}
			// The entry's other keys still work.
			if a := b.Activate(Input{Messages: []string{"a wyvern"}}, nil); len(a.Included) != 1 {
				t.Errorf("the entry's plain key did not match")
			}
		})
	}
}

func TestUseRegexBarePatterns(t *testing.T) {
	card := `{"spec":"chara_card_v3","data":{"character_book":{"entries":[
		{"keys":["drag(on|ons)"],"content":"x","enabled":true,"insertion_order":1,"use_regex":true},
		{"keys":["Wyrm"],"content":"y","enabled":true,"insertion_order":1,"use_regex":true,"case_sensitive":true}]}}}`
	b, err := Parse([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	if got := uids(b.Activate(Input{Messages: []string{"DRAGONS and wyrms"}}, nil)); len(got) != 1 || got[0] != 0 {
		t.Errorf("included %v, want [0]: bare patterns follow the case setting", got)
	}
}

func TestSlashRegex(t *testing.T) {
	for _, tc := range []struct {
		in, pattern, flags string
		ok                 bool
	}{
		{"/a/", "a", "", true},
		{"/a/gi", "a", "gi", true},
		{"/a\\/b/", "a\\/b", "", true},
		{"/a/b/", "", "", false},
		{"//", "", "", false},
		{"/a", "", "", false},
		{"a/b/", "", "", false},
		{"/a/q", "", "", false},
		{"/a/b/i", "", "", false},
	} {
		p, f, ok := slashRegex(tc.in)
		if ok != tc.ok || p != tc.pattern || f != tc.flags {
			t.Errorf("slashRegex(%q) = %q, %q, %v; want %q, %q, %v", tc.in, p, f, ok, tc.pattern, tc.flags, tc.ok)
		}
	}
}

func quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case '\n':
			sb.WriteString(`\n`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
