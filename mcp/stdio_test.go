package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/mcp"
)

// TestStdioSurvivesBadLines drives the stdio transport line by line: each
// bad line gets its JSON-RPC error, and a ping after it is still answered.
// notifications/initialized right after initialize is no error either.
func TestStdioSurvivesBadLines(t *testing.T) {
	const maxLine = 4096
	f := newFixture(t)
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := mcp.New(mcp.Options{Tools: fixtureTools(f), Game: f.game, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(ctx, &mcp.StdioTransport{In: serverIn, Out: serverOut, MaxLine: maxLine, Logger: log})
	}()
	t.Cleanup(func() {
		cancel()
		clientOut.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v", err)
			}
		case <-time.After(guard):
			t.Error("Run did not return")
		}
	})
	replies := make(chan string)
	go func() {
		sc := bufio.NewScanner(clientIn)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
			t.Fatalf("writing %.40q: %v", line, err)
		}
	}
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	receive := func() reply {
		t.Helper()
		select {
		case line, ok := <-replies:
			if !ok {
				t.Fatal("the server closed its output")
			}
			var r reply
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("reply %q: %v", line, err)
			}
			return r
		case <-time.After(guard):
			t.Fatal("no reply")
		}
		return reply{}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := receive(); string(r.ID) != "1" || r.Error != nil || len(r.Result) == 0 {
		t.Fatalf("initialize: %+v", r)
	}

	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"not JSON", "this is not json", -32700, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":5,"method":"tools/list"`, -32700, "null"},
		{"too long", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"` + strings.Repeat("a", 2*maxLine) + `"}}`, -32700, "null"},
		{"no version", `{"id":7,"method":"ping"}`, -32600, "7"},
		{"string id kept", `{"jsonrpc":"1.0","id":"q","method":"ping"}`, -32600, `"q"`},
		{"not an object", `42`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, "null"},
	}
	for i, c := range cases {
		send("") // blank lines are skipped, unanswered
		send(c.line)
		r := receive()
		if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id || r.Error.Message == "" {
			t.Errorf("%s: reply %+v (error %+v), want code %d and id %s", c.name, r, r.Error, c.code, c.id)
		}
		id := 100 + i
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		if r := receive(); string(r.ID) != fmt.Sprint(id) || r.Error != nil {
			t.Fatalf("%s: the ping after it: %+v", c.name, r)
		}
	}
	send(`{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	if r := receive(); string(r.ID) != "200" || !strings.Contains(string(r.Result), "mcp gm_only") {
		t.Fatalf("a tool call after the bad lines: %+v", r)
	}
	out := logs.String()
	if strings.Contains(out, "level=ERROR") || strings.Contains(out, "this is not json") {
		t.Errorf("the log has an error or a refused line's text:\n%s", out)
	}
	if n := strings.Count(out, "mcp stdio: refused a line"); n != len(cases) {
		t.Errorf("%d refusals logged, want %d:\n%s", n, len(cases), out)
	}
}
