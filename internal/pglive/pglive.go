package pglive

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/internal/pgdb"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the lease, event and call tables (component "live").
var Migrations = pgdb.Migrations{Component: "live", FS: migrations, Dir: "migrations", What: "the servers' leases and messages"}

// Defaults of Options.
const (
	DefaultTTL  = 10 * time.Second
	DefaultPoll = 2 * time.Second
)

// inline is the largest event sent in the NOTIFY payload itself
// (PostgreSQL's limit is 8000 bytes, with the header besides).
const inline = 7000

// maxQueue bounds the events waiting to be sent; best-effort ones (the
// narration as it is written) are dropped beyond it, never a committed
// turn.
const maxQueue = 1024

// keep is how long events and unanswered calls stay in their tables.
const keep = 5 * time.Minute

// Options configure a Hub.
type Options struct {
	// TTL is how long a lease lasts unless renewed (default DefaultTTL);
	// it is renewed every TTL/3.
	TTL time.Duration
	// Poll is how often a waiting call is announced again, so that a
	// process that took the game over since answers it (default
	// DefaultPoll).
	Poll time.Duration
	// ID names this process in the lease table (default host-pid-random).
	ID  string
	Log *slog.Logger

	// renewEvery replaces TTL/3 as the renewal period: the package's tests
	// pair a lease far longer than the test (only the test expires it)
	// with renewals frequent enough to watch.
	renewEvery time.Duration
}

// Hub is one process's part in a group of servers on one database. It is
// safe for concurrent use.
type Hub struct {
	db      *pgdb.DB
	pool    *pgxpool.Pool
	url     string
	id      string
	ttl     time.Duration
	renewal time.Duration
	poll    time.Duration
	log     *slog.Logger
	channel string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	held    map[string]bool
	queue   []outgoing
	queued  chan struct{}
	waiters map[int64]chan struct{}
	onEvent func(game string, body []byte)
	onCall  func(ctx context.Context, game string, req []byte) ([]byte, error)
	owns    func(game string) bool
	follows func(game string) bool
	answers []answerer // calls whose name has a prefix, served apart from the games
}

// answerer serves the calls named prefix….
type answerer struct {
	prefix string
	on     func(ctx context.Context, name string, req []byte) ([]byte, error)
	owns   func(name string) bool
}

type outgoing struct {
	game string
	body []byte
	best bool
}

// New starts a process's hub on db: the listener, the lease renewer and
// the event sender. url is db's, for the listening connection of its own.
// db's migrations must include Migrations.
func New(ctx context.Context, db *pgdb.DB, url string, o Options) (*Hub, error) {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.renewEvery <= 0 {
		o.renewEvery = o.TTL / 3
	}
	if o.ID == "" {
		host, _ := os.Hostname()
		var b [4]byte
		rand.Read(b[:])
		o.ID = fmt.Sprintf("%s-%d-%s", strings.NewReplacer(":", "_", " ", "_").Replace(host), os.Getpid(), hex.EncodeToString(b[:]))
	}
	if strings.Contains(o.ID, ":") {
		return nil, hearth.Errorf(hearth.Invalid, "pglive: process id %q may not hold a colon", o.ID)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	// NOTIFY channels are the database's, not a schema's: one per schema
	// keeps servers (and tests) in different schemas apart.
	var schema string
	if err := db.Pool().QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, db.Explain("pglive: read the schema", err)
	}
	sum := sha256.Sum256([]byte(schema))
	h := &Hub{db: db, pool: db.Pool(), url: url, id: o.ID, ttl: o.TTL, renewal: o.renewEvery, poll: o.Poll, log: o.Log,
		channel: "hearth_live_" + hex.EncodeToString(sum[:8]),
		held:    map[string]bool{}, queued: make(chan struct{}, 1), waiters: map[int64]chan struct{}{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	conn, err := h.listen(ctx)
	if err != nil {
		return nil, err
	}
	h.wg.Add(3)
	go h.receive(conn)
	go h.renew()
	go h.send()
	return h, nil
}

// ID is this process's name in the lease table.
func (h *Hub) ID() string { return h.id }

// TTL is a lease's lifetime.
func (h *Hub) TTL() time.Duration { return h.ttl }

// Serve sets what receives events from the other processes (of the games
// follows names; nil: all) and the calls for games this process owns
// (owns says which). Call it before any arrive: they are dropped until it
// is.
func (h *Hub) Serve(onEvent func(game string, body []byte), onCall func(ctx context.Context, game string, req []byte) ([]byte, error), owns, follows func(game string) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onEvent, h.onCall, h.owns, h.follows = onEvent, onCall, owns, follows
}

// Answer serves the calls whose name starts with prefix (a chat's
// "chat:" + id, say) with on, in this process while owns says it holds
// what the name names; those calls never reach Serve's onCall. Call it
// before any arrive.
func (h *Hub) Answer(prefix string, on func(ctx context.Context, name string, req []byte) ([]byte, error), owns func(name string) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.answers = append(h.answers, answerer{prefix: prefix, on: on, owns: owns})
}

// Close stops the hub, handing every lease it holds over at once (a game
// whose autopilot ran is taken up by another process), and waits for
// its goroutines.
func (h *Hub) Close() error {
	h.mu.Lock()
	names := make([]string, 0, len(h.held))
	for n := range h.held {
		names = append(names, n)
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, n := range names {
		errs = append(errs, h.Release(ctx, n))
	}
	h.flush(ctx)
	h.cancel()
	h.wg.Wait()
	return errors.Join(errs...)
}

// flush waits a moment for queued events to go out.
func (h *Hub) flush(ctx context.Context) {
	for {
		h.mu.Lock()
		n := len(h.queue)
		h.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Claim takes the lease name, or renews it when this process holds it;
// ok is false while another live process holds it. autopilot is the flag
// kept with the lease.
func (h *Hub) Claim(ctx context.Context, name string) (ok, autopilot bool, err error) {
	err = h.pool.QueryRow(ctx, `INSERT INTO live_leases (name, owner, expires_at)
		VALUES ($1, $2, now() + $3 * interval '1 millisecond')
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
		WHERE live_leases.owner = excluded.owner OR live_leases.expires_at < now()
		RETURNING autopilot`, name, h.id, h.ttl.Milliseconds()).Scan(&autopilot)
	if errors.Is(err, pgx.ErrNoRows) {
		h.mu.Lock()
		delete(h.held, name)
		h.mu.Unlock()
		return false, false, nil
	}
	if err != nil {
		return false, false, h.db.Explain("claim "+name, err)
	}
	h.mu.Lock()
	h.held[name] = true
	h.mu.Unlock()
	return true, autopilot, nil
}

// Holds reports whether this process held lease name at its last
// renewal.
func (h *Hub) Holds(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[name]
}

// Release gives lease name up. A lease whose autopilot flag is set is
// left expired rather than removed, for another process to take up.
func (h *Hub) Release(ctx context.Context, name string) error {
	h.mu.Lock()
	delete(h.held, name)
	h.mu.Unlock()
	_, err := h.pool.Exec(ctx, `WITH gone AS (DELETE FROM live_leases WHERE name = $1 AND owner = $2 AND NOT autopilot RETURNING 1)
		UPDATE live_leases SET expires_at = '-infinity' WHERE name = $1 AND owner = $2 AND autopilot`, name, h.id)
	return h.db.Explain("release "+name, err)
}

// SetAutopilot sets the flag kept with lease name, which this process
// must hold.
func (h *Hub) SetAutopilot(ctx context.Context, name string, on bool) error {
	_, err := h.pool.Exec(ctx, `UPDATE live_leases SET autopilot = $3 WHERE name = $1 AND owner = $2`, name, h.id, on)
	return h.db.Explain("record the autopilot of "+name, err)
}

// Orphans lists the leases named prefix… whose holder stopped renewing
// them while their autopilot flag was set.
func (h *Hub) Orphans(ctx context.Context, prefix string) ([]string, error) {
	rows, err := h.pool.Query(ctx, `SELECT name FROM live_leases WHERE expires_at < now() AND autopilot AND starts_with(name, $1) ORDER BY name`, prefix)
	if err != nil {
		return nil, h.db.Explain("list orphaned leases", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, h.db.Explain("list orphaned leases", err)
}

// Publish sends body to the other processes, in the order published.
// A best-effort event is dropped when too many wait.
func (h *Hub) Publish(game string, body []byte, bestEffort bool) {
	h.mu.Lock()
	if bestEffort && len(h.queue) >= maxQueue {
		h.mu.Unlock()
		return
	}
	h.queue = append(h.queue, outgoing{game: game, body: body, best: bestEffort})
	h.mu.Unlock()
	select {
	case h.queued <- struct{}{}:
	default:
	}
}

// Call sends req to the process owning game and waits for its answer,
// announcing the call again every Poll until one takes it (the owner may
// have died, and another takes the game over).
func (h *Hub) Call(ctx context.Context, game string, req []byte) ([]byte, error) {
	var id int64
	if err := h.pool.QueryRow(ctx, `INSERT INTO live_calls (game, caller, body) VALUES ($1, $2, $3) RETURNING id`, game, h.id, req).Scan(&id); err != nil {
		return nil, h.db.Explain("send a command for game "+game, err)
	}
	wake := make(chan struct{}, 1)
	h.mu.Lock()
	h.waiters[id] = wake
	h.mu.Unlock()
	answered := false
	defer func() {
		h.mu.Lock()
		delete(h.waiters, id)
		h.mu.Unlock()
		if !answered {
			// Withdrawn, if nobody took it yet.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			h.pool.Exec(ctx, `DELETE FROM live_calls WHERE id = $1`, id) //nolint:errcheck // swept later anyway
			cancel()
		}
	}()
	announce := func() error {
		_, err := h.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, h.channel, "c:"+strconv.FormatInt(id, 10)+":"+game)
		return err
	}
	if err := announce(); err != nil {
		return nil, h.db.Explain("send a command for game "+game, err)
	}
	t := time.NewTicker(h.poll)
	defer t.Stop()
	for {
		var body []byte
		var msg string
		err := h.pool.QueryRow(ctx, `DELETE FROM live_replies WHERE id = $1 RETURNING body, error`, id).Scan(&body, &msg)
		switch {
		case err == nil && msg != "":
			answered = true
			return nil, hearth.Errorf(hearth.Unavailable, "the server playing game %s failed: %s", game, msg)
		case err == nil:
			answered = true
			return body, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, h.db.Explain("read the answer for game "+game, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-t.C:
			var waiting bool
			if err := h.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM live_calls WHERE id = $1)`, id).Scan(&waiting); err == nil && waiting {
				announce() //nolint:errcheck // the next tick tries again
			}
		}
	}
}

// listen opens the connection notifications arrive on.
func (h *Hub) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, h.url)
	if err != nil {
		return nil, h.db.Explain("pglive: connect to listen", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{h.channel}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, h.db.Explain("pglive: listen", err)
	}
	return conn, nil
}

// receive handles notifications in the order they arrive, reconnecting
// after a failure.
func (h *Hub) receive(conn *pgx.Conn) {
	defer h.wg.Done()
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for {
		if conn == nil {
			c, err := h.listen(h.ctx)
			if err != nil {
				if h.ctx.Err() != nil {
					return
				}
				h.log.Warn("pglive: cannot listen; trying again", "err", err)
				select {
				case <-h.ctx.Done():
					return
				case <-time.After(h.poll):
				}
				continue
			}
			conn = c
		}
		n, err := conn.WaitForNotification(h.ctx)
		if err != nil {
			if h.ctx.Err() != nil {
				return
			}
			h.log.Warn("pglive: lost the listening connection", "err", err)
			conn.Close(context.Background())
			conn = nil
			continue
		}
		h.notified(n.Payload)
	}
}

// Payloads: "e:SENDER:GAME:BODY" an event inline, "E:SENDER:GAME:ID" one
// in live_events, "c:ID:GAME" a call, "r:CALLER:ID" a reply.
func (h *Hub) notified(p string) {
	kind, rest, _ := strings.Cut(p, ":")
	switch kind {
	case "e", "E":
		sender, rest, _ := strings.Cut(rest, ":")
		game, body, _ := strings.Cut(rest, ":")
		if sender == h.id {
			return
		}
		h.mu.Lock()
		on, follows := h.onEvent, h.follows
		h.mu.Unlock()
		if on == nil || (follows != nil && !follows(game)) {
			return // nobody here shows that game: its row is not read
		}
		b := []byte(body)
		if kind == "E" {
			id, _ := strconv.ParseInt(body, 10, 64)
			if err := h.pool.QueryRow(h.ctx, `SELECT body FROM live_events WHERE id = $1`, id).Scan(&b); err != nil {
				h.log.Warn("pglive: read an event", "id", id, "err", err)
				return
			}
		}
		on(game, b)
	case "c":
		idText, game, _ := strings.Cut(rest, ":")
		id, _ := strconv.ParseInt(idText, 10, 64)
		h.mu.Lock()
		on, owns := h.onCall, h.owns
		for _, a := range h.answers {
			if strings.HasPrefix(game, a.prefix) {
				on, owns = a.on, a.owns
				break
			}
		}
		h.mu.Unlock()
		if on == nil || owns == nil || !owns(game) {
			return
		}
		h.wg.Add(1)
		go h.answer(id, game, on)
	case "r":
		caller, idText, _ := strings.Cut(rest, ":")
		if caller != h.id {
			return
		}
		id, _ := strconv.ParseInt(idText, 10, 64)
		h.mu.Lock()
		w := h.waiters[id]
		h.mu.Unlock()
		if w != nil {
			select {
			case w <- struct{}{}:
			default:
			}
		}
	}
}

// answer takes call id, if no other process took it, and replies.
func (h *Hub) answer(id int64, game string, on func(context.Context, string, []byte) ([]byte, error)) {
	defer h.wg.Done()
	var caller string
	var req []byte
	err := h.pool.QueryRow(h.ctx, `DELETE FROM live_calls WHERE id = $1 RETURNING caller, body`, id).Scan(&caller, &req)
	if err != nil {
		if !errors.Is(err, pgx.ErrNoRows) && h.ctx.Err() == nil {
			h.log.Warn("pglive: take a call", "id", id, "err", err)
		}
		return
	}
	resp, err := on(h.ctx, game, req)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.pool.Exec(ctx, `WITH r AS (INSERT INTO live_replies (id, body, error) VALUES ($1, $2, $3) RETURNING id)
		SELECT pg_notify($4, 'r:' || $5 || ':' || id) FROM r`, id, resp, msg, h.channel, caller); err != nil {
		h.log.Warn("pglive: answer a call", "id", id, "game", game, "err", err)
	}
}

// send publishes queued events one at a time, so they arrive in order.
func (h *Hub) send() {
	defer h.wg.Done()
	for {
		h.mu.Lock()
		if len(h.queue) == 0 {
			h.mu.Unlock()
			select {
			case <-h.ctx.Done():
				return
			case <-h.queued:
			}
			continue
		}
		o := h.queue[0]
		h.queue = h.queue[1:]
		h.mu.Unlock()
		if err := h.sendOne(o); err != nil && h.ctx.Err() == nil {
			h.log.Warn("pglive: publish an event", "game", o.game, "err", err)
		}
	}
}

func (h *Hub) sendOne(o outgoing) error {
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	head := h.id + ":" + o.game + ":"
	if len(o.body)+len(head) <= inline {
		_, err := h.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, h.channel, "e:"+head+string(o.body))
		return err
	}
	_, err := h.pool.Exec(ctx, `WITH e AS (INSERT INTO live_events (body) VALUES ($1) RETURNING id)
		SELECT pg_notify($2, 'E:' || $3 || id) FROM e`, o.body, h.channel, head)
	return err
}

// renew keeps the leases this process holds, forgetting those it lost,
// and clears old events and calls.
func (h *Hub) renew() {
	defer h.wg.Done()
	t := time.NewTicker(h.renewal)
	defer t.Stop()
	var swept time.Time
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		names := make([]string, 0, len(h.held))
		for n := range h.held {
			names = append(names, n)
		}
		h.mu.Unlock()
		if len(names) > 0 {
			h.renewAll(names)
		}
		if time.Since(swept) > time.Minute {
			swept = time.Now()
			ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
			for _, q := range []string{`DELETE FROM live_events WHERE created < now() - $1 * interval '1 millisecond'`,
				`DELETE FROM live_calls WHERE created < now() - $1 * interval '1 millisecond'`,
				`DELETE FROM live_replies WHERE created < now() - $1 * interval '1 millisecond'`} {
				if _, err := h.pool.Exec(ctx, q, keep.Milliseconds()); err != nil && h.ctx.Err() == nil {
					h.log.Warn("pglive: clear old messages", "err", err)
				}
			}
			cancel()
		}
	}
}

func (h *Hub) renewAll(names []string) {
	ctx, cancel := context.WithTimeout(h.ctx, h.ttl/3)
	defer cancel()
	rows, err := h.pool.Query(ctx, `UPDATE live_leases SET expires_at = now() + $3 * interval '1 millisecond'
		WHERE owner = $1 AND name = ANY($2) RETURNING name`, h.id, names, h.ttl.Milliseconds())
	if err != nil {
		if h.ctx.Err() == nil {
			h.log.Warn("pglive: renew leases", "err", err)
		}
		return
	}
	kept, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		if h.ctx.Err() == nil {
			h.log.Warn("pglive: renew leases", "err", err)
		}
		return
	}
	still := map[string]bool{}
	for _, n := range kept {
		still[n] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range names {
		if !still[n] && h.held[n] {
			h.log.Warn("pglive: lost a lease; another server took it over", "lease", n)
			delete(h.held, n)
		}
	}
}
