package authtest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
)

// SessionBackend is a store of users, keys and the sessions signed in
// with them, all in one place (a key's sessions die with it).
type SessionBackend interface {
	auth.Store
	auth.SessionStore
}

// RunSessions runs the suite of auth.SessionStore and of auth.Sessions
// over it; open must return a new, empty backend each call and release it
// when t ends.
func RunSessions(t *testing.T, open func(t *testing.T) SessionBackend) {
	tests := []struct {
		name string
		fn   func(*testing.T, SessionBackend)
	}{
		{"Rows", testSessionRows},
		{"SessionDiesWithUser", testSessionDiesWithUser},
		{"SignIn", testSignIn},
		{"Expiry", testSessionExpiry},
		{"RevokeEndsSession", testRevokeEndsSession},
		{"Tickets", testTickets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// Clock is a settable time for Keyring and Sessions tests.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at a fixed time.
func NewClock() *Clock { return &Clock{t: t0} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testSessionRows(t *testing.T, s SessionBackend) {
	u := addUser(t, s, "u1", "alice", access.GM)
	addKey(t, s, auth.StoredKey{ID: keyID(1), UserID: u.ID, Hash: "h", Created: t0})
	st := auth.StoredSession{Hash: "aa", KeyID: keyID(1), CSRF: "c1", Created: t0, Seen: t0}
	if err := s.AddSession(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSession(ctx, auth.StoredSession{Hash: "bb", KeyID: keyID(2), CSRF: "c", Created: t0, Seen: t0}); !errors.Is(err, auth.ErrNoKey) {
		t.Errorf("AddSession for an unknown key: %v, want ErrNoKey", err)
	}
	got, err := s.Session(ctx, "aa")
	if err != nil || !got.Created.Equal(t0) || !got.Seen.Equal(t0) || got.KeyID != st.KeyID || got.CSRF != "c1" || got.Hash != "aa" {
		t.Fatalf("Session = %+v, %v; want %+v", got, err, st)
	}
	if _, err := s.Session(ctx, "zz"); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("Session(unknown) = %v, want ErrNoSession", err)
	}
	later := t0.Add(time.Hour)
	if err := s.TouchSession(ctx, "aa", later); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchSession(ctx, "aa", t0); err != nil { // earlier: no change
		t.Fatal(err)
	}
	if got, _ := s.Session(ctx, "aa"); !got.Seen.Equal(later) {
		t.Errorf("seen %v after touches, want %v", got.Seen, later)
	}
	if err := s.TouchSession(ctx, "zz", later); err != nil {
		t.Errorf("TouchSession(unknown) = %v", err)
	}
	// One session idle too long, one too old, one fresh.
	for _, x := range []auth.StoredSession{
		{Hash: "idle", KeyID: keyID(1), CSRF: "c", Created: t0.Add(time.Hour), Seen: t0.Add(time.Hour)},
		{Hash: "old", KeyID: keyID(1), CSRF: "c", Created: t0, Seen: t0.Add(5 * time.Hour)},
		{Hash: "fresh", KeyID: keyID(1), CSRF: "c", Created: t0.Add(2 * time.Hour), Seen: t0.Add(5 * time.Hour)},
	} {
		if err := s.AddSession(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeleteExpiredSessions(ctx, t0.Add(2*time.Hour), t0.Add(time.Minute))
	if err != nil || n != 3 { // aa (seen at +1h, created at t0), idle, old
		t.Errorf("DeleteExpiredSessions = %d, %v; want 3", n, err)
	}
	if _, err := s.Session(ctx, "fresh"); err != nil {
		t.Errorf("the fresh session went: %v", err)
	}
	for _, h := range []string{"aa", "idle", "old"} {
		if _, err := s.Session(ctx, h); !errors.Is(err, auth.ErrNoSession) {
			t.Errorf("expired session %s: %v", h, err)
		}
	}
	if err := s.DeleteSession(ctx, "fresh"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "fresh"); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("deleted session: %v", err)
	}
	if err := s.DeleteSession(ctx, "fresh"); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

func testSessionDiesWithUser(t *testing.T, s SessionBackend) {
	u := addUser(t, s, "u1", "alice", access.GM)
	addKey(t, s, auth.StoredKey{ID: keyID(1), UserID: u.ID, Hash: "h", Created: t0})
	if err := s.AddSession(ctx, auth.StoredSession{Hash: "aa", KeyID: keyID(1), CSRF: "c", Created: t0, Seen: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "aa"); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("session of a removed user: %v, want ErrNoSession", err)
	}
}

// sessions is a Keyring and its Sessions over s on clock c.
func sessions(t *testing.T, s SessionBackend, c *Clock) (*auth.Keyring, *auth.Sessions) {
	t.Helper()
	kr, err := auth.New(s, auth.WithParams(Cheap), auth.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	ss, err := kr.Sessions(auth.SessionOptions{Idle: time.Hour, Max: 3 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return kr, ss
}

func issue(t *testing.T, kr *auth.Keyring, name string, role access.Level) (string, auth.KeyInfo) {
	t.Helper()
	if _, err := kr.AddUser(ctx, name, role); err != nil {
		t.Fatal(err)
	}
	key, info, err := kr.IssueKey(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return key, info
}

func testSignIn(t *testing.T, s SessionBackend) {
	c := NewClock()
	kr, ss := sessions(t, s, c)
	key, info := issue(t, kr, "alice", access.GM)
	for _, tc := range []struct {
		name, key, user string
		want            error
	}{
		{"no user name", key, "", nil},
		{"the user's name", key, "Alice", nil},
		{"another name", key, "bob", auth.ErrInvalidKey},
		{"a wrong secret", WrongSecrets(t, key, 1)[0], "", auth.ErrWrongSecret},
		{"not a key", "letmein", "", auth.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ss.SignIn(ctx, tc.key, tc.user)
			if tc.want != nil {
				if !errors.Is(err, tc.want) || s.Token != "" {
					t.Fatalf("SignIn = %+v, %v; want %v", s, err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Token) != 43 || len(s.CSRF) != 43 || s.Token == s.CSRF || s.KeyID != info.ID || s.User.Name != "alice" || s.User.Role != access.GM {
				t.Fatalf("session %+v", s)
			}
			got, err := ss.Resume(ctx, s.Token)
			if err != nil || got.User != s.User || got.CSRF != s.CSRF || got.Token != "" {
				t.Fatalf("Resume = %+v, %v; want %+v without the token", got, err, s)
			}
			if err := ss.SignOut(ctx, s.Token); err != nil {
				t.Fatal(err)
			}
			if _, err := ss.Resume(ctx, s.Token); !errors.Is(err, auth.ErrNoSession) {
				t.Errorf("Resume after sign-out: %v, want ErrNoSession", err)
			}
		})
	}
	// Tokens nobody issued, of the right shape or not, are refused: a
	// value an attacker sets in a victim's cookie is never a session.
	for _, tok := range []string{"", "x", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", key} {
		if _, err := ss.Resume(ctx, tok); !errors.Is(err, auth.ErrNoSession) {
			t.Errorf("Resume(%q) = %v, want ErrNoSession", tok, err)
		}
	}
	// Two sign-ins are two sessions.
	a, _ := ss.SignIn(ctx, key, "")
	b, _ := ss.SignIn(ctx, key, "")
	if a.Token == b.Token || a.CSRF == b.CSRF {
		t.Error("two sign-ins share a token")
	}
}

func testSessionExpiry(t *testing.T, s SessionBackend) {
	c := NewClock()
	kr, ss := sessions(t, s, c) // idle 1h, max 3h
	key, _ := issue(t, kr, "alice", access.Player)
	sess, err := ss.SignIn(ctx, key, "")
	if err != nil {
		t.Fatal(err)
	}
	// Used every 50 minutes, it slides past its first idle limit...
	for range 3 {
		c.Add(50 * time.Minute)
		if _, err := ss.Resume(ctx, sess.Token); err != nil {
			t.Fatalf("Resume at %v: %v", c.Now().Sub(t0), err)
		}
	}
	// ...but not past its absolute one.
	c.Add(35 * time.Minute) // 3h05m after sign-in, 35m idle
	if _, err := ss.Resume(ctx, sess.Token); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("Resume past session max: %v, want ErrNoSession", err)
	}
	idle, err := ss.SignIn(ctx, key, "")
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := ss.SignIn(ctx, key, "")
	c.Add(59 * time.Minute)
	if _, err := ss.Resume(ctx, kept.Token); err != nil {
		t.Fatal(err)
	}
	c.Add(2 * time.Minute)
	if _, err := ss.Resume(ctx, idle.Token); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("Resume after an hour idle: %v, want ErrNoSession", err)
	}
	c.Add(59*time.Minute + 59*time.Second - 2*time.Minute)
	if n, err := ss.Cleanup(ctx); err != nil || n != 0 {
		t.Errorf("Cleanup = %d, %v; want nothing yet (the idle one went at use)", n, err)
	}
	c.Add(2 * time.Minute)
	if n, err := ss.Cleanup(ctx); err != nil || n != 1 {
		t.Errorf("Cleanup = %d, %v; want the one left idle", n, err)
	}
}

func testRevokeEndsSession(t *testing.T, s SessionBackend) {
	c := NewClock()
	kr, ss := sessions(t, s, c)
	key, info := issue(t, kr, "alice", access.GM)
	other, _ := issue(t, kr, "bob", access.Player)
	a, err := ss.SignIn(ctx, key, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ss.SignIn(ctx, other, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Revoke(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Resume(ctx, a.Token); !errors.Is(err, auth.ErrNoSession) || !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("session of a revoked key: %v, want ErrNoSession and ErrRevoked", err)
	}
	if _, err := ss.Resume(ctx, b.Token); err != nil {
		t.Errorf("another user's session: %v", err)
	}
	if err := kr.RemoveUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Resume(ctx, b.Token); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("session of a removed user: %v, want ErrNoSession", err)
	}
}

func testTickets(t *testing.T, s SessionBackend) {
	c := NewClock()
	kr, ss := sessions(t, s, c)
	_, gm := issue(t, kr, "gm", access.GM)
	_, pl := issue(t, kr, "ann", access.Player)
	tk, ttl, err := ss.IssueTicket(ctx, pl.ID)
	if err != nil || ttl != auth.TicketTTL || len(tk) != 43 {
		t.Fatalf("IssueTicket = %q, %v, %v", tk, ttl, err)
	}
	u, id, err := ss.RedeemTicket(ctx, tk)
	if err != nil || u.Name != "ann" || u.Role != access.Player || id != pl.ID {
		t.Fatalf("RedeemTicket = %+v, %q, %v", u, id, err)
	}
	if _, _, err := ss.RedeemTicket(ctx, tk); !errors.Is(err, auth.ErrNoTicket) {
		t.Errorf("a ticket used twice: %v, want ErrNoTicket", err)
	}
	old, _, _ := ss.IssueTicket(ctx, gm.ID)
	c.Add(auth.TicketTTL)
	if _, _, err := ss.RedeemTicket(ctx, old); !errors.Is(err, auth.ErrNoTicket) {
		t.Errorf("an expired ticket: %v, want ErrNoTicket", err)
	}
	revoked, _, _ := ss.IssueTicket(ctx, gm.ID)
	if err := kr.Revoke(ctx, gm.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ss.RedeemTicket(ctx, revoked); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("ticket of a key revoked since: %v, want ErrRevoked", err)
	}
	if _, _, err := ss.IssueTicket(ctx, gm.ID); !errors.Is(err, auth.ErrRevoked) {
		t.Errorf("IssueTicket for a revoked key: %v", err)
	}
	if _, _, err := ss.RedeemTicket(ctx, "made-up"); !errors.Is(err, auth.ErrNoTicket) {
		t.Errorf("a made-up ticket: %v", err)
	}
}
