package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/server/internal/streambench"
)

// A streamed token costs hearth's chat path (the OpenAI provider reading
// the model's stream, the agent loop, the SSE writer, HTTP on both
// sides) next to no allocation: with a thousand streams, each token's
// garbage brings the next collection, and the stalls of its assists,
// nearer for all of them. Measured as the difference between a long and
// a short answer, so that what a chat's start and end allocate cancels
// out and what is left is the tokens' (the growth of the answer's
// buffers, a few allocations in a thousand tokens).
func TestStreamedTokenAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	model := streambench.NewModel(10, time.Microsecond)
	srv := httptest.NewServer(model)
	defer srv.Close()
	p, err := openai.New(srv.URL+"/v1", "", openai.WithHTTPClient(&http.Client{Transport: llm.ServerTransport()}))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOpts{provider: p})
	client := &http.Client{}
	chat := func(tokens int) uint64 {
		t.Helper()
		model.Set(tokens, time.Microsecond)
		req, _ := http.NewRequest("POST", f.url+"/api/chat", strings.NewReader(`{"messages":[{"role":"user","content":"describe the jump drive"}]}`))
		req.Header.Set("Authorization", "Bearer "+f.gmKey)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		runtime.ReadMemStats(&after)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("chat of %d tokens: %s %v", tokens, resp.Status, err)
		}
		if n := strings.Count(string(body), `"type":"content"`); n != tokens {
			t.Fatalf("chat of %d tokens: %d content events", tokens, n)
		}
		return after.Mallocs - before.Mallocs
	}
	chat(100) // connections, caches
	const short, long = 100, 4100
	// The fewest of three pairs: a background goroutine's allocation
	// (a timer, the pool of connections) only adds.
	best := 1e9
	for range 3 {
		a, b := chat(short), chat(long)
		best = min(best, (float64(b)-float64(a))/(long-short))
	}
	// The client's ReadAll grows its buffer with the answer; so do the
	// provider's and the agent loop's text buffers: logarithmically.
	if best > 0.1 {
		t.Errorf("a streamed token costs %.3f allocations, want at most 0.1", best)
	}
	t.Logf("%.4f allocations a token", best)
}

// BenchmarkChatAllocations is what one chat allocates, its start, its
// tokens and its end, with the chats one after another (the pools of
// buffers and connections warm, so it does not depend on the load or on
// when the collector runs): hearth's chat path with the OpenAI provider,
// plus the fake model and the test client, which run in this process
// too and are the same for every build of hearth. B/op and allocs/op
// are a chat's.
func BenchmarkChatAllocations(b *testing.B) {
	model := streambench.NewModel(1, time.Microsecond)
	srv := httptest.NewServer(model)
	defer srv.Close()
	p, err := openai.New(srv.URL+"/v1", "", openai.WithHTTPClient(&http.Client{Transport: llm.ServerTransport()}))
	if err != nil {
		b.Fatal(err)
	}
	f := newFixture(&testing.T{}, fixtureOpts{provider: p})
	client := &http.Client{}
	chat := func(b *testing.B, tokens int) {
		req, _ := http.NewRequest("POST", f.url+"/api/chat", strings.NewReader(`{"messages":[{"role":"user","content":"describe the jump drive"}]}`))
		req.Header.Set("Authorization", "Bearer "+f.gmKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n == 0 {
			b.Fatalf("chat: %s, %d bytes, %v", resp.Status, n, err)
		}
	}
	for _, tokens := range []int{1, 100} {
		b.Run(fmt.Sprintf("tokens=%d", tokens), func(b *testing.B) {
			model.Set(tokens, time.Microsecond)
			chat(b, tokens) // connections, caches
			b.ReportAllocs()
			for b.Loop() {
				chat(b, tokens)
			}
		})
	}
}
