package gameapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

// logLines are the JSON log lines written to b.
func logLines(b *syncbuf.Buffer) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// TestDebugLogTracesAnAction: at debug the server logs a game connection,
// each command it reads and the turn it queues and plays, each naming the
// game (and the command its connection), so a turn that never came back
// shows how far its action got.
func TestDebugLogTracesAnAction(t *testing.T) {
	var logs syncbuf.Buffer
	h := newHarness(t, func(o *gameapi.Options) {
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	id := h.create(3).ID
	c := h.dial(id, player)
	c.state()
	c.send(gameapi.Command{Type: gameapi.HumanAction, Content: "look around"})
	if u, _ := c.turnUpdate(nil); u.Turn != 1 {
		t.Fatalf("turn %d", u.Turn)
	}
	want := []string{"websocket joined", "websocket command", "turn queued", "turn played"}
	var got map[string]map[string]any
	for deadline := time.Now().Add(wait); ; {
		got = map[string]map[string]any{}
		for _, l := range logLines(&logs) {
			if msg, _ := l["msg"].(string); l["session"] == id {
				got[msg] = l
			}
		}
		if got["turn played"] != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, w := range want {
		if got[w] == nil {
			t.Errorf("no %q logged for game %s; logged: %v", w, id, logLines(&logs))
		}
	}
	if t.Failed() {
		return
	}
	if cmd := got["websocket command"]; cmd["type"] != gameapi.HumanAction || cmd["conn"] != got["websocket joined"]["conn"] || cmd["user"] != "pat" {
		t.Errorf("the command logged: %v (joined: %v)", cmd, got["websocket joined"])
	}
	if p := got["turn played"]; p["turn"] != float64(1) || p["committed"] != true {
		t.Errorf("the turn logged: %v", p)
	}
}
