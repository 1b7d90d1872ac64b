package pgconversations_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/conversationtest"
	"github.com/hearth-rpg/hearth/assistant/pgconversations"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
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
