package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// dialGame opens game's WebSocket on the server at url with key, reading
// messages up to 32 MiB (a GM's world); it is closed when the test ends.
func dialGame(t *testing.T, ctx context.Context, url, key, game string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws/game/"+game,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
	if err != nil {
		t.Fatalf("dial game %s at %s: %v", game, url, err)
	}
	c.SetReadLimit(32 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}
