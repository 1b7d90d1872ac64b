package offlinegm

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hearth-rpg/hearth/llm"
)

// ToolCalls reads a player's text with the pattern interpreter, knowing
// no world, and returns a tool call for each intent whose tool is offered,
// in order. With none, it returns what to say instead: the interpreter's
// reply, else the help text. It is the offline provider's WithToolCalls
// option, so the agentic pipeline plays offline; the provider numbers the
// calls.
func ToolCalls(ctx context.Context, text string, offered []string) ([]llm.ToolCall, string, error) {
	in, err := New().Interpret(ctx, nil, text)
	if err != nil {
		return nil, "", err
	}
	var calls []llm.ToolCall
	for _, intent := range in.Intents {
		if !slices.Contains(offered, intent.Type()) {
			continue
		}
		args, err := json.Marshal(intent)
		if err != nil {
			return nil, "", err
		}
		calls = append(calls, llm.ToolCall{Name: intent.Type(), Arguments: args})
	}
	if len(calls) > 0 {
		return calls, "", nil
	}
	if in.Reply != "" {
		return nil, in.Reply, nil
	}
	return nil, Help(), nil
}
