package sqliteconversations_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/conversationtest"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/internal/sqlitedb"
	"github.com/hearth-rpg/hearth/llm"
)

func TestConformance(t *testing.T) {
	conversationtest.Run(t, func(t *testing.T) assistant.Conversations {
		c, err := sqliteconversations.Open(context.Background(), filepath.Join(t.TempDir(), "hearth.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	})
}

// On a shared handle, Close closes the store's prepared statements and
// the store refuses to prepare new ones; the handle stays open.
func TestClosedStoreOnSharedHandle(t *testing.T) {
	ctx := context.Background()
	h, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "hearth.db"), sqlitedb.Options{Migrations: []sqlitedb.Migrations{sqliteconversations.Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c := sqliteconversations.New(h)
	now := time.Now()
	conv := assistant.Conversation{ID: "c1", UserID: "u1", Created: now, Updated: now, Messages: []llm.Message{{Role: llm.User, Content: "hello"}}}
	for range 2 { // the second save uses the prepared statement
		if err := c.Save(ctx, conv); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Get(ctx, "u1", "c1"); err != nil || len(got.Messages) != 1 || got.Messages[0].Content != "hello" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx, conv); err == nil {
		t.Error("Save on a closed store succeeded")
	}
	if err := h.Writer().PingContext(ctx); err != nil {
		t.Errorf("the shared handle was closed with the store: %v", err)
	}
}

// BenchmarkSave saves conversations (a question and a 1 KB answer) from
// 16 goroutines at once per core, as chats ending together do.
func BenchmarkSave(b *testing.B) {
	ctx := context.Background()
	c, err := sqliteconversations.Open(ctx, filepath.Join(b.TempDir(), "hearth.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	answer := strings.Repeat("The jump drive needs a full tank. ", 30)
	var n atomic.Int64
	b.SetParallelism(16)
	cpu0 := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Now()
			conv := assistant.Conversation{ID: fmt.Sprintf("c%d", n.Add(1)), UserID: "u1", Created: now, Updated: now,
				Messages: []llm.Message{{Role: llm.User, Content: "describe the jump drive"}, {Role: llm.Assistant, Content: answer}}}
			if err := c.Save(ctx, conv); err != nil {
				b.Error(err)
				return
			}
		}
	})
	if cputime.Supported {
		b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/1000/float64(b.N), "cpu-µs/save")
	}
}
