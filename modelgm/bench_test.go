package modelgm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/modelgm"
)

// instant is a model that answers at once and for ever, by the shape of
// what it is asked: a benchmark over it measures what Hearth spends on a
// model turn (context, tools, rules, store), never the model.
type instant struct{ calls int }

func (*instant) Name() string { return "instant" }

func (*instant) Models(context.Context) ([]llm.Model, error) { return nil, nil }

func (*instant) Embed(context.Context, string, []string) ([][]float32, error) { return nil, nil }

func (m *instant) Chat(_ context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	m.calls++
	schema := string(req.Schema)
	var out llm.Message
	out.Role = llm.Assistant
	switch {
	case strings.Contains(schema, `"agent"`):
		out.Content = `{"agent":"exploration"}`
	case strings.Contains(schema, `"fired"`):
		out.Content = `{"fired":[]}`
	case strings.Contains(schema, `"intents"`):
		out.Content = `{"intents":[{"type":"look","args":{}}]}`
	case strings.Contains(schema, `"beats"`):
		out.Content = `{"beats":["the fog thickens"],"tension":"low"}`
	case strings.Contains(schema, `"narration"`):
		out.Content = `{"narration":"Fog rolls over the quay; the lantern's glass is dark."}`
	case len(req.Tools) > 0 && req.Messages[len(req.Messages)-1].Role != llm.ToolRole:
		out.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("c%d", m.calls), Name: "look", Arguments: json.RawMessage(`{}`)}}
	default:
		out.Content = "Fog rolls over the quay; the lantern's glass is dark."
	}
	if fn != nil {
		if out.Content != "" {
			if err := fn(llm.Chunk{Content: out.Content}); err != nil {
				return nil, err
			}
		}
		for i := range out.ToolCalls {
			if err := fn(llm.Chunk{ToolCall: &out.ToolCalls[i]}); err != nil {
				return nil, err
			}
		}
	}
	return &llm.Response{Message: out, Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}, StopReason: "stop"}, nil
}

// cpu is the process's CPU time so far: wall time on a loaded machine is
// mostly waiting for a core.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkModelTurn is the engine's time per model-driven turn of the
// bundled campaign, the model excluded (it answers instantly): routing,
// context packets, tool schemas, the rules, the relevance check and the
// store's commit, per pipeline. Reported as CPU per turn p50/p99.
func BenchmarkModelTurn(b *testing.B) {
	for _, mode := range []string{modelgm.Agentic, modelgm.MultiPass} {
		b.Run(mode, func(b *testing.B) {
			m := &instant{}
			s := newGame(b, m, modelgm.Config{Mode: mode, Plan: mode == modelgm.MultiPass})
			ctx := context.Background()
			inputs := []string{"look around", "examine the lantern", "look at the harbour"}
			per := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := cpu()
				if _, err := s.Act(ctx, inputs[i%len(inputs)]); err != nil {
					b.Fatal(err)
				}
				per = append(per, cpu()-start)
			}
			b.StopTimer()
			slices.Sort(per)
			b.ReportMetric(float64(per[len(per)/2].Microseconds())/1000, "p50-cpu-ms")
			b.ReportMetric(float64(per[len(per)*99/100].Microseconds())/1000, "p99-cpu-ms")
			b.ReportMetric(float64(m.calls)/float64(b.N), "calls/turn")
		})
	}
}
