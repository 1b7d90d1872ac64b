package chunk

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/hearth-rpg/hearth/tokens"
)

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sentence is about ten tokens.
const sentence = "The quick brown fox jumps over the lazy dog again. "

func TestMarkdownSections(t *testing.T) {
	tok := counter(t)
	in := strings.Join([]string{
		"Intro text.",              // 1
		"",                         // 2
		"# Combat",                 // 3
		"",                         // 4
		"Rounds last six seconds.", // 5
		"",                         // 6
		"## Actions",               // 7
		"",                         // 8
		"### Dash",                 // 9
		"Double your speed.",       // 10
		"",                         // 11
		"```sh",                    // 12
		"# not a heading",          // 13
		"```",                      // 14
		"",                         // 15
		"## Reactions ##",          // 16
		"Opportunity attacks.",     // 17
		"",                         // 18
		"Spells",                   // 19
		"======",                   // 20
		"Magic.",                   // 21
	}, "\n")
	got := Markdown(in, tok, Options{})
	want := []struct {
		section []string
		line    int
		text    string
	}{
		{nil, 1, "Intro text."},
		{[]string{"Combat"}, 3, "# Combat\n\nRounds last six seconds."},
		{[]string{"Combat", "Actions", "Dash"}, 7, "## Actions\n\n### Dash\n\nDouble your speed.\n\n```sh\n# not a heading\n```"},
		{[]string{"Combat", "Reactions"}, 16, "## Reactions ##\n\nOpportunity attacks."},
		{[]string{"Spells"}, 19, "Spells\n======\n\nMagic."},
	}
	if len(got) != len(want) {
		t.Fatalf("%d pieces, want %d: %#v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if !reflect.DeepEqual(g.Section, w.section) || g.Line != w.line || g.Text != w.text {
			t.Errorf("piece %d: %q line %d %q\nwant %q line %d %q", i, g.Section, g.Line, g.Text, w.section, w.line, w.text)
		}
		if g.Tokens != tok.Count(g.Text) {
			t.Errorf("piece %d: %d tokens, counted %d", i, g.Tokens, tok.Count(g.Text))
		}
	}
}

func TestMarkdownMergesUpToTarget(t *testing.T) {
	tok := counter(t)
	para := strings.Repeat(sentence, 3) // ~30 tokens
	var paras []string
	for range 10 {
		paras = append(paras, para)
	}
	in := "# A\n\n" + strings.Join(paras, "\n\n") + "\n\n# B\n\n" + para
	got := Markdown(in, tok, Options{Target: 100})
	var a, b int
	for _, p := range got {
		if p.Tokens > 100 {
			t.Errorf("piece of %d tokens over a target of 100 made of small paragraphs", p.Tokens)
		}
		switch p.Section[0] {
		case "A":
			a++
			if strings.Contains(p.Text, "# B") {
				t.Error("merged across sections")
			}
		case "B":
			b++
		}
	}
	// Ten paragraphs of ~30 tokens in pieces of at most 100: three a piece.
	if a < 3 || a > 5 || b != 1 {
		t.Errorf("%d pieces in A, %d in B: %v", a, b, got)
	}
}

func TestMarkdownSplitsBigBlocks(t *testing.T) {
	tok := counter(t)
	long := strings.Repeat(sentence, 80) // ~800 tokens, one paragraph
	var rows []string
	rows = append(rows, "| name | text |", "|---|---|")
	for range 60 {
		rows = append(rows, "| row | "+strings.Repeat("word ", 12)+"|")
	}
	var list []string
	for range 60 {
		list = append(list, "- item "+strings.Repeat("thing ", 12))
	}
	huge := strings.Repeat("x", 6000) // one "sentence" far over the cap
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, p Piece)
	}{
		{"sentences", long, func(t *testing.T, p Piece) {
			if !strings.HasSuffix(p.Text, ".") {
				t.Errorf("not cut at a sentence end: …%q", p.Text[max(0, len(p.Text)-20):])
			}
		}},
		{"table rows", strings.Join(rows, "\n"), func(t *testing.T, p Piece) {
			for _, l := range strings.Split(p.Text, "\n") {
				if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
					t.Errorf("a table row was cut: %q", l)
				}
			}
		}},
		{"list items", strings.Join(list, "\n"), func(t *testing.T, p Piece) {
			for _, l := range strings.Split(p.Text, "\n") {
				if !strings.HasPrefix(l, "- item") {
					t.Errorf("a list item was cut: %q", l)
				}
			}
		}},
		{"hard split", huge, func(t *testing.T, p Piece) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Markdown(tt.in, tok, Options{})
			if len(got) < 2 {
				t.Fatalf("%d pieces", len(got))
			}
			for _, p := range got {
				if p.Tokens > MaxTokens || p.Tokens != tok.Count(p.Text) {
					t.Errorf("piece of %d tokens (counted %d)", p.Tokens, tok.Count(p.Text))
				}
				tt.check(t, p)
			}
			checkContent(t, tt.in, got)
		})
	}
}

func TestMarkdownLines(t *testing.T) {
	tok := counter(t)
	var long []string // one paragraph of ~900 tokens, a sentence a line
	for i := range 150 {
		long = append(long, "Sentence number "+strconv.Itoa(i)+" is here.")
	}
	in := "# T\r\n\r\nfirst\r\n\r\n\r\n" + strings.Join(long, "\r\n")
	got := Markdown(in, tok, Options{Target: 50})
	if got[0].Line != 1 || len(got) < 10 {
		t.Errorf("first piece on line %d, %d pieces", got[0].Line, len(got))
	}
	lines := strings.Split(in, "\n")
	for _, p := range got {
		if l := strings.TrimSpace(lines[p.Line-1]); !strings.HasPrefix(p.Text, l) {
			t.Errorf("piece says line %d (%q) but starts %q", p.Line, l, p.Text[:20])
		}
	}
}

func TestPlain(t *testing.T) {
	tok := counter(t)
	got := Plain("# not a heading\n\nsecond\n\n\n\nthird", tok, Options{Target: 6})
	if len(got) != 2 || got[0].Section != nil || got[0].Text != "# not a heading\n\nsecond" || got[1].Line != 7 {
		t.Errorf("%#v", got)
	}
}

func TestFields(t *testing.T) {
	tok := counter(t)
	v := map[string]any{
		"name":  "Merlin",
		"level": 12,
		"tags":  []any{"wise", "old"},
		"personality": map[string]any{
			"traits": []any{"patient", "secretive"},
			"voice":  map[string]any{"pitch": "low"},
		},
		"exits": []any{map[string]any{"to": "hall", "direction": "north"}},
		"story": strings.Repeat(sentence, 90),
	}
	got := Fields(v, tok, Options{})
	if got[0].Text != "level: 12\nname: Merlin\ntags: wise, old" || got[0].Section != nil {
		t.Errorf("scalar group: %#v", got[0])
	}
	if got[1].Text != "exits:\n  - direction: north\n    to: hall" || !reflect.DeepEqual(got[1].Section, []string{"exits"}) {
		t.Errorf("list of objects: %#v", got[1])
	}
	if got[2].Text != "personality:\n  traits: patient, secretive\n  voice:\n    pitch: low" {
		t.Errorf("nested: %q", got[2].Text)
	}
	story := 0
	for _, p := range got {
		if p.Tokens > MaxTokens || p.Tokens != tok.Count(p.Text) {
			t.Errorf("%d tokens (counted %d)", p.Tokens, tok.Count(p.Text))
		}
		if reflect.DeepEqual(p.Section, []string{"story"}) {
			story++
		}
	}
	if story < 2 || !strings.HasPrefix(got[3].Text, "story: The quick") {
		t.Errorf("a long field should be split, led by its key: %d pieces, %q", story, got[3].Text[:20])
	}
	sentences := Fields(map[string]any{"knowledge": []any{"The lantern is dark.", "Tobiah is missing, they say."}}, tok, Options{})
	if sentences[0].Text != "knowledge:\n  - The lantern is dark.\n  - Tobiah is missing, they say." {
		t.Errorf("a list of sentences: %q", sentences[0].Text)
	}
	if !reflect.DeepEqual(got, Fields(v, tok, Options{})) {
		t.Error("Fields is not deterministic")
	}

	// A nested object too big for one piece keeps its path.
	big := map[string]any{"personality": map[string]any{
		"traits":  strings.Repeat(sentence, 30),
		"history": strings.Repeat(sentence, 30),
	}}
	got = Fields(big, tok, Options{})
	var paths []string
	for _, p := range got {
		paths = append(paths, strings.Join(p.Section, "."))
	}
	if !reflect.DeepEqual(paths, []string{"personality.history", "personality.traits"}) || !strings.HasPrefix(got[0].Text, "personality.history: ") {
		t.Errorf("paths %v, first %q", paths, got[0].Text[:30])
	}
}

// checkContent fails unless the pieces hold the input's non-space
// characters in order, and nothing else.
func checkContent(t testing.TB, in string, ps []Piece) {
	t.Helper()
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	if got, want := nonSpace(b.String()), nonSpace(in); got != want {
		t.Fatalf("content changed:\n got %q\nwant %q", clip(got), clip(want))
	}
}

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func TestSRDChunking(t *testing.T) {
	files, _ := filepath.Glob("../../shared/testdata/srd51/md/*/*.md")
	if len(files) == 0 {
		t.Skip("the SRD 5.1 Markdown is not at ../shared/testdata/srd51/md beside the repository")
	}
	tok := counter(t)
	pieces := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := Markdown(string(b), tok, Options{})
		for _, p := range got {
			if p.Tokens > MaxTokens {
				t.Errorf("%s:%d: %d tokens", f, p.Line, p.Tokens)
			}
			// Every piece after a heading says where it is.
			if p.Line > 1 && len(p.Section) == 0 && strings.HasPrefix(string(b), "#") {
				t.Errorf("%s:%d: no section", f, p.Line)
			}
		}
		checkContent(t, string(b), got)
		pieces += len(got)
	}
	// "Ape" is a heading of Creatures (A-C).
	b, _ := os.ReadFile("../../shared/testdata/srd51/md/Monsters/Creatures A-C.md")
	found := false
	for _, p := range Markdown(string(b), tok, Options{}) {
		if reflect.DeepEqual(p.Section, []string{"Creatures (A-C)", "Ape"}) && strings.Contains(p.Text, "**Armor Class** 12") {
			found = true
		}
	}
	if !found {
		t.Error("the Ape's stat block is not in section Creatures (A-C) › Ape")
	}
	t.Logf("%d files, %d pieces", len(files), pieces)
}

// TestRuneBack: a cut moves back only out of a valid rune it falls inside;
// bytes that are not UTF-8 are cut where asked. Moving back over them one
// byte at a time made hardSplit advance a byte per cut and retokenize its
// window each time: FuzzMarkdown found 809 such bytes taking 10 s.
func TestRuneBack(t *testing.T) {
	for _, tt := range []struct {
		s    string
		i    int
		want int
	}{
		{"abc", 1, 1},
		{"aé", 2, 1},               // inside é (2 bytes at 1)
		{"a日本", 3, 1},              // inside 日 (3 bytes at 1)
		{"a日本", 4, 4},              // at the start of 本
		{"\xb0\xb0\xb0\xb0", 2, 2}, // continuation bytes without a start
		{"a\xb0\xb0\xb0", 3, 3},    // a stray byte after a one-byte rune
		{"\xe6\x97", 1, 1},         // a cut-short rune
		{"abc", 0, 0},
		{"abc", 3, 3},
	} {
		if got := runeBack(tt.s, tt.i); got != tt.want {
			t.Errorf("runeBack(%q, %d) = %d, want %d", tt.s, tt.i, got, tt.want)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("# T\n\npara.\n\n```\n# code\n```\n")
	f.Add(strings.Repeat("word ", 100)) // over the cap of 64 tokens
	f.Add("a\n===\n- x\n- y\n\n| a | b |\n|---|---|\n")
	tok := counter(f)
	f.Fuzz(func(t *testing.T, in string) {
		// Counting tokens costs microseconds a byte and every byte is
		// counted a few times: bigger inputs find nothing new, slowly.
		// The cap stays above maxRun so long runs are still cut.
		if len(in) > maxRun+maxRun/2 {
			return
		}
		opt := Options{Target: 40, Max: 64} // small caps find edges faster
		ps := Markdown(in, tok, opt)
		lines := strings.Count(in, "\n") + 1
		for _, p := range ps {
			if p.Tokens > opt.Max || p.Tokens != tok.Count(p.Text) {
				t.Fatalf("piece of %d tokens (counted %d), cap %d: %q", p.Tokens, tok.Count(p.Text), opt.Max, p.Text)
			}
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("line %d of %d", p.Line, lines)
			}
			if strings.TrimSpace(p.Text) == "" {
				t.Fatalf("empty piece")
			}
		}
		checkContent(t, in, ps)
	})
}

// BenchmarkMarkdownSRD splits the whole SRD 5.1 (1.6 MB of Markdown).
func BenchmarkMarkdownSRD(b *testing.B) {
	files, _ := filepath.Glob("../../shared/testdata/srd51/md/*/*.md")
	if len(files) == 0 {
		b.Skip("the SRD 5.1 Markdown is not at ../shared/testdata/srd51/md beside the repository")
	}
	var texts []string
	size := 0
	for _, f := range files {
		bs, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(bs))
		size += len(bs)
	}
	tok := counter(b)
	b.SetBytes(int64(size))
	pieces := 0
	for b.Loop() {
		pieces = 0
		for _, t := range texts {
			pieces += len(Markdown(t, tok, Options{}))
		}
	}
	b.ReportMetric(float64(pieces), "pieces")
}
