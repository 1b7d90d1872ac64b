package modelgm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/world"
)

// ElementExtractor extracts a turn's narrative elements for callback
// tracking (seed 002 FR76) with a model (the summariser role), as JSON
// the game validates.
type ElementExtractor struct {
	Role Role
}

var _ game.ElementExtractor = ElementExtractor{}

// elementSchema is the structured output asked for.
var elementSchema = json.RawMessage(`{"type":"object","properties":{"elements":{"type":"array","items":{"type":"object",` +
	`"properties":{"element_type":{"type":"string","enum":["character","item","location","event","promise","threat"]},` +
	`"name":{"type":"string"},"description":{"type":"string"}},"required":["element_type","name","description"]}}},"required":["elements"]}`)

// ExtractElements implements game.ElementExtractor.
func (x ElementExtractor) ExtractElements(ctx context.Context, in game.ExtractInput) ([]world.NarrativeElement, error) {
	var b strings.Builder
	if len(in.Known) > 0 {
		b.WriteString("Known already (do not list again):\n")
		for _, e := range in.Known {
			fmt.Fprintf(&b, "- %s (%s)\n", e.Name, e.ElementType)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "Turn %d.\nPlayer: %s\nGM: %s\n", in.Turn, in.Input, in.Narrative)
	resp, err := x.Role.Provider.Chat(ctx, llm.Request{Model: x.Role.Model, Schema: elementSchema, Messages: []llm.Message{
		{Role: llm.System, Content: `List the new narrative elements this turn of a role-playing game introduced that a later turn could call back: characters, items, locations, events, promises (something owed, sworn or undertaken) and threats. Answer with JSON only: {"elements":[{"element_type":"...","name":"...","description":"..."}]}. Names short; an empty list when nothing new.`},
		{Role: llm.User, Content: b.String()},
	}}, nil)
	if err != nil {
		return nil, fmt.Errorf("extract narrative elements: %w", err)
	}
	var out struct {
		Elements []world.NarrativeElement `json:"elements"`
	}
	raw, err := structured.Extract(resp.Message.Content)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		return nil, fmt.Errorf("extract narrative elements: the model's answer is not the JSON asked for: %w", err)
	}
	return out.Elements, nil
}
