package gameapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// wait bounds every wait for a message or a state; reaching it fails the
// test, it never decides one.
const wait = 20 * time.Second

type harness struct {
	t   testing.TB
	db  *sqlitestore.DB
	srv *gameapi.Server
	ts  *httptest.Server
}

// Test users: their header is "id:role".
const (
	gm      = "gail:gm"
	asst    = "ash:assistant"
	player  = "pat:player"
	trusted = "tess:trusted"
)

func newHarness(t testing.TB, edit ...func(*gameapi.Options)) *harness {
	t.Helper()
	db, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o := gameapi.Options{
		Store:  db,
		Speeds: map[string]time.Duration{"fast": 5 * time.Millisecond, "slow": time.Hour},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, e := range edit {
		e(&o)
	}
	srv := gameapi.New(o)
	mux := http.NewServeMux()
	srv.Register(mux)
	cat := i18n.MustLoad()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := i18n.With(r.Context(), cat.For(r.Header.Get("Accept-Language")))
		if h := r.Header.Get("X-Test-User"); h != "" {
			id, role, _ := strings.Cut(h, ":")
			lvl, err := access.Parse(role)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			ctx = auth.WithUser(ctx, auth.User{ID: id, Name: id, Role: lvl})
		}
		mux.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &harness{t: t, db: db, srv: srv, ts: ts}
}

// do sends a request as user ("" for nobody) and returns the status and body.
func (h *harness) do(method, path, user string, body any) (int, []byte, http.Header) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.ts.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if user != "" {
		req.Header.Set("X-Test-User", user)
	}
	res, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.StatusCode, b, res.Header
}

// ok is do that expects status and decodes the body into out.
func (h *harness) ok(status int, method, path, user string, body, out any) []byte {
	h.t.Helper()
	got, b, _ := h.do(method, path, user, body)
	if got != status {
		h.t.Fatalf("%s %s as %s: status %d, want %d: %s", method, path, user, got, status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			h.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
	return b
}

func (h *harness) create(seed uint64) gameapi.SessionInfo {
	h.t.Helper()
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "saltmere", "seed": seed}, &in)
	return in
}

// client is a WebSocket connection of a test.
type client struct {
	t    testing.TB
	conn *websocket.Conn
}

// msg is any server message: its type, and the whole of it.
type msg struct {
	Type string
	Raw  json.RawMessage
}

func (m msg) into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(m.Raw, v); err != nil {
		t.Fatalf("decode %s: %v", m.Raw, err)
	}
}

func (h *harness) dial(session, user string) *client {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	hdr := http.Header{}
	hdr.Set("X-Test-User", user)
	url := "ws" + strings.TrimPrefix(h.ts.URL, "http") + "/ws/game/" + session
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		h.t.Fatalf("dial %s as %s: %v", session, user, err)
	}
	conn.SetReadLimit(8 << 20)
	c := &client{t: h.t, conn: conn}
	h.t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *client) send(v any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := wsjson.Write(ctx, c.conn, v); err != nil {
		c.t.Fatalf("send %v: %v", v, err)
	}
}

func (c *client) read() (msg, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var raw json.RawMessage
	if err := wsjson.Read(ctx, c.conn, &raw); err != nil {
		return msg{}, err
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return msg{}, err
	}
	return msg{Type: head.Type, Raw: raw}, nil
}

// until reads messages until one of type typ for which match (nil: any)
// holds, and returns it with the messages read before it.
func (c *client) until(typ string, match func(msg) bool) (msg, []msg) {
	c.t.Helper()
	var before []msg
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v (after %d messages)", typ, err, len(before))
		}
		if m.Type == typ && (match == nil || match(m)) {
			return m, before
		}
		before = append(before, m)
	}
}

// closed reads until the server closes the connection and returns the
// close status (-1 when the connection ended some other way).
func (c *client) closed() websocket.StatusCode {
	c.t.Helper()
	for {
		if _, err := c.read(); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

func (c *client) state() *gameapi.SessionState {
	c.t.Helper()
	m, _ := c.until(gameapi.TypeSessionState, nil)
	var s gameapi.StateMessage
	m.into(c.t, &s)
	return s.State
}

func (c *client) turnUpdate(match func(gameapi.TurnUpdate) bool) (gameapi.TurnUpdate, []msg) {
	c.t.Helper()
	var u gameapi.TurnUpdate
	m, before := c.until(gameapi.TypeTurnUpdate, func(m msg) bool {
		u = gameapi.TurnUpdate{}
		m.into(c.t, &u)
		return match == nil || match(u)
	})
	_ = m
	return u, before
}

func (c *client) errorMsg() gameapi.Error {
	c.t.Helper()
	m, _ := c.until(gameapi.TypeError, nil)
	var e gameapi.Error
	m.into(c.t, &e)
	return e
}

// marshal is the JSON of v as a string.
func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gmOnly are strings of the bundled campaign only the GM's view may hold:
// a gm_only fact, an NPC's secret, a hidden stat, a behavioural prompt, a
// consequence and the cave behind a hidden exit.
var gmOnly = []string{"Aldric Fenn", "copper a night", `"suspicion"`, "brother Jory", "keeper_confesses", "Smugglers' Cave"}
