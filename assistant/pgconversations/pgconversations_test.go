package pgconversations_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/conversationtest"
	"github.com/hearth-rpg/hearth/assistant/pgconversations"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/llm"
)

func TestConformance(t *testing.T) {
	pgtest.Skip(t)
	conversationtest.Run(t, func(t *testing.T) assistant.Conversations {
		c, err := pgconversations.Open(context.Background(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	})
}

// BenchmarkSave saves one long conversation (about 64 KB of messages)
// again and again, as a chat does after each answer; -benchmem's B/op
// is what a save allocates in this process.
func BenchmarkSave(b *testing.B) {
	pgtest.Skip(b)
	ctx := context.Background()
	c, err := pgconversations.Open(ctx, pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	answer := strings.Repeat("The jump drive needs a full tank. ", 30)
	conv := assistant.Conversation{ID: "c1", UserID: "u1", Created: time.Now()}
	for range 64 {
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.User, Content: "describe the jump drive"}, llm.Message{Role: llm.Assistant, Content: answer})
	}
	var lat []time.Duration
	for b.Loop() {
		conv.Updated = time.Now()
		start := time.Now()
		if err := c.Save(ctx, conv); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	at := func(p int) float64 { return float64(lat[(len(lat)-1)*p/100]) / float64(time.Millisecond) }
	b.ReportMetric(at(50), "p50-ms")
	b.ReportMetric(at(99), "p99-ms")
}
