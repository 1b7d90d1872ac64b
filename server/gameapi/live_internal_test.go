package gameapi

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

func TestASlowClientIsDroppedNotWaitedFor(t *testing.T) {
	srv := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	l := newLive(srv, "g")
	newClient := func(queue int) *client {
		return &client{l: l, level: access.Player, send: make(chan []byte, queue), gone: make(chan struct{})}
	}
	fast, slow := newClient(8), newClient(2)
	l.clients[fast], l.clients[slow] = struct{}{}, struct{}{}
	for range 5 {
		l.broadcast(AutopilotStopped{Type: TypeAutopilotStopped, Reason: StoppedByUser})
	}
	if len(fast.send) != 5 {
		t.Errorf("the reading client got %d of 5 messages", len(fast.send))
	}
	if _, ok := l.clients[slow]; ok {
		t.Fatal("the slow client is still a client")
	}
	select {
	case <-slow.gone:
		if slow.code != websocketPolicyViolation || slow.flush {
			t.Errorf("dropped with %d, flush %v", slow.code, slow.flush)
		}
	default:
		t.Error("the slow client was not told to go")
	}
	if _, ok := l.clients[fast]; !ok {
		t.Error("the reading client was dropped")
	}
}

func TestCommonTurn(t *testing.T) {
	main := store.Branch{ID: "m", Name: "main"}
	a := store.Branch{ID: "a", ParentID: "m", ForkTurn: 5}
	b := store.Branch{ID: "b", ParentID: "m", ForkTurn: 3}
	aa := store.Branch{ID: "aa", ParentID: "a", ForkTurn: 7}
	byID := map[string]store.Branch{"m": main, "a": a, "b": b, "aa": aa}
	tests := []struct {
		name       string
		x, y       store.Branch
		tipX, tipY int
		want       int
	}{
		{"itself", main, main, 9, 9, 9},
		{"parent and child", main, a, 9, 8, 5},
		{"child and parent", a, main, 8, 9, 5},
		{"siblings", a, b, 8, 4, 3},
		{"grandchild and sibling of its parent", aa, b, 10, 4, 3},
		{"grandchild and its parent", aa, a, 10, 8, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := commonTurn(chain(tt.x, byID), chain(tt.y, byID), tt.tipX, tt.tipY); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestViewLevel(t *testing.T) {
	for role, want := range map[access.Level]access.Level{
		0: access.Player, access.Player: access.Player, access.Trusted: access.Trusted,
		access.Assistant: access.GM, access.GM: access.GM,
	} {
		if got := viewLevel(role); got != want {
			t.Errorf("viewLevel(%v) = %v, want %v", role, got, want)
		}
	}
}

// BenchmarkTurnFanOut is what the API adds to each turn: a private copy of
// the state, a view per role and one encoding per role, sent to 30 clients.
func BenchmarkTurnFanOut(b *testing.B) {
	ctx := context.Background()
	db, err := sqlitestore.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		b.Fatal(err)
	}
	gs, err := game.New(ctx, db, c, 1, game.Options{})
	if err != nil {
		b.Fatal(err)
	}
	resp, err := gs.Act(ctx, "look around")
	if err != nil {
		b.Fatal(err)
	}
	srv := New(Options{Store: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close(ctx)
	l, err := srv.acquire(ctx, gs.ID())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.release(l)
	var clients []*client
	for i := range 30 {
		cl := &client{l: l, level: []access.Level{access.Player, access.Trusted, access.GM}[i%3],
			send: make(chan []byte, 4), gone: make(chan struct{})}
		l.clients[cl] = struct{}{}
		clients = append(clients, cl)
	}
	for b.Loop() {
		l.refresh(&resp.Awaiting)
		l.broadcastTurn(resp, "look around", "bench")
		for _, cl := range clients {
			<-cl.send
		}
	}
}

func TestASessionNoOneHoldsIsClosed(t *testing.T) {
	ctx := context.Background()
	db, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := game.New(ctx, db, c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		linger time.Duration
		open   bool // still open right after the release
	}{{-1, false}, {time.Hour, true}} {
		srv := New(Options{Store: db, Linger: tt.linger, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		l, err := srv.acquire(ctx, gs.ID())
		if err != nil {
			t.Fatal(err)
		}
		again, err := srv.acquire(ctx, gs.ID())
		if err != nil || again != l {
			t.Fatalf("a second acquire opened another session: %v", err)
		}
		srv.release(again)
		srv.release(l)
		if tt.open {
			if srv.peek(gs.ID()) != l {
				t.Errorf("linger %v: closed at once", tt.linger)
			}
		} else {
			select {
			case <-l.done:
			case <-time.After(10 * time.Second):
				t.Fatalf("linger %v: the worker did not stop", tt.linger)
			}
			if srv.peek(gs.ID()) != nil {
				t.Errorf("linger %v: still open", tt.linger)
			}
		}
		if err := srv.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A takeover swaps the live game's session while requests read it: under
// -race, a read that is not ordered with the swap fails this test.
func TestATakeoverSwapsTheSessionUnderReaders(t *testing.T) {
	ctx := context.Background()
	db, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := game.New(ctx, db, c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{Store: db, Linger: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close(ctx) //nolint:errcheck // the test is over
	l, err := srv.acquire(ctx, gs.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.release(l)
	before := l.session()
	stop := make(chan struct{})
	read := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				read <- nil
				return
			default:
			}
			if err := l.playerTranscript(ctx, io.Discard, "markdown", viewer{level: access.Player}); err != nil {
				read <- err
				return
			}
		}
	}()
	for range 3 {
		l.promote(ctx, false)
	}
	close(stop)
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if l.session() == before {
		t.Fatal("the takeover kept the session it had")
	}
}
