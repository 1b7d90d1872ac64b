package gameapi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/server/gameapi"
)

// bus is an in-memory Cluster for servers in one process: leases in a
// map, events to every other member, calls to the owner.
type bus struct {
	mu      sync.Mutex
	leases  map[string]string // name → member
	members map[string]*member
	dead    map[string]bool // members that can claim nothing more
}

type member struct {
	b       *bus
	id      string
	onEvent func(string, []byte)
	onCall  func(context.Context, string, []byte) ([]byte, error)
	owns    func(string) bool
	calls   int
	in      chan func() // events to it, delivered in order by one goroutine
}

func newBus() *bus {
	return &bus{leases: map[string]string{}, members: map[string]*member{}, dead: map[string]bool{}}
}

func (b *bus) member(id string) *member {
	m := &member{b: b, id: id, in: make(chan func(), 4096)}
	go func() {
		for f := range m.in {
			f()
		}
	}()
	b.mu.Lock()
	b.members[id] = m
	b.mu.Unlock()
	return m
}

// expire drops every lease of member id, as its death would, and keeps
// it from claiming again: its server still runs here, and would otherwise
// race the others to take its games back.
func (b *bus) expire(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dead[id] = true
	for n, o := range b.leases {
		if o == id {
			delete(b.leases, n)
		}
	}
}

func (m *member) Claim(_ context.Context, name string) (bool, bool, error) {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	if o, ok := m.b.leases[name]; m.b.dead[m.id] || ok && o != m.id {
		return false, false, nil
	}
	m.b.leases[name] = m.id
	return true, false, nil
}

func (m *member) Holds(name string) bool {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	return m.b.leases[name] == m.id
}

func (m *member) Release(_ context.Context, name string) error {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	if m.b.leases[name] == m.id {
		delete(m.b.leases, name)
	}
	return nil
}

func (m *member) SetAutopilot(context.Context, string, bool) error  { return nil }
func (m *member) Orphans(context.Context, string) ([]string, error) { return nil, nil }

func (m *member) Publish(game string, body []byte, _ bool) {
	m.b.mu.Lock()
	var others []*member
	for _, o := range m.b.members {
		if o != m && o.onEvent != nil {
			others = append(others, o)
		}
	}
	m.b.mu.Unlock()
	for _, o := range others {
		o.in <- func() { o.onEvent(game, body) }
	}
}

func (m *member) callCount() int {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	return m.calls
}

func (m *member) Call(ctx context.Context, game string, req []byte) ([]byte, error) {
	m.b.mu.Lock()
	m.calls++
	owner := m.b.members[m.b.leases["game:"+game]]
	m.b.mu.Unlock()
	if owner == nil || owner.onCall == nil || !owner.owns(game) {
		return nil, errors.New("no owner")
	}
	return owner.onCall(ctx, game, req)
}

func (m *member) Serve(onEvent func(string, []byte), onCall func(context.Context, string, []byte) ([]byte, error), owns, _ func(string) bool) {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	m.onEvent, m.onCall, m.owns = onEvent, onCall, owns
}

// Two servers on one store: the one that opened the game first plays it;
// a turn asked for on the other is forwarded and reaches both servers'
// clients; the other's REST requests are answered by the owner; and when
// the owner's lease is gone, the other takes the game over and plays on
// from the stored turns.
func TestTwoServersShareAGame(t *testing.T) {
	b := newBus()
	a := newHarness(t, func(o *gameapi.Options) { o.Cluster, o.LeasePoll = b.member("a"), 20*time.Millisecond })
	other := b.member("b")
	bh := newHarness(t, func(o *gameapi.Options) {
		o.Store, o.Cluster, o.LeasePoll = a.db, other, 20*time.Millisecond
	})
	info := a.create(1)
	gmA := a.dial(info.ID, "gm:gm")
	gmA.state()
	gmB := bh.dial(info.ID, "gm2:gm")
	gmB.state()
	playerB := bh.dial(info.ID, "pat:player")
	playerB.state()

	gmB.send(map[string]string{"type": "next_turn"})
	first, _ := gmA.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Committed })
	for _, c := range []*client{gmB, playerB} {
		u, _ := c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Committed })
		if u.Turn != first.Turn {
			t.Fatalf("turn %d on B, %d on A", u.Turn, first.Turn)
		}
	}
	if other.callCount() == 0 {
		t.Fatal("B played the turn itself instead of forwarding it")
	}

	// REST on B is A's answer.
	calls := other.callCount()
	var cfg gameapi.Config
	bh.ok(200, "GET", "/api/sessions/"+info.ID+"/config", "gm2:gm", nil, &cfg)
	if other.callCount() == calls || cfg.Speed == "" {
		t.Fatalf("config on B: %+v, forwarded %v", cfg, other.callCount() > calls)
	}
	if code, body, _ := bh.do("POST", "/api/sessions/"+info.ID+"/restore", "gm2:gm", map[string]string{"pad": strings.Repeat("x", 5000)}); code != 413 {
		t.Fatalf("a body over the limit forwarded: %d %s", code, body)
	}

	// A dies: its lease goes, B takes over and plays the next turn itself.
	b.expire("a")
	deadline := time.Now().Add(wait)
	for !other.Holds("game:" + info.ID) {
		if time.Now().After(deadline) {
			t.Fatal("B never took the game over")
		}
		time.Sleep(10 * time.Millisecond)
	}
	gmB.state() // B's own session_state, as the new owner
	calls = other.callCount()
	gmB.send(map[string]string{"type": "next_turn"})
	next, _ := gmB.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Committed })
	if next.Turn != first.Turn+1 {
		t.Fatalf("after the takeover: turn %d, want %d", next.Turn, first.Turn+1)
	}
	if other.callCount() != calls {
		t.Fatal("B forwarded a turn of a game it owns")
	}
}
