package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
)

// BenchmarkToolCall measures the loop's own cost per tool call: a
// zero-latency scripted model calls an internal tool ten times, one call
// per answer, then answers.
func BenchmarkToolCall(b *testing.B) {
	const calls = 10
	script := make([]cassette.Interaction, 0, calls+1)
	for range calls {
		script = append(script, cassette.Calls("lookup", `{"word":"lantern"}`))
	}
	script = append(script, cassette.Text("Done."))
	tool := agent.Tool{Tool: llm.Tool{Name: "lookup", Parameters: json.RawMessage(`{"type":"object"}`)},
		Run: func(context.Context, json.RawMessage) (agent.Result, error) {
			return agent.Result{Content: "a light"}, nil
		}}
	req := llm.Request{Messages: []llm.Message{{Role: llm.System, Content: "You look things up."}, {Role: llm.User, Content: "go"}}}
	ctl := &auto{}
	b.ReportAllocs()
	for b.Loop() {
		loop := &agent.Loop{Provider: cassette.Script(append([]cassette.Interaction(nil), script...)...), Tools: []agent.Tool{tool},
			Config: agent.Config{PauseAfterCalls: 1000, MaxConsecutiveInternal: 1000}}
		if _, err := loop.Run(context.Background(), req, ctl, func(agent.Event) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/toolcall")
}
