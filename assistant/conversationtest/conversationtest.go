// Package conversationtest is the conformance suite of
// assistant.Conversations: every backend (assistant/sqliteconversations, a
// later PostgreSQL one) runs Run from its tests.
package conversationtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/llm"
)

// Run runs the suite; open must return a new, empty store each call and
// release it when t ends.
func Run(t *testing.T, open func(t *testing.T) assistant.Conversations) {
	tests := []struct {
		name string
		fn   func(*testing.T, assistant.Conversations)
	}{
		{"SaveAndGet", testSaveAndGet},
		{"Ownership", testOwnership},
		{"ListAndDelete", testListAndDelete},
		{"ListTies", testListTies},
		{"Cleanup", testCleanup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

var (
	ctx = context.Background()
	t0  = time.Date(2026, 11, 1, 12, 0, 0, 123456789, time.UTC)
)

func save(t *testing.T, c assistant.Conversations, user, id string, updated time.Time) {
	t.Helper()
	if err := c.Save(ctx, assistant.Conversation{ID: id, UserID: user, Created: updated, Updated: updated,
		Messages: []llm.Message{{Role: llm.User, Content: id}}}); err != nil {
		t.Fatal(err)
	}
}

func testSaveAndGet(t *testing.T, c assistant.Conversations) {
	conv := assistant.Conversation{ID: "conv_1", UserID: "ann", Created: t0, Updated: t0,
		Messages: []llm.Message{{Role: llm.User, Content: "Where is the jump drive?"}, {Role: llm.Assistant, Content: "Aft."}},
		Metadata: assistant.Metadata{ActiveDocumentIDs: []string{"core"}, TotalTokensEstimate: 42, SystemSchema: json.RawMessage(`{"system":"mgt2e"}`)}}
	if ok, err := c.Exists(ctx, conv.ID); err != nil || ok {
		t.Fatalf("Exists before saving: %v, %v", ok, err)
	}
	if _, err := c.Get(ctx, "ann", conv.ID); !errors.Is(err, assistant.ErrNotFound) {
		t.Fatalf("Get before saving: %v, want ErrNotFound", err)
	}
	if err := c.Save(ctx, conv); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, "ann", conv.ID)
	if err != nil || got.ID != conv.ID || got.UserID != "ann" || !got.Created.Equal(t0) || !got.Updated.Equal(t0) ||
		len(got.Messages) != 2 || got.Messages[1].Content != "Aft." || got.Messages[1].Role != llm.Assistant ||
		!slices.Equal(got.Metadata.ActiveDocumentIDs, []string{"core"}) || got.Metadata.TotalTokensEstimate != 42 ||
		string(got.Metadata.SystemSchema) != `{"system":"mgt2e"}` {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, conv)
	}
	// Saving again replaces messages, metadata and Updated, never Created.
	later := t0.Add(time.Hour)
	conv.Created, conv.Updated = later, later
	conv.Messages = append(conv.Messages, llm.Message{Role: llm.User, Content: "Thanks."})
	conv.Metadata.TotalTokensEstimate = 50
	if err := c.Save(ctx, conv); err != nil {
		t.Fatal(err)
	}
	got, err = c.Get(ctx, "ann", conv.ID)
	if err != nil || len(got.Messages) != 3 || !got.Updated.Equal(later) || !got.Created.Equal(t0) || got.Metadata.TotalTokensEstimate != 50 {
		t.Fatalf("after a second Save: %+v, %v", got, err)
	}
	if ok, err := c.Exists(ctx, conv.ID); err != nil || !ok {
		t.Errorf("Exists after saving: %v, %v", ok, err)
	}
}

func testOwnership(t *testing.T, c assistant.Conversations) {
	save(t, c, "ann", "a1", t0)
	// Bob cannot take over Ann's conversation id, nor read or delete it.
	if err := c.Save(ctx, assistant.Conversation{ID: "a1", UserID: "bob", Created: t0, Updated: t0}); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("saving another user's id: %v, want ErrNotFound", err)
	}
	if _, err := c.Get(ctx, "bob", "a1"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("reading another user's: %v, want ErrNotFound", err)
	}
	if err := c.Delete(ctx, "bob", "a1"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("deleting another user's: %v, want ErrNotFound", err)
	}
	if got, err := c.Get(ctx, "ann", "a1"); err != nil || got.Messages[0].Content != "a1" {
		t.Errorf("Ann's after Bob tried: %+v, %v", got, err)
	}
	if ok, err := c.Exists(ctx, "a1"); err != nil || !ok {
		t.Errorf("Exists of another user's id: %v, %v; want true", ok, err)
	}
}

func testListAndDelete(t *testing.T, c assistant.Conversations) {
	if list, err := c.List(ctx, "ann"); err != nil || len(list) != 0 {
		t.Fatalf("List with none: %+v, %v", list, err)
	}
	save(t, c, "ann", "a1", t0)
	save(t, c, "ann", "a2", t0.Add(2*time.Hour))
	save(t, c, "ann", "a3", t0.Add(time.Hour))
	save(t, c, "bob", "b1", t0.Add(3*time.Hour))
	list, err := c.List(ctx, "ann")
	if err != nil || len(list) != 3 || list[0].ID != "a2" || list[1].ID != "a3" || list[2].ID != "a1" ||
		list[0].Messages != 1 || !list[0].Updated.Equal(t0.Add(2*time.Hour)) || !list[2].Created.Equal(t0) {
		t.Fatalf("List = %+v, %v; want a2, a3, a1 with one message each", list, err)
	}
	if err := c.Delete(ctx, "ann", "a3"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "ann", "a3"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if _, err := c.Get(ctx, "ann", "a3"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if list, _ := c.List(ctx, "ann"); len(list) != 2 {
		t.Errorf("List after Delete: %+v", list)
	}
	if list, _ := c.List(ctx, "bob"); len(list) != 1 || list[0].ID != "b1" {
		t.Errorf("Bob's list: %+v", list)
	}
}

// Conversations updated at the same moment list by id, whatever order
// they were saved in.
func testListTies(t *testing.T, c assistant.Conversations) {
	for _, id := range []string{"z1", "a9", "m5"} {
		save(t, c, "ann", id, t0)
	}
	list, err := c.List(ctx, "ann")
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if want := []string{"a9", "m5", "z1"}; err != nil || !slices.Equal(ids, want) {
		t.Fatalf("List = %v, %v; want %v", ids, err, want)
	}
}

func testCleanup(t *testing.T, c assistant.Conversations) {
	save(t, c, "ann", "a1", t0)
	save(t, c, "ann", "a2", t0.Add(24*time.Hour))
	save(t, c, "ann", "a3", t0.Add(48*time.Hour))
	save(t, c, "bob", "b1", t0.Add(-10*24*time.Hour)) // idle beyond the TTL
	if n, err := c.Cleanup(ctx, t0.Add(72*time.Hour), 0, 0); err != nil || n != 0 {
		t.Fatalf("Cleanup with no policy deleted %d, %v", n, err)
	}
	n, err := c.Cleanup(ctx, t0.Add(72*time.Hour), 7*24*time.Hour, 2)
	if err != nil || n != 2 {
		t.Fatalf("Cleanup deleted %d, %v; want 2 (bob's expired, ann's oldest)", n, err)
	}
	list, err := c.List(ctx, "ann")
	if err != nil || len(list) != 2 || list[0].ID != "a3" || list[1].ID != "a2" || list[0].Messages != 1 {
		t.Fatalf("ann's after cleanup: %+v, %v", list, err)
	}
	if list, _ := c.List(ctx, "bob"); len(list) != 0 {
		t.Fatalf("bob's after cleanup: %+v", list)
	}
}
