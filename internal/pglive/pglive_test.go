package pglive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/store/pgstore"
)

// pair opens two hubs, two servers' parts, in one fresh schema.
func pair(t *testing.T, ttl time.Duration) (*pgdb.DB, string, *Hub, *Hub) {
	t.Helper()
	return pairWith(t, Options{TTL: ttl})
}

// pairWith is pair with more of the hubs' options; the IDs are "a" and "b".
func pairWith(t *testing.T, o Options) (*pgdb.DB, string, *Hub, *Hub) {
	t.Helper()
	url := pgtest.URL(t)
	ctx := context.Background()
	db, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if o.Poll == 0 {
		o.Poll = 100 * time.Millisecond
	}
	hub := func(id string) *Hub {
		o := o
		o.ID = id
		h, err := New(ctx, db, url, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	return db, url, hub("a"), hub("b")
}

// kill stops a hub as kill -9 would: its leases are neither renewed nor
// released.
func kill(h *Hub) {
	h.cancel()
	h.wg.Wait()
	h.mu.Lock()
	h.held = map[string]bool{}
	h.mu.Unlock()
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within two minutes", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// setExpiry sets lease name to expire at the SQL expression at: the
// test's stand-in for the time passing that would take it there.
func setExpiry(t *testing.T, h *Hub, name, at string) {
	t.Helper()
	tag, err := h.pool.Exec(context.Background(), `UPDATE live_leases SET expires_at = `+at+` WHERE name = $1`, name)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("set the expiry of %s: %v (%d rows)", name, err, tag.RowsAffected())
	}
}

// left is how long lease name has before it expires.
func left(t *testing.T, h *Hub, name string) time.Duration {
	t.Helper()
	var s float64
	if err := h.pool.QueryRow(context.Background(), `SELECT extract(epoch FROM expires_at - now())::float8 FROM live_leases WHERE name = $1`, name).Scan(&s); err != nil {
		t.Fatalf("read the expiry of %s: %v", name, err)
	}
	return time.Duration(s * float64(time.Second))
}

// The lease is an hour long but renewed every 50 ms, so no stall of the
// machine hands it over: where the test wants time to have passed it
// moves the expiry itself.
func TestLeaseIsOneProcesssUntilItStopsRenewing(t *testing.T) {
	_, _, a, b := pairWith(t, Options{TTL: time.Hour, renewEvery: 50 * time.Millisecond})
	ctx := context.Background()
	claim := func(h *Hub, name string) (bool, bool) {
		t.Helper()
		ok, auto, err := h.Claim(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return ok, auto
	}
	if ok, _ := claim(a, "game:g1"); !ok {
		t.Fatal("a could not claim a free lease")
	}
	if err := a.SetAutopilot(ctx, "game:g1", true); err != nil {
		t.Fatal(err)
	}
	// As if most of the TTL had gone by: a minute left. a's renewer, in
	// the background, gives it a whole TTL again.
	setExpiry(t, a, "game:g1", "now() + interval '1 minute'")
	if ok, _ := claim(b, "game:g1"); ok {
		t.Fatal("b took a lease a holds")
	}
	eventually(t, "a's renewer giving its lease a whole TTL again", func() bool {
		return left(t, a, "game:g1") > 30*time.Minute
	})
	if ok, _ := claim(b, "game:g1"); ok {
		t.Fatal("b took a lease a still renews")
	}
	if !a.Holds("game:g1") || b.Holds("game:g1") {
		t.Fatalf("holds: a %v, b %v", a.Holds("game:g1"), b.Holds("game:g1"))
	}
	if names, err := b.Orphans(ctx, "game:"); err != nil || len(names) != 0 {
		t.Fatalf("orphans while a lives: %v %v", names, err)
	}

	// Dead, a renews nothing (kill waits for its renewer to stop), so
	// its lease runs out: the test runs it out.
	kill(a)
	setExpiry(t, b, "game:g1", "now() - interval '1 millisecond'")
	if names, err := b.Orphans(ctx, "game:"); err != nil || len(names) != 1 || names[0] != "game:g1" {
		t.Fatalf("orphans once the dead holder's lease ran out: %v %v", names, err)
	}
	ok, auto := claim(b, "game:g1")
	if !ok || !auto {
		t.Fatalf("b's claim after a died: ok %v autopilot %v", ok, auto)
	}
	if !b.Holds("game:g1") || left(t, b, "game:g1") < 30*time.Minute {
		t.Fatalf("b's lease after its claim: held %v, %v left", b.Holds("game:g1"), left(t, b, "game:g1"))
	}

	// Released without an autopilot, a lease is free at once; with one,
	// it is left expired for another to take up.
	if ok, _ := claim(b, "job:j1"); !ok {
		t.Fatal("claim job:j1")
	}
	if err := b.Release(ctx, "job:j1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Release(ctx, "game:g1"); err != nil {
		t.Fatal(err)
	}
	c, err := New(ctx, b.db, b.url, Options{TTL: time.Hour, ID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, auto, err := c.Claim(ctx, "game:g1"); err != nil || !ok || !auto {
		t.Fatalf("claim of a released autopilot game: %v %v %v", ok, auto, err)
	}
	if ok, auto, err := c.Claim(ctx, "job:j1"); err != nil || !ok || auto {
		t.Fatalf("claim of a released job: %v %v %v", ok, auto, err)
	}
}

func TestEventsArriveInOrderWhateverTheirSize(t *testing.T) {
	_, _, a, b := pair(t, time.Second)
	var mu sync.Mutex
	var got, own []string
	b.Serve(func(game string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, game+"|"+string(body))
	}, nil, nil, nil)
	a.Serve(func(game string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		own = append(own, string(body))
	}, nil, nil, nil)
	var want []string
	for i := range 40 {
		body := fmt.Sprintf("event %d", i)
		if i%7 == 3 { // past the NOTIFY payload's limit: a row
			body += strings.Repeat("x", 20000)
		}
		a.Publish("g", []byte(body), false)
		want = append(want, "g|"+body)
	}
	eventually(t, "all 40 events at b", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	mu.Lock()
	defer mu.Unlock()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %.40q, want %.40q", i, got[i], want[i])
		}
	}
	if len(own) != 0 {
		t.Errorf("a heard %d of its own events", len(own))
	}
}

func TestCallReachesTheOwnerEvenOneThatTookOverLate(t *testing.T) {
	_, _, a, b := pair(t, time.Second)
	var owning sync.Mutex
	owns := false
	b.Serve(nil, func(ctx context.Context, game string, req []byte) ([]byte, error) {
		return append([]byte("b answers "+game+": "), req...), nil
	}, func(game string) bool {
		owning.Lock()
		defer owning.Unlock()
		return owns && game == "g"
	}, nil)
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := a.Call(ctx, "g", []byte("ping"))
		done <- result{r, err}
	}()
	// Nobody owns g yet: the call waits, announced again each Poll.
	select {
	case r := <-done:
		t.Fatalf("a call nobody owns was answered: %q %v", r.b, r.err)
	case <-time.After(500 * time.Millisecond):
	}
	owning.Lock()
	owns = true
	owning.Unlock()
	r := <-done
	if r.err != nil || !bytes.Equal(r.b, []byte("b answers g: ping")) {
		t.Fatalf("call: %q %v", r.b, r.err)
	}
	// A call that times out is withdrawn.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := a.Call(ctx, "nobody", []byte("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call to nobody: %v", err)
	}
	var n int
	if err := a.pool.QueryRow(context.Background(), `SELECT count(*) FROM live_calls`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("calls left: %d %v", n, err)
	}
}

// Calls named with an Answer prefix reach that answerer on the process
// holding the thing named, never the games' onCall.
func TestPrefixedCallsReachTheirAnswerer(t *testing.T) {
	_, _, a, b := pair(t, time.Second)
	games := func(ctx context.Context, game string, req []byte) ([]byte, error) {
		return []byte("game handler"), nil
	}
	all := func(string) bool { return true }
	a.Serve(nil, games, all, nil)
	b.Serve(nil, games, all, nil)
	a.Answer("chat:", func(ctx context.Context, name string, req []byte) ([]byte, error) {
		return []byte("a has " + name), nil
	}, func(name string) bool { return false })
	b.Answer("chat:", func(ctx context.Context, name string, req []byte) ([]byte, error) {
		return append([]byte("b has "+name+": "), req...), nil
	}, func(name string) bool { return name == "chat:c1" })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := a.Call(ctx, "chat:c1", []byte("continue"))
	if err != nil || string(r) != "b has chat:c1: continue" {
		t.Fatalf("chat call: %q %v", r, err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	if r, err := a.Call(short, "chat:nobody", []byte("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a chat nobody holds: %q %v", r, err)
	}
}

// Two processes that both believe they own a game (one paused past its
// lease) never store two turns of one number on one branch: a stale
// session either conflicts on the branch tip it read, or (ensureTip: it
// is behind the tip) starts a branch of its own. The lease check before
// each turn (gameapi) keeps it from getting that far.
func TestStaleOwnerCannotCommitTheSameTurn(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	db, err := pgdb.Open(ctx, url, pgdb.Options{Migrations: []pgdb.Migrations{pgstore.Migrations, pgnarrative.Migrations}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := pgstore.New(db)
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := game.New(ctx, st, c, 7, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := game.Open(ctx, st, gs.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	two, err := game.Open(ctx, st, gs.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	main := one.Branch()
	// Both at turn 0; the store takes the first append of turn 1 and
	// refuses the second.
	if _, err := one.PlayTurn(ctx, game.Play{Input: "look around"}, nil); err != nil {
		t.Fatal(err)
	}
	br, err := st.Branches(ctx, gs.ID())
	if err != nil {
		t.Fatal(err)
	}
	var mainID string
	for _, b := range br {
		if b.Name == main {
			mainID = b.ID
		}
	}
	if err := st.AppendTurn(ctx, &store.Turn{BranchID: mainID, Number: 1, Input: "wait"}, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second turn 1 on %s: %v, want a conflict", main, err)
	}
	if _, err := two.PlayTurn(ctx, game.Play{Input: "wait"}, nil); err == nil && two.Branch() == main {
		t.Fatalf("the stale session played on %s", main)
	} else if err != nil && !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the stale session's turn: %v", err)
	}
	turns, err := st.Turns(ctx, mainID, 1, 10)
	if err != nil || len(turns) != 1 || turns[0].Input != "look around" {
		t.Fatalf("turns on %s: %d %v", main, len(turns), err)
	}
}
