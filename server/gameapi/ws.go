package gameapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/internal/api"
)

const (
	websocketNormalClosure   = int(websocket.StatusNormalClosure)
	websocketGoingAway       = int(websocket.StatusGoingAway)
	websocketPolicyViolation = int(websocket.StatusPolicyViolation)
)

// client is one WebSocket connection to a live session. Its reader runs in
// the handler's goroutine, its writer in another; the live session queues
// messages for it and never waits on it.
type client struct {
	l      *live
	id     string // unique among servers, for the holds it takes
	remote bool   // a connection to another server, whose command this one plays
	conn   *websocket.Conn
	user   auth.User
	level  access.Level // the view it gets
	loc    i18n.Localizer
	send   chan []byte

	once   sync.Once
	gone   chan struct{}
	code   int
	reason string
	flush  bool
}

func (c *client) name() string {
	if c.user.Name != "" {
		return c.user.Name
	}
	return c.user.ID
}

// kick disconnects the client; with flush, what is queued is sent first.
func (c *client) kick(code int, reason string, flush bool) {
	c.once.Do(func() {
		c.code, c.reason, c.flush = code, reason, flush
		close(c.gone)
	})
}

func (c *client) errorMessage(p *Problem, recoverable bool) Error {
	return Error{Type: TypeError, Message: c.loc.T(p.ID, p.Data), Recoverable: recoverable}
}

// socket serves /ws/game/{session_id}.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	u, ok := s.user(w, r, 0)
	if !ok {
		return
	}
	patterns := s.o.OriginPatterns
	if _, cookie := auth.SessionFrom(r.Context()); cookie {
		// A cookie is sent by the browser on its own, so an upgrade made
		// with one must name its page, and that page must be this
		// server's: SameSite=Strict and this check are its CSRF defence.
		if r.Header.Get("Origin") == "" {
			api.Error(w, r, api.Forbidden, "auth.cookie_origin", nil)
			return
		}
		patterns = nil
	}
	id := r.PathValue("session_id")
	l, err := s.acquire(r.Context(), id)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	defer s.release(l)
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: patterns})
	if err != nil {
		s.log.Debug("websocket handshake failed", "session", id, "err", err)
		return // Accept has answered
	}
	conn.SetReadLimit(MaxMessage)
	c := &client{l: l, id: connID(), conn: conn, user: u, level: viewLevel(u.Role), loc: i18n.From(r.Context()),
		send: make(chan []byte, s.o.SendQueue), gone: make(chan struct{})}
	s.mu.Lock()
	closing := s.closing
	if !closing {
		s.conns.Add(1)
	}
	s.mu.Unlock()
	if closing || !l.join(c) {
		if !closing {
			s.conns.Done()
		}
		conn.Close(websocket.StatusGoingAway, "the game is gone")
		return
	}
	// At debug each connection and command is logged, so a turn that never
	// came back shows whether it reached the server.
	s.log.Debug("websocket joined", "session", id, "conn", c.id, "user", u.ID)
	go c.write()
	c.read(r.Context())
	c.kick(websocketNormalClosure, "", false)
	l.leave(c)
	s.log.Debug("websocket left", "session", id, "conn", c.id, "user", u.ID)
}

// read handles the client's messages until the connection ends.
func (c *client) read(ctx context.Context) {
	for {
		typ, b, err := c.conn.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s == -1 && !errors.Is(err, context.Canceled) {
				c.l.srv.log.Debug("websocket read", "session", c.l.id, "err", err)
			}
			return
		}
		if typ != websocket.MessageText {
			c.problem(problem("gameapi.msg.not_text"))
			continue
		}
		cmd, err := DecodeCommand(b)
		if err != nil {
			c.l.srv.log.Debug("websocket command", "session", c.l.id, "conn", c.id, "user", c.user.ID, "err", err)
			c.problem(err)
			continue
		}
		c.l.srv.log.Debug("websocket command", "session", c.l.id, "conn", c.id, "user", c.user.ID, "type", cmd.Type)
		if err := c.handle(ctx, cmd); err != nil {
			c.problem(err)
		}
	}
}

// autopilotCommands steer the game rather than play it: the GM's (and an
// assistant's). A nudge is only a suggestion: anyone at the table may.
var autopilotCommands = map[string]bool{StartAutopilot: true, StopAutopilot: true, SetSpeed: true, RevealSecret: true}

func (c *client) handle(ctx context.Context, cmd Command) error {
	need := access.Player
	if autopilotCommands[cmd.Type] {
		need = access.Assistant
	}
	if c.user.Role < need {
		return problem("gameapi.msg.forbidden", "Type", cmd.Type, "Need", need.String())
	}
	l := c.l
	if !l.isOwner() {
		if c.remote {
			return errElsewhere // it moved again: the caller's server tries anew
		}
		return l.forward(ctx, c, cmd)
	}
	switch cmd.Type {
	case HumanAction:
		j, err := l.humanPlay(c.user, cmd.Content)
		if err != nil {
			return err
		}
		return l.enqueue(j)
	case NextTurn:
		return l.enqueue(job{auto: true, by: c.name()})
	case StartAutopilot:
		return l.startAutopilot(ctx, cmd.Speed)
	case StopAutopilot:
		if !l.stopAutopilot(StoppedByUser) {
			return problem("gameapi.msg.autopilot_off")
		}
		return nil
	case SetSpeed:
		return l.setSpeed(ctx, cmd.Speed)
	case DropIn:
		return l.dropIn(ctx, c, cmd.Character)
	case ReleaseControl:
		return l.releaseControl(c, cmd.Character, false)
	case Nudge:
		return l.nudge(c, cmd.Content)
	case Whisper:
		return l.whisper(ctx, c, cmd.To, cmd.Content)
	case RevealSecret:
		return l.reveal(ctx, c, cmd.ID)
	}
	return problem("gameapi.msg.unknown_type", "Type", clip(cmd.Type), "Types", commandTypes())
}

// problem tells this client alone what went wrong with its message.
func (c *client) problem(err error) {
	var p *Problem
	switch code := hearth.ErrorCode(err); {
	case errors.As(err, &p):
	case code != hearth.Internal:
		// A domain refusal (an invalid fork name, a missing turn) is the
		// client's to read; only internal failures stay in the log.
		p = &Problem{ID: "gameapi.invalid", Data: map[string]any{"Reason": hearth.ErrorMessage(err)}, Code: code}
	default:
		c.l.srv.log.Warn("client message failed", "session", c.l.id, "err", err)
		p = problem("gameapi.failed")
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if _, ok := c.l.clients[c]; !ok {
		return
	}
	if b, err := json.Marshal(c.errorMessage(p, true)); err == nil {
		c.l.sendLocked(c, b)
	}
}

// write sends queued messages and pings until the client is gone.
func (c *client) write() {
	srv := c.l.srv
	defer srv.conns.Done()
	ping := time.NewTicker(srv.o.PingInterval)
	defer ping.Stop()
	for {
		select {
		case b := <-c.send:
			if err := c.writeOne(b); err != nil {
				// Logged: the page reconnects, and what it sent meanwhile
				// may be lost with this connection.
				srv.log.Info("dropping a client whose write failed", "session", c.l.id, "conn", c.id, "user", c.user.ID, "err", err)
				c.kick(websocketGoingAway, "write failed", false)
				c.conn.CloseNow()
				return
			}
		case <-ping.C:
			ctx, cancel := context.WithTimeout(srv.base, srv.o.WriteTimeout)
			err := c.conn.Ping(ctx)
			cancel()
			if err != nil {
				srv.log.Info("dropping a client that did not answer a ping", "session", c.l.id, "conn", c.id, "user", c.user.ID, "err", err)
				c.kick(websocketGoingAway, "no answer to ping", false)
				c.conn.CloseNow()
				return
			}
		case <-c.gone:
			if c.flush {
				c.flushQueue()
			}
			c.conn.Close(websocket.StatusCode(c.code), c.reason)
			return
		}
	}
}

func (c *client) writeOne(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.l.srv.o.WriteTimeout)
	defer cancel()
	return c.conn.Write(ctx, websocket.MessageText, b)
}

func (c *client) flushQueue() {
	for {
		select {
		case b := <-c.send:
			if c.writeOne(b) != nil {
				return
			}
		default:
			return
		}
	}
}
