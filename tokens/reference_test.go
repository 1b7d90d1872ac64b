package tokens

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// reference is tiktoken-go's cl100k encoder, which Counter replaced: the
// tests hold Counter to its tokens, one by one.
var reference = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	return tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
})

func encodeAll(c *Counter, s string) []int {
	var out []int
	c.encode(s, func(r int) bool { out = append(out, r); return true })
	return out
}

// checkSame fails when Counter and tiktoken-go disagree on s.
func checkSame(t *testing.T, c *Counter, ref *tiktoken.Tiktoken, s string) {
	t.Helper()
	want := ref.EncodeOrdinary(s)
	if got := encodeAll(c, s); !slices.Equal(got, want) {
		t.Fatalf("%.80q: tokens %v, tiktoken-go %v", s, got, want)
	}
	if got := c.Count(s); got != len(want) {
		t.Fatalf("%.80q: Count %d, tiktoken-go %d", s, got, len(want))
	}
	for _, max := range []int{1, 7, len(want) - 1, len(want)} {
		if max <= 0 {
			continue
		}
		wantCut, wantN := s, len(want)
		if len(want) > max {
			wantCut, wantN = ref.Decode(want[:max]), max
		}
		if cut, n := c.Truncate(s, max); cut != wantCut || n != wantN {
			t.Fatalf("%.80q: Truncate(%d) = %.40q, %d; tiktoken-go %.40q, %d", s, max, cut, n, wantCut, wantN)
		}
	}
}

var referenceCases = []string{
	"", "a", " ", "  ", "\n", "\r\n\r\n", "hello world", "The lantern of Saltmere has gone dark.",
	"I'LL go, you'd've thought; they're here. It's Maren's.", "1234567890 3.14159 -42 1e10",
	"    indented\n\tcode();\n", "trailing spaces   ", "tabs\t\tand\u00a0nbsp",
	"Ünïcödé façade — “quotes” … 日本語のテキスト 한국어 العربية", "emoji 🐉🎲⚔️ and ZWJ 👩‍👩‍👧",
	"invalid \xff\xfe utf-8 \xc3", "<|endoftext|> is ordinary here", strings.Repeat("a", 300),
	strings.Repeat("ab ", 200), "!!!???...,,,;;;:::", "https://example.com/path?q=1&r=2#frag",
}

func TestMatchesTiktokenGo(t *testing.T) {
	c, err := CL100K()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range referenceCases {
		checkSame(t, c, ref, s)
	}
	// Real prose, tables and lists: the bundled packs and campaigns.
	var files []string
	for _, dir := range []string{"../packs", "../campaigns"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yaml")) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("found %d pack and campaign files; want the bundled ones", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, c, ref, string(b))
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range referenceCases {
		f.Add(s)
	}
	c, err := CL100K()
	if err != nil {
		f.Fatal(err)
	}
	ref, err := reference()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		checkSame(t, c, ref, s)
	})
}
