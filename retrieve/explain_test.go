package retrieve

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/chunk"
)

func TestExplain(t *testing.T) {
	r := Result{
		Passages: []Passage{{
			Chunk: chunk.Chunk{ID: "core/npcs/mara.md#0", File: "npcs/mara.md", Section: []string{"NPCs", "Mara"}},
			Score: 0.0325,
			Trace: Trace{Signals: []Signal{{FullText, 1, 8.21}, {Vector, 3, 0.612}}, Fused: 0.0325},
		}},
		Tokens:   120,
		Withheld: 2,
	}
	r.Considered = append(r.Considered, r.Passages[0], Passage{
		Chunk: chunk.Chunk{ID: "core/npcs/tam.md#1", File: "npcs/tam.md", Section: []string{"Tam\twith\ttabs"}},
		Trace: Trace{Signals: []Signal{{FullText, 2, 3.1}}, Cut: CutBudget},
	})
	var b strings.Builder
	if err := Explain(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"RANK", "core/npcs/mara.md#0", "npcs/mara.md", "NPCs › Mara", "fulltext #1 (8.210), vector #3 (0.612)", "kept",
		"core/npcs/tam.md#1", "Tam with tabs", "cut: budget",
		"kept 1 of 2 passages examined, 120 tokens; 2 more matched but were cut: role (not shown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines != 4 {
		t.Errorf("%d lines, want 4 (header, 2 rows, totals):\n%s", lines, out)
	}
	if err := Explain(failWriter{}, r); err == nil {
		t.Error("Explain to a failing writer succeeded")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
