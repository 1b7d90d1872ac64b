package assistant_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/llm"
)

// listlessModel is the librarian on a server whose model list fails (many
// OpenAI-compatible servers have none), counting the times it is asked;
// the first ask waits for release.
type listlessModel struct {
	assistant.Librarian
	asked   atomic.Int32
	release chan struct{}
}

func (m *listlessModel) Models(ctx context.Context) ([]llm.Model, error) {
	if m.asked.Add(1) == 1 {
		<-m.release
	}
	return nil, errors.New("404 page not found")
}

// A server without a model list was asked for it at every chat's start:
// a round trip to the model server per chat, and a burst of 1,000 chats
// sent 1,000 at once. Chats starting together share one ask, and a
// failed list is not asked for again for a while.
func TestModelListAskedOnceForManyChats(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	p := &listlessModel{release: make(chan struct{})}
	as, err := assistant.New(assistant.Options{Provider: p, Toolbox: &assistant.Toolbox{}, Conversations: openConversations(t),
		Now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	u := auth.User{ID: "u", Name: "Ann", Role: access.Player}
	chat := func() error {
		a, err := as.Start(context.Background(), u, assistant.Request{Messages: []assistant.Message{{Role: "user", Content: "hello"}}}, func(agent.Event) {})
		if err != nil {
			return err
		}
		<-a.Done()
		return nil
	}

	const chats = 20
	var wg sync.WaitGroup
	errs := make(chan error, chats)
	for range chats {
		wg.Go(func() { errs <- chat() })
	}
	for p.asked.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(p.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a chat without a model list: %v", err)
		}
	}
	if n := p.asked.Load(); n != 1 {
		t.Fatalf("%d chats starting together asked for the model list %d times, want once", chats, n)
	}
	if err := chat(); err != nil {
		t.Fatal(err)
	}
	if n := p.asked.Load(); n != 1 {
		t.Fatalf("a chat a moment after a failed model list asked again (%d asks)", n)
	}

	clock.Lock()
	now = now.Add(time.Minute)
	clock.Unlock()
	if err := chat(); err != nil {
		t.Fatal(err)
	}
	if n := p.asked.Load(); n != 2 {
		t.Fatalf("a minute after a failed model list, a chat asked %d times in all, want 2", n)
	}
}

// countingModel is the librarian counting the times its list is asked for.
type countingModel struct {
	assistant.Librarian
	asked atomic.Int32
}

func (m *countingModel) Models(ctx context.Context) ([]llm.Model, error) {
	m.asked.Add(1)
	return nil, nil // a server with no models listed: an empty list, not a failure
}

// An empty list is an answer, kept for ModelsTTL like any other.
func TestEmptyModelListIsCached(t *testing.T) {
	p := &countingModel{}
	as, err := assistant.New(assistant.Options{Provider: p, Toolbox: &assistant.Toolbox{}, Conversations: openConversations(t)})
	if err != nil {
		t.Fatal(err)
	}
	u := auth.User{ID: "u", Name: "Ann", Role: access.Player}
	for range 5 {
		a, err := as.Start(context.Background(), u, assistant.Request{Model: "any", Messages: []assistant.Message{{Role: "user", Content: "hello"}}}, func(agent.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		<-a.Done()
	}
	if n := p.asked.Load(); n != 1 {
		t.Fatalf("5 chats asked for an empty model list %d times, want once", n)
	}
}
