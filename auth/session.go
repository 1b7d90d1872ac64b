package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/hearth-rpg/hearth"
)

// Errors of sessions and tickets. Both wrap ErrInvalidKey's code,
// Unauthorized, and say no more to a client than that.
var (
	ErrNoSession = &hearth.Error{Code: hearth.Unauthorized, Message: "no such session (never issued, signed out or expired)"}
	ErrNoTicket  = &hearth.Error{Code: hearth.Unauthorized, Message: "no such ticket (never issued, used or expired)"}
	// ErrNoSessions is what Keyring.Sessions answers when its store keeps
	// no sessions.
	ErrNoSessions = errors.New("auth: the keyring's store keeps no sessions")
	// errTooManyTickets refuses a ticket while too many are outstanding.
	errTooManyTickets = &hearth.Error{Code: hearth.Unavailable, Message: "too many WebSocket tickets outstanding; try again in a minute"}
)

// SessionStore keeps browser sessions for Sessions: rows keyed by the
// SHA-256 of the session's token, never the token itself, so a copy of the
// database holds no live session. Packages sqlitekeys and pgkeys are two; authtest's
// RunSessions is the suite every one must pass.
type SessionStore interface {
	// AddSession stores s: ErrNoKey if its key is gone.
	AddSession(ctx context.Context, s StoredSession) error
	// Session returns the session whose token hashes to hash:
	// ErrNoSession.
	Session(ctx context.Context, hash string) (StoredSession, error)
	// TouchSession records that the session was used at seen; an earlier
	// time than the one stored changes nothing, an unknown hash nothing.
	TouchSession(ctx context.Context, hash string, seen time.Time) error
	// DeleteSession removes one session; an unknown hash is no error.
	DeleteSession(ctx context.Context, hash string) error
	// DeleteExpiredSessions removes the sessions last seen before
	// seenBefore or created before createdBefore, and returns how many.
	DeleteExpiredSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int64, error)
}

// StoredSession is a session as a SessionStore keeps it.
type StoredSession struct {
	Hash  string // hex SHA-256 of the token
	KeyID string // the key signed in with: revoking it ends the session
	// CSRF is the synchronizer token state-changing requests must echo.
	// It is no credential by itself, so it is kept as it is.
	CSRF    string
	Created time.Time
	Seen    time.Time
}

// Session is a signed-in browser: who, through which key, and the CSRF
// token its state-changing requests carry.
type Session struct {
	// Token is the cookie value. SignIn sets it; it is never stored.
	Token   string
	Hash    string
	User    User
	KeyID   string
	CSRF    string
	Created time.Time
	// Expires is when the session ends unless used before: the sooner of
	// its idle and its absolute limit. Ends is the absolute one.
	Expires time.Time
	Ends    time.Time
}

// SessionOptions configure Keyring.Sessions.
type SessionOptions struct {
	// Idle ends a session unused this long; Max any session this long
	// after sign-in. Zero: DefaultSessionIdle and DefaultSessionMax.
	Idle, Max time.Duration
	Logger    *slog.Logger
}

// Defaults of SessionOptions, and the life of a WebSocket ticket.
const (
	DefaultSessionIdle = 12 * time.Hour
	DefaultSessionMax  = 7 * 24 * time.Hour
	TicketTTL          = 60 * time.Second
	// touchEvery bounds the writes a busy session makes: its last-seen
	// time moves at most once a minute, so the idle limit is that coarse.
	touchEvery = time.Minute
	// maxTickets bounds the tickets outstanding at once, so that a client
	// asking for them in a loop cannot fill memory.
	maxTickets = 10000
	tokenBytes = 32 // 256 bits
)

// Sessions signs browsers in with an API key and keeps them signed in
// with a cookie, and issues single-use WebSocket tickets. Every use
// re-reads the session's key, so revoking the key or removing its user
// ends the session at the next request, and the user's role is read anew.
// It is safe for concurrent use.
type Sessions struct {
	kr      *Keyring
	store   SessionStore
	idle    time.Duration
	max     time.Duration
	log     *slog.Logger
	mu      sync.Mutex
	tickets map[[sha256.Size]byte]ticket
}

// ticket is a WebSocket ticket not yet used; only its hash is kept.
type ticket struct {
	keyID   string
	expires time.Time
}

// Sessions returns the browser sessions kept beside kr's keys, in the
// same store: ErrNoSessions if that store keeps none.
func (kr *Keyring) Sessions(o SessionOptions) (*Sessions, error) {
	st, ok := kr.store.(SessionStore)
	if !ok {
		return nil, ErrNoSessions
	}
	if o.Idle <= 0 {
		o.Idle = DefaultSessionIdle
	}
	if o.Max <= 0 {
		o.Max = DefaultSessionMax
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Sessions{kr: kr, store: st, idle: min(o.Idle, o.Max), max: o.Max, log: o.Logger,
		tickets: map[[sha256.Size]byte]ticket{}}, nil
}

// SignIn verifies key exactly as Keyring.Authenticate does, throttle
// included, and starts a session for its user. A non-empty name must be
// that user's (compared without regard to case); if it is not, the error
// is ErrInvalidKey's, so a refusal does not tell which part was wrong.
func (ss *Sessions) SignIn(ctx context.Context, key, name string) (Session, error) {
	u, err := ss.kr.Authenticate(ctx, key)
	if err != nil {
		return Session{}, err
	}
	if name != "" && !strings.EqualFold(norm.NFC.String(strings.TrimSpace(name)), u.Name) {
		return Session{}, fmt.Errorf("%w: the key is not %q's", ErrInvalidKey, name)
	}
	id, err := KeyID(key)
	if err != nil {
		return Session{}, err
	}
	token, hash := newToken()
	csrf, _ := newToken()
	now := ss.kr.now()
	st := StoredSession{Hash: hash, KeyID: id, CSRF: csrf, Created: now, Seen: now}
	if err := ss.store.AddSession(ctx, st); err != nil {
		return Session{}, fmt.Errorf("start a session: %w", err)
	}
	s := ss.session(st, u)
	s.Token = token
	return s, nil
}

// Resume returns the session whose cookie holds token, sliding its idle
// limit: ErrNoSession if it was never issued, was signed out, has expired,
// or its key was revoked or its user removed (the session is deleted
// then).
func (ss *Sessions) Resume(ctx context.Context, token string) (Session, error) {
	hash, ok := tokenHash(token)
	if !ok {
		return Session{}, ErrNoSession
	}
	st, err := ss.store.Session(ctx, hash)
	if err != nil {
		return Session{}, err
	}
	now := ss.kr.now()
	if !now.Before(st.Seen.Add(ss.idle)) || !now.Before(st.Created.Add(ss.max)) {
		ss.drop(ctx, hash, "expired")
		return Session{}, fmt.Errorf("%w: it expired", ErrNoSession)
	}
	u, err := ss.kr.active(ctx, st.KeyID)
	if errors.Is(err, ErrInvalidKey) {
		ss.drop(ctx, hash, "key revoked or user removed")
		return Session{}, fmt.Errorf("%w: %w", ErrNoSession, err)
	}
	if err != nil {
		return Session{}, err
	}
	if now.Sub(st.Seen) >= touchEvery {
		if err := ss.store.TouchSession(ctx, hash, now); err != nil {
			ss.log.WarnContext(ctx, "record when a session was last used", "err", err)
		} else {
			st.Seen = now
		}
	}
	ss.kr.touch(st.KeyID, now)
	return ss.session(st, u), nil
}

// SignOut ends the session whose cookie holds token. An unknown token is
// no error: the session is gone either way.
func (ss *Sessions) SignOut(ctx context.Context, token string) error {
	hash, ok := tokenHash(token)
	if !ok {
		return nil
	}
	if err := ss.store.DeleteSession(ctx, hash); err != nil {
		return fmt.Errorf("end the session: %w", err)
	}
	return nil
}

// Cleanup deletes the expired sessions and tickets and returns how many
// sessions went.
func (ss *Sessions) Cleanup(ctx context.Context) (int64, error) {
	now := ss.kr.now()
	ss.mu.Lock()
	ss.sweep(now)
	ss.mu.Unlock()
	n, err := ss.store.DeleteExpiredSessions(ctx, now.Add(-ss.idle), now.Add(-ss.max))
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	return n, nil
}

// IssueTicket returns a ticket that opens one WebSocket as the holder of
// key keyID within TicketTTL.
func (ss *Sessions) IssueTicket(ctx context.Context, keyID string) (string, time.Duration, error) {
	if _, err := ss.kr.active(ctx, keyID); err != nil {
		return "", 0, err
	}
	token, _ := newToken()
	now := ss.kr.now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.tickets) >= maxTickets {
		ss.sweep(now)
		if len(ss.tickets) >= maxTickets {
			return "", 0, errTooManyTickets
		}
	}
	ss.tickets[sha256.Sum256([]byte(token))] = ticket{keyID: keyID, expires: now.Add(TicketTTL)}
	return token, TicketTTL, nil
}

// RedeemTicket uses up a ticket and returns the user it was issued to and
// their key id: ErrNoTicket if it was never issued, was used already or
// has expired, an error wrapping ErrInvalidKey if its key was revoked or
// its user removed since.
func (ss *Sessions) RedeemTicket(ctx context.Context, token string) (User, string, error) {
	sum := sha256.Sum256([]byte(token))
	now := ss.kr.now()
	ss.mu.Lock()
	t, ok := ss.tickets[sum]
	delete(ss.tickets, sum) // used, whatever happens next
	ss.mu.Unlock()
	if !ok || !now.Before(t.expires) {
		return User{}, "", ErrNoTicket
	}
	u, err := ss.kr.active(ctx, t.keyID)
	if err != nil {
		return User{}, "", err
	}
	ss.kr.touch(t.keyID, now)
	return u, t.keyID, nil
}

// sweep drops expired tickets; ss.mu is held.
func (ss *Sessions) sweep(now time.Time) {
	for k, t := range ss.tickets {
		if !now.Before(t.expires) {
			delete(ss.tickets, k)
		}
	}
}

func (ss *Sessions) drop(ctx context.Context, hash, why string) {
	if err := ss.store.DeleteSession(ctx, hash); err != nil {
		ss.log.WarnContext(ctx, "delete an ended session", "why", why, "err", err)
	}
}

func (ss *Sessions) session(st StoredSession, u User) Session {
	exp, end := st.Seen.Add(ss.idle), st.Created.Add(ss.max)
	if end.Before(exp) {
		exp = end
	}
	return Session{Hash: st.Hash, User: u, KeyID: st.KeyID, CSRF: st.CSRF, Created: st.Created, Expires: exp, Ends: end}
}

// active returns the user of key id while the key is active: an error
// wrapping ErrInvalidKey if it was revoked or is gone with its user.
func (kr *Keyring) active(ctx context.Context, id string) (User, error) {
	k, u, err := kr.store.Key(ctx, id)
	switch {
	case errors.Is(err, ErrNoKey):
		return User{}, fmt.Errorf("key %s: %w", id, ErrUnknownKey)
	case err != nil:
		return User{}, fmt.Errorf("key %s: %w", id, err)
	case !k.Revoked.IsZero():
		return User{}, fmt.Errorf("key %s: %w", id, ErrRevoked)
	}
	return u, nil
}

// newToken returns 256 random bits as unpadded base64url, and the hex
// SHA-256 the token is stored under.
func newToken() (token, hash string) {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(token))
	return token, hex.EncodeToString(sum[:])
}

// tokenHash is the stored form of a token newToken could have made; it
// refuses anything of another shape without a lookup.
func tokenHash(token string) (string, bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) != tokenBytes {
		return "", false
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:]), true
}

type sessionKey struct{}

// WithSession returns a context carrying the session a request was
// authenticated with (a cookie, not a key).
func WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionFrom returns the session a request was authenticated with: false
// when it came with a key or a ticket.
func SessionFrom(ctx context.Context) (Session, bool) {
	s, ok := ctx.Value(sessionKey{}).(Session)
	return s, ok
}
