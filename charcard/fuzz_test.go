package charcard_test

import (
	"os"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/charcard"
)

func FuzzTextChunks(f *testing.F) {
	f.Add(pngWith(f, "chara", b64(v2)))
	f.Add(pngWith(f, "ccv3", b64(v3), "chara", b64(v1)))
	f.Add(pngWith(f)[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		chunks, err := charcard.TextChunks(b)
		if err != nil {
			if hearth.ErrorCode(err) != hearth.Invalid {
				t.Fatalf("error without the invalid code: %v", err)
			}
			return
		}
		n := 0
		for _, c := range chunks {
			if c.Keyword == "" {
				t.Fatal("a chunk without a keyword")
			}
			n += len(c.Text)
		}
		if n > len(b) {
			t.Fatalf("%d bytes of text from %d bytes of PNG", n, len(b))
		}
		_, _ = charcard.ParsePNG(b)
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{v1, v2, v3, `{"data":null}`, `{"spec":"chara_card_v2","data":{"name":"x","character_book":{"entries":[{"keys":["a"],"content":"b"}]}}}`} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/wren_card_v3.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := charcard.ParseJSON(b)
		if err != nil {
			if hearth.ErrorCode(err) != hearth.Invalid {
				t.Fatalf("error without the invalid code: %v", err)
			}
			return
		}
		if c.Name == "" {
			t.Fatal("a card without a name")
		}
		if _, err := c.Book(); err != nil && hearth.ErrorCode(err) != hearth.Invalid {
			t.Fatalf("lorebook error without the invalid code: %v", err)
		}
	})
}
