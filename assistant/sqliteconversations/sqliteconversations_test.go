package sqliteconversations_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/conversationtest"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
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
