package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/llm"
)

// TestOfflineProviderCallsTools: an offline role's provider reads tool
// calls with the offline game master's interpreter, so the agentic
// pipeline can play with no model.
func TestOfflineProviderCallsTools(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		role  config.Role
		input string
		calls []string
	}{
		{config.Role{}, "go north then talk to maren", []string{"move", "talk"}},
		{config.Role{Provider: "offline"}, "go north then search", []string{"move"}},
		{config.Role{Provider: "offline"}, "dance", nil},
	}
	for _, tt := range tests {
		p, err := app.NewProvider(ctx, tt.role, 0)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Chat(ctx, llm.Request{Tools: []llm.Tool{{Name: "move"}, {Name: "talk"}},
			Messages: []llm.Message{{Role: llm.User, Content: tt.input}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range resp.Message.ToolCalls {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tt.calls) {
			t.Errorf("%q: tool calls %v, want %v", tt.input, got, tt.calls)
		}
		if len(tt.calls) == 0 && resp.Message.Content == "" {
			t.Errorf("%q: neither tool calls nor words", tt.input)
		}
	}
}
