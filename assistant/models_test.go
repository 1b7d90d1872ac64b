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
	// The chat does not wait for the list: it is asked for behind it.
	for deadline := time.Now().Add(10 * time.Second); p.asked.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := p.asked.Load(); n != 2 {
		t.Fatalf("a minute after a failed model list, a chat asked %d times in all, want 2", n)
	}
}

// listingModel lists the models in list; once gated, each ask waits for
// the gate.
type listingModel struct {
	assistant.Librarian
	mu    sync.Mutex
	list  []llm.Model
	gate  chan struct{}
	asked atomic.Int32
}

func (m *listingModel) Models(ctx context.Context) ([]llm.Model, error) {
	m.asked.Add(1)
	m.mu.Lock()
	gate, list := m.gate, m.list
	m.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return list, nil
}

// Once the list has expired, chats do not wait while it is asked for
// again (once, behind them): they use the last one. A chat naming a model
// the last list lacked waits for the new list, and is let in if it has it.
func TestExpiredModelListIsRefreshedBehindChats(t *testing.T) {
	now := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	p := &listingModel{list: []llm.Model{{Name: "small", ContextLength: 8192}}}
	as, err := assistant.New(assistant.Options{Provider: p, Toolbox: &assistant.Toolbox{}, Conversations: openConversations(t),
		Now: func() time.Time { clock.Lock(); defer clock.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	u := auth.User{ID: "u", Name: "Ann", Role: access.Player}
	chat := func(model string) error {
		a, err := as.Start(context.Background(), u, assistant.Request{Model: model, Messages: []assistant.Message{{Role: "user", Content: "hello"}}}, func(agent.Event) {})
		if err != nil {
			return err
		}
		<-a.Done()
		return nil
	}
	if err := chat("small"); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	p.mu.Lock()
	p.gate, p.list = gate, []llm.Model{{Name: "small"}, {Name: "large"}}
	p.mu.Unlock()
	clock.Lock()
	now = now.Add(2 * time.Minute)
	clock.Unlock()

	// The model server is slow to list: chats with the default or a model
	// the last list had start all the same.
	started := make(chan error, 1)
	go func() {
		for range 3 {
			if err := chat(""); err != nil {
				started <- err
				return
			}
		}
		started <- chat("small")
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(gate)
		t.Fatal("chats waited for an expired model list to be asked for again")
	}
	// The list is asked for on a goroutine of its own, behind the chats:
	// they may all be done before it has asked.
	for deadline := time.Now().Add(time.Minute); p.asked.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := p.asked.Load(); n != 2 {
		t.Errorf("the expired list was asked for %d times in all, want 2 (once again, for all the chats)", n)
	}

	// A model the last list lacked: the chat waits for the new list.
	named := make(chan error, 1)
	go func() { named <- chat("large") }()
	// Refused with the last list, it would answer at once; it may not
	// while the new list is being asked for.
	select {
	case err := <-named:
		t.Fatalf("a chat naming a model the last list lacked did not wait for the new one: %v", err)
	case <-time.After(time.Second):
	}
	close(gate)
	if err := <-named; err != nil {
		t.Fatalf("a model the new list has: %v", err)
	}
	if err := chat("huge"); err == nil {
		t.Fatal("a model no list has was let in")
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
