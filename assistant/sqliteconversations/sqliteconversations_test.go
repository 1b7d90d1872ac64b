package sqliteconversations_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/conversationtest"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
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
