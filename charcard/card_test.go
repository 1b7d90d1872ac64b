package charcard_test

import (
	"bytes"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/charcard"
)

const (
	v1 = `{"name":"Tam","description":"A tinker.","first_mes":"Pots mended!"}`
	v2 = `{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Tam","description":"A tinker.","personality":"cheerful","scenario":"","first_mes":"Pots mended!","mes_example":"","creator_notes":"","system_prompt":"","post_history_instructions":"","alternate_greetings":[],"tags":["tinker"],"creator":"me","character_version":"2","extensions":{},"nickname":"not V2"}}`
	v3 = `{"spec":"chara_card_v3","spec_version":"3.0","data":{"name":"Tam the Third","nickname":"Tamsin","first_mes":"Hi.","group_only_greetings":["All of you!"],"creation_date":1700000000}}`
)

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name, in  string
		spec      charcard.Spec
		card      string // name
		nick      string
		wantError string
	}{
		{name: "v1", in: v1, spec: charcard.V1, card: "Tam"},
		{name: "v2 ignores V3 fields", in: v2, spec: charcard.V2, card: "Tam"},
		{name: "v3", in: v3, spec: charcard.V3, card: "Tam the Third", nick: "Tamsin"},
		{name: "v2 without spec", in: `{"data":{"name":"Lost Spec"}}`, spec: charcard.V2, card: "Lost Spec"},
		{name: "bom", in: "\xef\xbb\xbf" + v1, spec: charcard.V1, card: "Tam"},
		{name: "not json", in: `name: Tam`, wantError: "not JSON"},
		{name: "unknown spec", in: `{"spec":"chara_card_v9","data":{"name":"x"}}`, wantError: `spec "chara_card_v9"`},
		{name: "no data", in: `{"spec":"chara_card_v3"}`, wantError: "without data"},
		{name: "no name", in: `{"spec":"chara_card_v2","data":{"description":"nobody"}}`, wantError: "$.data.name is missing"},
		{name: "blank name", in: `{"name":"  "}`, wantError: "$.name is missing"},
		{name: "wrong type", in: `{"spec":"chara_card_v2","data":{"name":"x","tags":"a,b"}}`, wantError: "$.data.tags: want []string, got a JSON string"},
		{name: "too large", in: `{"name":"x","description":"` + strings.Repeat("a", charcard.MaxJSONBytes) + `"}`, wantError: "more than the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := charcard.Parse([]byte(tt.in))
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantError)
				}
				if hearth.ErrorCode(err) != hearth.Invalid {
					t.Errorf("code %q, want invalid", hearth.ErrorCode(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Spec != tt.spec || c.Name != tt.card || c.Nickname != tt.nick {
				t.Errorf("got spec %s name %q nickname %q, want %s %q %q", c.Spec, c.Name, c.Nickname, tt.spec, tt.card, tt.nick)
			}
		})
	}
}

func TestSampleCard(t *testing.T) {
	b, err := os.ReadFile("testdata/wren_card_v3.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := charcard.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Spec != charcard.V3 || c.Nickname != "Old Wren" || len(c.Tags) != 2 || len(c.AlternateGreetings) != 1 || len(c.Assets) != 1 || c.CreationDate != 1764000000 {
		t.Errorf("fields not read: %+v", c)
	}
	book, err := c.Book()
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Entries) != 2 || book.Name != "Wren's tide lore" || book.Entries[0].Keys[1] != "Teeth" || !book.Entries[1].Disabled {
		t.Errorf("lorebook: %+v", book)
	}
}

func TestParsePNG(t *testing.T) {
	tests := []struct {
		name      string
		png       []byte
		card      string
		spec      charcard.Spec
		wantError string
	}{
		{name: "v2 in chara", png: pngWith(t, "chara", b64(v2)), card: "Tam", spec: charcard.V2},
		{name: "v1 in chara", png: pngWith(t, "chara", b64(v1)), card: "Tam", spec: charcard.V1},
		{name: "ccv3 wins over chara", png: pngWith(t, "chara", b64(v2), "ccv3", b64(v3)), card: "Tam the Third", spec: charcard.V3},
		{name: "ccv3 wins when first", png: pngWith(t, "ccv3", b64(v3), "chara", b64(v2)), card: "Tam the Third", spec: charcard.V3},
		{name: "unpadded base64", png: pngWith(t, "Comment", "hello", "chara", strings.TrimRight(b64(v1+" "), "=")), card: "Tam", spec: charcard.V1},
		{name: "no card", png: pngWith(t, "Comment", "just a picture"), wantError: "no character card"},
		{name: "not base64", png: pngWith(t, "chara", "!!!"), wantError: "not base64"},
		{name: "bad card inside", png: pngWith(t, "ccv3", b64(`{"spec":"chara_card_v3","data":{}}`)), wantError: "in the PNG's ccv3 chunk"},
		{name: "truncated", png: pngWith(t, "chara", b64(v1))[:60], wantError: "past the end"},
		{name: "no IEND", png: cutIEND(pngWith(t, "chara", b64(v1))), wantError: "no IEND"},
		{name: "corrupt", png: corrupt(pngWith(t, "chara", b64(v1))), wantError: "CRC mismatch"},
		{name: "too large", png: append(pngWith(t), make([]byte, charcard.MaxPNGBytes)...), wantError: "more than the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := charcard.Parse(tt.png)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantError)
				}
				if hearth.ErrorCode(err) != hearth.Invalid {
					t.Errorf("code %q, want invalid", hearth.ErrorCode(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.card || c.Spec != tt.spec {
				t.Errorf("got %s, want %q (%s)", c, tt.card, tt.spec)
			}
			// The card editor's output is still a picture.
			if _, err := png.Decode(bytes.NewReader(tt.png)); err != nil {
				t.Errorf("test PNG does not decode: %v", err)
			}
		})
	}
}

func cutIEND(b []byte) []byte { return b[:len(b)-12] }

// corrupt flips a byte inside the last tEXt chunk's text.
func corrupt(b []byte) []byte {
	out := bytes.Clone(b)
	out[len(out)-12-6] ^= 0xff
	return out
}
