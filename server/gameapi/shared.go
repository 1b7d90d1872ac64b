package gameapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// This file is the game's life on several servers (Options.Cluster): the
// owner publishes what it sends its clients, the others (followers)
// mirror its table and send their own clients what their views admit, and
// forward commands and requests to it.

// Event kinds.
const (
	evMsg     = "msg"     // the same message to every client
	evState   = "state"   // session_state, cut per viewer
	evTurn    = "turn"    // a turn, cut per viewer, with its whispers
	evProblem = "problem" // an error, in each client's language
	evUser    = "user"    // a message to one user's connections
	evDeleted = "deleted" // the game was deleted
)

// event is what an owner tells the followers of a game. It carries the
// GM's view of the world and the turn whole: each follower cuts them for
// its own clients, so what a player may not see never reaches a player's
// connection, only the follower process.
type event struct {
	Kind        string          `json:"kind"`
	Msg         json.RawMessage `json:"msg,omitempty"`
	User        string          `json:"user,omitempty"`
	Table       *table          `json:"table,omitempty"`
	Resp        *game.Response  `json:"resp,omitempty"`
	Input       string          `json:"input,omitempty"`
	By          string          `json:"by,omitempty"`
	Problem     *Problem        `json:"problem,omitempty"`
	Recoverable bool            `json:"recoverable,omitempty"`
}

// table is what a follower mirrors of the owner's live session; World is
// sent only when it changed.
type table struct {
	World    *world.State   `json:"world,omitempty"`
	Turn     int            `json:"turn"`
	Branch   string         `json:"branch"`
	Await    game.Awaiting  `json:"await"`
	Auto     bool           `json:"auto"`
	Speed    string         `json:"speed"`
	Controls []tableControl `json:"controls,omitempty"`
	Nudges   []game.Nudge   `json:"nudges,omitempty"`
	Recap    string         `json:"recap,omitempty"`
}

type tableControl struct {
	Character string           `json:"character"`
	User      string           `json:"user"`
	UserID    string           `json:"user_id"`
	Conn      string           `json:"conn"`
	Prev      world.Controller `json:"prev"`
}

// Call kinds.
const (
	callSync  = "sync"  // the owner's table, for a follower opening the game
	callWS    = "ws"    // a client's command
	callLeave = "leave" // a client disconnected
	callHTTP  = "http"  // a REST request
)

// call is a follower's request to the owner.
type call struct {
	Kind   string      `json:"kind"`
	Conn   string      `json:"conn,omitempty"`
	User   auth.User   `json:"user"`
	Cmd    *Command    `json:"cmd,omitempty"`
	Method string      `json:"method,omitempty"`
	URL    string      `json:"url,omitempty"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// answer is the owner's reply.
type answer struct {
	Problem *Problem    `json:"problem,omitempty"`
	Table   *table      `json:"table,omitempty"`
	Status  int         `json:"status,omitempty"`
	Header  http.Header `json:"header,omitempty"`
	Body    []byte      `json:"body,omitempty"`
}

// proxiedKey marks a request forwarded by another server: it is served
// here whatever this process owns, never forwarded again.
type proxiedKey struct{}

// forwardedHeaders are the request headers a forwarded request keeps.
var forwardedHeaders = []string{"Content-Type", "Accept", "Accept-Language"}

// returnedHeaders are the response headers a forwarded answer keeps.
var returnedHeaders = []string{"Content-Type", "Content-Disposition", "Content-Language"}

func connID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (l *live) isOwner() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner
}

// tableLocked is the table followers mirror; world adds the state.
func (l *live) tableLocked(withWorld bool) *table {
	t := &table{Turn: l.snap.turn, Branch: l.snap.branch, Await: l.await, Auto: l.auto, Speed: l.speed, Nudges: l.nudges, Recap: l.recap}
	if withWorld {
		t.World = l.snap.world
	}
	for _, ch := range world.SortedKeys(l.controls) {
		c := l.controls[ch]
		t.Controls = append(t.Controls, tableControl{Character: c.character, User: c.user, UserID: c.userID, Conn: c.by.id, Prev: c.prev})
	}
	return t
}

// publishLocked sends ev to the followers when this process owns the
// game; withWorld adds the state. The caller holds l.mu.
func (l *live) publishLocked(ev event, withWorld, bestEffort bool) {
	if !l.srv.shared || !l.owner || l.quiet {
		return
	}
	ev.Table = l.tableLocked(withWorld)
	b, err := json.Marshal(ev)
	if err != nil {
		l.srv.log.Error("encode an event for the other servers", "session", l.id, "err", err)
		return
	}
	l.srv.cluster.Publish(l.id, b, bestEffort)
}

// mirrorLocked takes the owner's table. The caller holds l.mu.
func (l *live) mirrorLocked(t *table) {
	if t.World != nil {
		if t.Branch != l.snap.branch || t.Turn < l.snap.turn {
			l.sup = game.Supervisor{}
		}
		l.snap = snapshot{world: t.World, turn: t.Turn, branch: t.Branch}
		l.views = map[viewer]*world.State{{level: access.GM}: t.World}
	}
	l.await, l.auto, l.speed, l.nudges, l.recap = t.Await, t.Auto, l.srv.knownSpeed(t.Speed), t.Nudges, t.Recap
	l.controls = map[string]*control{}
	for _, c := range t.Controls {
		l.controls[c.Character] = &control{character: c.Character, user: c.User, userID: c.UserID, by: &client{id: c.Conn, remote: true}, prev: c.Prev}
	}
}

// onEvent shows a follower's clients what the owner of game sent.
func (s *Server) onEvent(game string, body []byte) {
	s.mu.Lock()
	l := s.live[game]
	s.mu.Unlock()
	if l == nil {
		return
	}
	select {
	case <-l.ready:
	default:
		return // opening: it asks the owner for the table
	}
	if l.err != nil {
		return
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil {
		s.log.Warn("an unreadable event from another server", "session", game, "err", err)
		return
	}
	l.apply(ev)
}

func (l *live) apply(ev event) {
	l.mu.Lock()
	if l.owner {
		l.mu.Unlock()
		return
	}
	if ev.Table != nil {
		l.mirrorLocked(ev.Table)
	}
	switch ev.Kind {
	case evMsg:
		l.sendAllLocked(ev.Msg)
	case evState:
		l.broadcastStateLocked()
	case evUser:
		for c := range l.clients {
			if c.user.ID == ev.User {
				l.sendLocked(c, ev.Msg)
			}
		}
	case evTurn:
		l.mu.Unlock()
		if ev.Resp != nil {
			l.broadcastTurn(ev.Resp, ev.Input, ev.By)
		}
		return
	case evProblem:
		l.mu.Unlock()
		if ev.Problem != nil {
			l.broadcastProblem(ev.Problem, ev.Recoverable)
		}
		return
	case evDeleted:
		l.deleted = true
		l.mu.Unlock()
		l.kickAll(websocketNormalClosure, "game deleted")
		l.quitNow()
		return
	}
	l.mu.Unlock()
}

// sync asks the owner for its table, so that a follower opening the game
// shows its clients the owner's holds, nudges and autopilot.
func (l *live) sync(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, _ := json.Marshal(call{Kind: callSync})
	resp, err := l.srv.cluster.Call(ctx, l.id, b)
	if err != nil {
		l.srv.log.Info("the server owning a game did not send its table; showing the stored game", "session", l.id, "err", err)
		return
	}
	var a answer
	if err := json.Unmarshal(resp, &a); err != nil || a.Table == nil {
		return
	}
	l.mu.Lock()
	if !l.owner {
		l.mirrorLocked(a.Table)
	}
	l.mu.Unlock()
}

// forward sends a client's command to the owner and returns its
// refusal, if any.
func (l *live) forward(ctx context.Context, c *client, cmd Command) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.srv.o.TurnTimeout)
	defer cancel()
	b, err := json.Marshal(call{Kind: callWS, Conn: c.id, User: c.user, Cmd: &cmd})
	if err != nil {
		return err
	}
	return l.ask(ctx, b)
}

func (l *live) ask(ctx context.Context, req []byte) error {
	resp, err := l.srv.cluster.Call(ctx, l.id, req)
	if err != nil {
		l.srv.log.Warn("forward to the server owning the game", "session", l.id, "err", err)
		return errElsewhere
	}
	var a answer
	if err := json.Unmarshal(resp, &a); err != nil {
		return errElsewhere
	}
	if a.Problem != nil {
		return a.Problem
	}
	return nil
}

// forwardLeave tells the owner that a follower's client left, which lets
// go of what it held.
func (l *live) forwardLeave(c *client) {
	ctx, cancel := context.WithTimeout(l.srv.base, l.srv.o.TurnTimeout)
	defer cancel()
	b, _ := json.Marshal(call{Kind: callLeave, Conn: c.id, User: c.user})
	if err := l.ask(ctx, b); err != nil {
		l.srv.log.Debug("tell the owner a client left", "session", l.id, "err", err)
	}
}

// owns reports whether this process plays game.
func (s *Server) owns(game string) bool {
	s.mu.Lock()
	l := s.live[game]
	s.mu.Unlock()
	if l == nil {
		return false
	}
	select {
	case <-l.ready:
	default:
		return false
	}
	return l.err == nil && l.isOwner()
}

// follows reports whether this process shows game to clients without
// owning it: the other servers' events of other games are not read.
func (s *Server) follows(game string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[game] != nil
}

// onCall serves a follower's call for a game this process owns.
func (s *Server) onCall(ctx context.Context, id string, body []byte) ([]byte, error) {
	var rq call
	if err := json.Unmarshal(body, &rq); err != nil {
		return nil, err
	}
	reply := func(a answer) ([]byte, error) { return json.Marshal(a) }
	if rq.Kind == callHTTP {
		return reply(s.serveForwarded(ctx, rq))
	}
	l, err := s.acquire(ctx, id)
	if err != nil {
		return reply(answer{Problem: s.asProblem(err)})
	}
	defer s.release(l)
	if !l.isOwner() {
		return reply(answer{Problem: errElsewhere})
	}
	rc := &client{l: l, id: rq.Conn, user: rq.User, level: viewLevel(rq.User.Role), remote: true}
	switch rq.Kind {
	case callSync:
		l.mu.Lock()
		t := l.tableLocked(true)
		l.mu.Unlock()
		return reply(answer{Table: t})
	case callLeave:
		l.releaseControl(rc, "", true) //nolint:errcheck // forced release cannot fail
		return reply(answer{})
	case callWS:
		if rq.Cmd == nil {
			return reply(answer{Problem: problem("gameapi.msg.unknown_type", "Type", "", "Types", commandTypes())})
		}
		if err := rc.handle(ctx, *rq.Cmd); err != nil {
			return reply(answer{Problem: s.asProblem(err)})
		}
		return reply(answer{})
	}
	return nil, errors.New("unknown call " + rq.Kind)
}

// asProblem is what a client is told of err: a domain refusal as it is,
// an internal failure only as "failed" (the details go to the log).
func (s *Server) asProblem(err error) *Problem {
	var p *Problem
	switch code := hearth.ErrorCode(err); {
	case errors.As(err, &p):
		return p
	case errors.Is(err, store.ErrNotFound):
		return &Problem{ID: "gameapi.invalid", Data: map[string]any{"Reason": hearth.ErrorMessage(err)}, Code: hearth.NotFound}
	case code != hearth.Internal:
		return &Problem{ID: "gameapi.invalid", Data: map[string]any{"Reason": hearth.ErrorMessage(err)}, Code: code}
	}
	s.log.Warn("a forwarded command failed", "err", err)
	return problem("gameapi.failed")
}

// routed serves a request for one game here when this process owns it
// (or nobody does: then it takes the game), and forwards it to the owner
// otherwise.
func (s *Server) routed(h http.HandlerFunc) http.HandlerFunc {
	if !s.shared {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		u, ok := auth.UserFrom(r.Context())
		if id == "" || !ok || r.Context().Value(proxiedKey{}) != nil {
			h(w, r)
			return
		}
		l, err := s.acquire(r.Context(), id)
		if err != nil {
			h(w, r) // it fails there the same way, in the route's words
			return
		}
		owner := l.isOwner()
		s.release(l)
		if owner {
			h(w, r)
			return
		}
		s.forwardHTTP(w, r, id, u)
	}
}

// forwardHTTP has the owner of game id serve r.
func (s *Server) forwardHTTP(w http.ResponseWriter, r *http.Request, id string, u auth.User) {
	// The game API's bodies are small (maxBody); nothing larger is worth
	// carrying through the database.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		api.Error(w, r, api.Invalid, "gameapi.invalid", map[string]any{"Reason": "the request body could not be read"})
		return
	}
	if len(body) > maxBody {
		api.Error(w, r, api.TooLarge, "error.body_too_large", map[string]any{"Limit": maxBody})
		return
	}
	rq := call{Kind: callHTTP, User: u, Method: r.Method, URL: r.URL.RequestURI(), Header: http.Header{}, Body: body}
	for _, k := range forwardedHeaders {
		if v := r.Header.Values(k); len(v) > 0 {
			rq.Header[k] = v
		}
	}
	b, err := json.Marshal(rq)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.TurnTimeout)
	defer cancel()
	resp, err := s.cluster.Call(ctx, id, b)
	var a answer
	if err == nil {
		err = json.Unmarshal(resp, &a)
	}
	if err != nil || a.Status == 0 {
		s.log.Warn("forward a request to the server owning the game", "session", id, "err", err)
		s.fail(w, r, id, errElsewhere)
		return
	}
	for _, k := range returnedHeaders {
		if v := a.Header.Values(k); len(v) > 0 {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(a.Status)
	w.Write(a.Body) //nolint:errcheck // the client may have gone
}

// serveForwarded serves a request another server forwarded.
func (s *Server) serveForwarded(ctx context.Context, rq call) answer {
	if !strings.HasPrefix(rq.URL, "/api/sessions/") {
		return answer{Status: http.StatusNotFound}
	}
	r, err := http.NewRequestWithContext(ctx, rq.Method, rq.URL, bytes.NewReader(rq.Body))
	if err != nil {
		return answer{Status: http.StatusBadRequest}
	}
	for _, k := range forwardedHeaders {
		if v := rq.Header.Values(k); len(v) > 0 {
			r.Header[k] = v
		}
	}
	ctx = auth.WithUser(ctx, rq.User)
	if c := s.catalog(); c != nil {
		ctx = i18n.With(ctx, c.For(r.Header.Values("Accept-Language")...))
	}
	ctx = context.WithValue(ctx, proxiedKey{}, true)
	rec := &recorder{header: http.Header{}}
	s.mux.ServeHTTP(rec, r.WithContext(ctx))
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return answer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes()}
}

// catalog is the messages forwarded requests are answered in.
func (s *Server) catalog() *i18n.Catalog {
	s.catOnce.Do(func() {
		c, err := i18n.Load()
		if err != nil {
			s.log.Error("load the message catalog", "err", err)
			return
		}
		s.cat = c
	})
	return s.cat
}

// recorder keeps a forwarded request's response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// coordinate runs while the server does: it takes over the games whose
// owner stopped renewing their lease (the followers' games, and the
// games whose autopilot was running) and steps down from those it lost.
func (s *Server) coordinate() {
	t := time.NewTicker(s.o.LeasePoll)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		var lives []*live
		for _, l := range s.live {
			if !l.quitting {
				lives = append(lives, l)
			}
		}
		s.mu.Unlock()
		for _, l := range lives {
			select {
			case <-l.ready:
			default:
				continue
			}
			if l.err != nil {
				continue
			}
			if l.isOwner() {
				if !s.cluster.Holds(lease(l.id)) {
					l.demote()
				}
				continue
			}
			ctx, cancel := context.WithTimeout(s.base, s.o.TurnTimeout)
			ok, auto, err := s.cluster.Claim(ctx, lease(l.id))
			if err != nil {
				s.log.Warn("claim a game", "session", l.id, "err", err)
			} else if ok {
				l.promote(ctx, auto)
			}
			cancel()
		}
		s.adoptOrphans()
	}
}

// adoptOrphans takes up the games whose autopilot was running on a
// server that stopped.
func (s *Server) adoptOrphans() {
	ctx, cancel := context.WithTimeout(s.base, s.o.TurnTimeout)
	defer cancel()
	names, err := s.cluster.Orphans(ctx, lease(""))
	if err != nil {
		s.log.Warn("look for games whose server stopped", "err", err)
		return
	}
	for _, n := range names {
		id := strings.TrimPrefix(n, lease(""))
		l, err := s.acquire(ctx, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				// Deleted meanwhile: nothing to run.
				if ok, _, _ := s.cluster.Claim(ctx, n); ok {
					s.cluster.SetAutopilot(ctx, n, false) //nolint:errcheck // released below
					s.cluster.Release(ctx, n)             //nolint:errcheck // expires anyway
				}
				continue
			}
			s.log.Warn("take up a game whose server stopped", "session", id, "err", err)
			continue
		}
		s.release(l)
	}
}

// promote makes a follower the owner: the game is read again from the
// store (with every turn the old owner committed) and prepared for play;
// a running autopilot resumes.
func (l *live) promote(ctx context.Context, auto bool) {
	l.op.Lock()
	defer l.op.Unlock()
	gs, err := l.openSession(ctx)
	if err != nil {
		l.srv.log.Warn("take over a game", "session", l.id, "err", err)
		l.srv.cluster.Release(ctx, lease(l.id)) //nolint:errcheck // it expires anyway
		return
	}
	l.mu.Lock()
	l.gs.Store(gs)
	l.owner, l.auto, l.fails = true, false, 0
	l.controls = map[string]*control{} // their holders were on the old owner's clients
	l.mu.Unlock()
	l.refresh(&game.Awaiting{Kind: game.FreeForm})
	l.srv.log.Info("took over a game", "session", l.id, "turn", gs.Turn(), "autopilot", auto)
	if auto {
		if err := l.startAutopilot(ctx, ""); err != nil {
			l.srv.log.Warn("resume the autopilot of a game taken over", "session", l.id, "err", err)
		}
	}
	l.broadcastState()
	l.poke()
}

// demote makes the owner a follower: another process holds the lease.
func (l *live) demote() {
	l.mu.Lock()
	if !l.owner {
		l.mu.Unlock()
		return
	}
	l.owner = false
	auto := l.auto
	l.auto = false
	l.mu.Unlock()
	l.srv.log.Warn("another server took this game over", "session", l.id)
	if auto {
		l.srv.release(l) // the autopilot's reference
	}
	l.epMu.Lock()
	l.episode = false
	l.epMu.Unlock()
}

// stillOwner checks the lease before a turn, so that a process that lost
// it (paused past the lease's time) does not play on.
func (l *live) stillOwner(ctx context.Context) bool {
	if !l.srv.shared {
		return true
	}
	if !l.isOwner() {
		return false
	}
	ok, _, err := l.srv.cluster.Claim(ctx, lease(l.id))
	if err != nil || !ok {
		if err == nil {
			l.demote()
		}
		return false
	}
	return true
}

// keepAutopilot records with the lease whether the autopilot runs.
func (l *live) keepAutopilot(on bool) {
	if !l.srv.shared {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.srv.cluster.SetAutopilot(ctx, lease(l.id), on); err != nil {
		l.srv.log.Warn("record the autopilot with the game's lease", "session", l.id, "err", err)
	}
}
