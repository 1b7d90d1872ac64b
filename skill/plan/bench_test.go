package plan

import (
	"context"
	"fmt"
	"testing"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// instant is a Runner that succeeds at once with a small state patch, so
// a benchmark measures the executor alone.
var instant = RunnerFunc(func(_ context.Context, c Call) (skill.Result, error) {
	done := &protocol.Done{OK: true}
	return skill.Result{Events: []protocol.Event{
		&protocol.StatePatch{Patch: map[string]any{"tools": map[string]any{c.Tool.ToolID: true}}}, done}, Done: done}, nil
})

// BenchmarkSchedule20 measures the executor's own cost for a 20-tool plan
// with in-process runners: validation, ordering, scheduling, goroutines,
// aggregation.
func BenchmarkSchedule20(b *testing.B) {
	shapes := map[string]func(i int) ([]string, bool){
		"chain":  func(i int) ([]string, bool) { return prev(i, 1), false }, // each after the one before
		"wide":   func(i int) ([]string, bool) { return nil, true },         // all independent, async
		"layers": func(i int) ([]string, bool) { return layer(i), true },    // 4 layers of 5
		"seq":    func(i int) ([]string, bool) { return nil, false },        // independent, one at a time
	}
	for _, name := range []string{"chain", "wide", "layers", "seq"} {
		b.Run(name, func(b *testing.B) {
			p := &Plan{RequestID: "bench", Parallel: true, Metadata: Metadata{GenerationAttempt: 1}}
			for i := range 20 {
				deps, async := shapes[name](i)
				p.Tools = append(p.Tools, Tool{ToolID: fmt.Sprint("t", i), ToolPath: fmt.Sprintf("skills/s%d/scripts/run", i),
					Dependencies: deps, Async: async, Required: true, Input: map[string]any{"i": i}})
			}
			e := &Executor{Runner: instant, MaxConcurrent: 2}
			b.ReportAllocs()
			for b.Loop() {
				if res := e.Execute(b.Context(), p, nil); !res.Success {
					b.Fatal("plan failed")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/plan")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/20, "µs/tool")
		})
	}
}

func prev(i, n int) []string {
	if i < n {
		return nil
	}
	return []string{fmt.Sprint("t", i-n)}
}

func layer(i int) []string {
	if i < 5 {
		return nil
	}
	var deps []string
	for j := (i/5 - 1) * 5; j < i/5*5; j++ {
		deps = append(deps, fmt.Sprint("t", j))
	}
	return deps
}
