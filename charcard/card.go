package charcard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/lorebook"
)

// Limits. A card is a portrait and some prose; more than this is a
// mistake or an attack and is refused before it is decoded.
const (
	MaxJSONBytes = lorebook.MaxBytes // a card's JSON, alone or inside a PNG
	MaxPNGBytes  = 32 << 20          // a PNG card, picture included
)

// Spec names a card format.
type Spec string

// The card formats.
const (
	V1 Spec = "chara_card_v1" // no spec field: fields at the top level
	V2 Spec = "chara_card_v2"
	V3 Spec = "chara_card_v3"
)

// Card is a character card's data, V1, V2 and V3 read into one shape.
type Card struct {
	Spec                    Spec     `json:"-"`
	Name                    string   `json:"name"`
	Description             string   `json:"description"`
	Personality             string   `json:"personality"`
	Scenario                string   `json:"scenario"`
	FirstMes                string   `json:"first_mes"`
	MesExample              string   `json:"mes_example"`
	CreatorNotes            string   `json:"creator_notes"`
	SystemPrompt            string   `json:"system_prompt"`
	PostHistoryInstructions string   `json:"post_history_instructions"`
	AlternateGreetings      []string `json:"alternate_greetings"`
	Tags                    []string `json:"tags"`
	Creator                 string   `json:"creator"`
	CharacterVersion        string   `json:"character_version"`
	// CharacterBook is the embedded lorebook, kept as written so package
	// lorebook reads every field it knows.
	CharacterBook json.RawMessage `json:"character_book"`
	Extensions    json.RawMessage `json:"extensions"`

	// V3 only.
	Nickname           string   `json:"nickname"`
	GroupOnlyGreetings []string `json:"group_only_greetings"`
	Assets             []Asset  `json:"assets"`
	Source             []string `json:"source"`
	CreationDate       int64    `json:"creation_date"`     // Unix seconds
	ModificationDate   int64    `json:"modification_date"` // Unix seconds
}

// Asset is a V3 card's asset entry (an icon, a background, an emotion).
type Asset struct {
	Type string `json:"type"`
	URI  string `json:"uri"`
	Name string `json:"name"`
	Ext  string `json:"ext"`
}

// HasBook reports whether the card embeds a lorebook.
func (c *Card) HasBook() bool {
	b := bytes.TrimSpace(c.CharacterBook)
	return len(b) > 0 && !bytes.Equal(b, []byte("null"))
}

// Book parses the card's lorebook with package lorebook, named after the
// card; nil when it has none.
func (c *Card) Book() (*lorebook.Book, error) {
	if !c.HasBook() {
		return nil, nil
	}
	b, err := lorebook.Parse(c.bookJSON())
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "card %q: character_book: %v", c.Name, err)
	}
	return b, nil
}

// bookJSON is the card's lorebook as a standalone V3 lorebook file.
func (c *Card) bookJSON() []byte {
	out, _ := json.Marshal(struct {
		Spec string          `json:"spec"`
		Data json.RawMessage `json:"data"`
	}{"lorebook_v3", c.CharacterBook})
	return out
}

// Parse reads a card from JSON or from a PNG with the card embedded,
// telling them apart by the PNG signature.
func Parse(data []byte) (*Card, error) {
	if bytes.HasPrefix(data, pngSignature) {
		return ParsePNG(data)
	}
	return ParseJSON(data)
}

// ParseJSON reads a V1, V2 or V3 card from its JSON.
func ParseJSON(data []byte) (*Card, error) {
	if len(data) > MaxJSONBytes {
		return nil, hearth.Errorf(hearth.Invalid, "card: %d bytes of JSON is more than the %d allowed", len(data), MaxJSONBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top struct {
		Spec        string          `json:"spec"`
		SpecVersion json.RawMessage `json:"spec_version"`
		Data        json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "card: not JSON a card can be read from: %v", err)
	}
	c := new(Card)
	body := data
	switch top.Spec {
	case string(V2), string(V3):
		c.Spec = Spec(top.Spec)
		if d := bytes.TrimSpace(top.Data); len(d) == 0 || bytes.Equal(d, []byte("null")) {
			return nil, hearth.Errorf(hearth.Invalid, "card: %s without data: the card's fields belong in $.data", top.Spec)
		}
		body = top.Data
	case "":
		c.Spec = V1
		if len(bytes.TrimSpace(top.Data)) > 0 {
			c.Spec, body = V2, top.Data // a V2 card that lost its spec (some V1 tools)
		}
	default:
		return nil, hearth.Errorf(hearth.Invalid, "card: spec %q is not chara_card_v2 or chara_card_v3", top.Spec)
	}
	if err := json.Unmarshal(body, c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, hearth.Errorf(hearth.Invalid, "card: %s: want %s, got a JSON %s", fieldPath(c.Spec, te.Field), te.Type, te.Value)
		}
		return nil, hearth.Errorf(hearth.Invalid, "card: %v", err)
	}
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return nil, hearth.Errorf(hearth.Invalid, "card: %s is missing or empty; every card names its character", fieldPath(c.Spec, "name"))
	}
	if c.Spec != V3 { // V3 fields in an older card are not the card's
		c.Nickname, c.GroupOnlyGreetings, c.Assets, c.Source, c.CreationDate, c.ModificationDate = "", nil, nil, nil, 0, 0
	}
	return c, nil
}

func fieldPath(s Spec, field string) string {
	if s == V1 {
		return "$." + field
	}
	return "$.data." + field
}

// String is the card as a one-line summary.
func (c *Card) String() string {
	return fmt.Sprintf("%s (%s)", c.Name, c.Spec)
}
