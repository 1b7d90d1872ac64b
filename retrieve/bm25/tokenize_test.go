package bm25

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Expected tokens are FTS5's own ('porter unicode61' through
// modernc.org/sqlite); the lore index's tests check the whole SRD
// vocabulary against FTS5 as well.
func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Hit Points", []string{"hit", "point"}},
		{"caresses ponies ties caress cats", []string{"caress", "poni", "ti", "caress", "cat"}},
		{"agreed plastered motoring sing", []string{"agre", "plaster", "motor", "sing"}},
		{"conflated troubled sized hopping tanned falling hissing fizzed failing filing", []string{"conflat", "troubl", "size", "hop", "tan", "fall", "hiss", "fizz", "fail", "file"}},
		{"happy sky relational conditional rational", []string{"happi", "sky", "relat", "condit", "ration"}},
		{"generalization electrical hopefulness goodness", []string{"gener", "electr", "hope", "good"}},
		{"adoption controll roll", []string{"adopt", "control", "roll"}},
		{"x-ray 5th  DC15 l'œuvre Café naïve", []string{"x", "rai", "5th", "dc15", "l", "œuvr", "cafe", "naiv"}},
		{"cafe\u0301s e\u0301a \u0301abc", []string{"cafe", "ea", "abc"}},
		{"", nil},
		{"—…!", nil},
	} {
		if got := Tokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzTokenize: any text tokenizes without panicking into non-empty
// tokens of valid UTF-8 holding no ASCII separator or upper case.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hit Points", "l'œuvre", "Café\u0301", "\xff\xfeabc", "ééé", strings.Repeat("a", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Tokenize(s, func(tok []byte) {
			if len(tok) == 0 {
				t.Fatalf("empty token from %q", s)
			}
			if !utf8.Valid(tok) {
				t.Fatalf("invalid UTF-8 token %q from %q", tok, s)
			}
			for _, c := range tok {
				if c < utf8.RuneSelf && !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
					t.Fatalf("token %q from %q holds %q", tok, s, c)
				}
			}
		})
	})
}
