package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
)

// streamingModel streams a fixed answer after a fixed think time, the way
// a model server would; it is the "fake streaming model" of DESIGN.md.
type streamingModel struct {
	think time.Duration
	// external makes it call an external tool first, so the chat waits
	// idle for the client's result.
	external bool
}

func (m streamingModel) Name() string                                { return "stream" }
func (m streamingModel) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (m streamingModel) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no embeddings")
}
func (m streamingModel) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if m.external && req.Messages[len(req.Messages)-1].Role == llm.User {
		call := llm.ToolCall{ID: "c1", Name: "dice_roll", Arguments: []byte(`{"formula":"2d6"}`)}
		if err := fn(llm.Chunk{ToolCall: &call}); err != nil {
			return nil, err
		}
		return &llm.Response{Message: llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{call}}, StopReason: "tool_calls"}, nil
	}
	select {
	case <-time.After(m.think):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	text := "The jump drive needs an Engineer check."
	for _, w := range strings.SplitAfter(text, " ") {
		if err := fn(llm.Chunk{Content: w}); err != nil {
			return nil, err
		}
	}
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: text}}, nil
}

// BenchmarkConcurrentSSE holds 1,000 chats open (each waiting on its
// browser for a tool result, streams alive) and measures, per new chat, the
// latency the server adds before the first content event beyond the model's
// own think time.
func BenchmarkConcurrentSSE(b *testing.B) {
	const think = 20 * time.Millisecond
	f := newFixture(&testing.T{}, fixtureOpts{provider: routedModel{think: think}})
	tr := &http.Transport{MaxIdleConnsPerHost: 1100}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	open := holdIdle(b, f, client, 1000)
	defer closeAll(open)
	var added []time.Duration
	for b.Loop() {
		added = append(added, firstContent(b, f, client, `{"messages":[{"role":"user","content":"jump drive?"}],"tools":["dice_roll"]}`)-think)
	}
	reportQuantiles(b, added)
}

// BenchmarkBurstSSE starts chats all at the same instant (HEARTH_BENCH_CHATS,
// default 1,000) and reports the added first-token latency across them: on
// two cores a burst queues for the CPU, so this measures throughput more
// than overhead.
func BenchmarkBurstSSE(b *testing.B) {
	chats := 1000
	if n, err := strconv.Atoi(os.Getenv("HEARTH_BENCH_CHATS")); err == nil {
		chats = n
	}
	const think = 50 * time.Millisecond
	f := newFixture(&testing.T{}, fixtureOpts{provider: routedModel{think: think}})
	tr := &http.Transport{MaxIdleConnsPerHost: chats}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	body := `{"messages":[{"role":"user","content":"jump drive?"}],"tools":["dice_roll"]}`
	var added []time.Duration
	var mu sync.Mutex
	for b.Loop() {
		var wg sync.WaitGroup
		for range chats {
			wg.Go(func() {
				d := firstContent(b, f, client, body) - think
				mu.Lock()
				added = append(added, d)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	reportQuantiles(b, added)
}

// routedModel answers "roll" by calling dice_roll (an external tool, so
// the chat then idles) and anything else with streamed text.
type routedModel struct{ think time.Duration }

func (m routedModel) Name() string                                { return "routed" }
func (m routedModel) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (m routedModel) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no embeddings")
}
func (m routedModel) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	return streamingModel{think: m.think, external: last.Role == llm.User && last.Content == "roll"}.Chat(ctx, req, fn)
}

func firstContent(b *testing.B, f *fixture, client *http.Client, body string) time.Duration {
	req, _ := http.NewRequest("POST", f.url+"/api/chat", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.gmKey)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var d time.Duration
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d == 0 && strings.Contains(sc.Text(), `"type":"content"`) {
			d = time.Since(start)
		}
	}
	return d
}

// holdIdle opens n chats that wait for a tool result.
func holdIdle(b *testing.B, f *fixture, client *http.Client, n int) []*http.Response {
	var out []*http.Response
	for i := range n {
		body := fmt.Sprintf(`{"conversation_id":"idle_%d","messages":[{"role":"user","content":"roll"}],"tools":["dice_roll"]}`, i)
		req, _ := http.NewRequest("POST", f.url+"/api/chat", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+f.gmKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		// A small reader: the heap measured should be the server's.
		r := bufio.NewReaderSize(resp.Body, 16)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, `"type":"tool_call"`) {
				break
			}
		}
		out = append(out, resp)
	}
	return out
}

func closeAll(rs []*http.Response) {
	for _, r := range rs {
		r.Body.Close()
	}
}

func reportQuantiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	q := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-added-ms")
	b.ReportMetric(q(0.99), "p99-added-ms")
}

// BenchmarkIdleChatMemory holds chats waiting on a client's tool result
// (idle, but with their request, run and stream alive) and reports the
// heap each one costs.
func BenchmarkIdleChatMemory(b *testing.B) {
	const chats = 500
	f := newFixture(&testing.T{}, fixtureOpts{provider: streamingModel{external: true}})
	tr := &http.Transport{MaxIdleConnsPerHost: chats}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		resps := holdIdle(b, f, client, chats)
		runtime.GC()
		var during runtime.MemStats
		runtime.ReadMemStats(&during)
		b.ReportMetric(float64(int64(during.HeapAlloc)-int64(before.HeapAlloc))/chats/1024, "KB/idle-chat")
		closeAll(resps)
		for f.chat.ActiveCount() > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}
