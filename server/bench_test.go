package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/openai"
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
// (idle, but with their request, run and stream alive) and reports what
// each one costs in heap objects plus goroutine stacks (runtime/metrics),
// the test client's side included: an upper bound on the server's.
func BenchmarkIdleChatMemory(b *testing.B) {
	const chats = 500
	f := newFixture(&testing.T{}, fixtureOpts{provider: streamingModel{external: true}})
	tr := &http.Transport{MaxIdleConnsPerHost: chats}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	for b.Loop() {
		before := liveBytes()
		resps := holdIdle(b, f, client, chats)
		b.ReportMetric(float64(int64(liveBytes())-int64(before))/chats/1024, "KB/idle-chat")
		closeAll(resps)
		for f.chat.ActiveCount() > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// wireModel is a model server speaking OpenAI's chat-completions wire
// format (server-sent chunks, then usage, then [DONE]), streaming tokens
// at a fixed rate per stream. Each token's text is "t<unix nanoseconds>"
// of the moment it was written, so a client reading hearth's stream can
// tell how long the token took to reach it.
func wireModel(tokens int, every time.Duration, written *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		chunk := func(delta string) {
			fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := range tokens {
			if i > 0 {
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				}
			}
			chunk(fmt.Sprintf(`{"content":"t%d "}`, time.Now().UnixNano()))
			if rc.Flush() != nil {
				return
			}
			written.Add(1)
		}
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", tokens, tokens+100)
		fmt.Fprint(w, "data: [DONE]\n\n")
		rc.Flush()
	}))
}

var tokenStamp = regexp.MustCompile(`t(\d{19})`)

// streamed is what one chat's client saw.
type streamed struct {
	firstToken time.Duration   // from sending the request to the first content event
	lags       []time.Duration // per token: from the model writing it to the client reading it
	tokens     int
}

// streamChat posts a chat and reads its stream to the end.
func streamChat(f *fixture, client *http.Client, body string) (streamed, error) {
	var s streamed
	req, _ := http.NewRequest("POST", f.url+"/api/chat", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.gmKey)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return s, fmt.Errorf("chat: %s: %s", resp.Status, b)
	}
	r := bufio.NewReaderSize(resp.Body, 512)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, err
		}
		if !strings.Contains(line, `"type":"content"`) {
			continue
		}
		now := time.Now()
		if s.firstToken == 0 {
			s.firstToken = now.Sub(start)
		}
		for _, m := range tokenStamp.FindAllStringSubmatch(line, -1) {
			ns, _ := strconv.ParseInt(m[1], 10, 64)
			s.lags = append(s.lags, now.Sub(time.Unix(0, ns)))
			s.tokens++
		}
	}
}

// liveBytes is the process's heap objects plus goroutine stacks, after a
// collection (runtime/metrics): what an idle goroutine costs is mostly
// its stack, which the heap alone does not show.
func liveBytes() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// streamingFixture serves hearth's chat API with the OpenAI provider (the
// one a user configures for any OpenAI-compatible server, with the
// transport app gives it) against wireModel.
func streamingFixture(b *testing.B, tokens int, every time.Duration, written *atomic.Int64) *fixture {
	model := wireModel(tokens, every, written)
	b.Cleanup(model.Close)
	p, err := openai.New(model.URL+"/v1", "", openai.WithHTTPClient(&http.Client{Transport: llm.ServerTransport()}))
	if err != nil {
		b.Fatal(err)
	}
	return newFixture(&testing.T{}, fixtureOpts{provider: p})
}

// BenchmarkStreaming1000 is 1,000 chats streaming at the same time through
// hearth's chat API (POST /api/chat, SSE) from a model server speaking
// OpenAI's wire format at 20 tokens/s per stream (100 tokens, 5 s): the
// chats start 2 ms apart, so all 1,000 stream together for most of the
// run. It reports the time to first token each chat's client sees
// (request to first content event; the model answers at once, so all of
// it is hearth's and the network's), the lag of every token (model wrote
// it → client read it), and the live memory (heap objects and goroutine
// stacks, runtime/metrics) per streaming chat while all stream: an upper
// bound on the server's share, since the test client and the fake model
// live in the same process.
func BenchmarkStreaming1000(b *testing.B) {
	const chats, tokens = 1000, 100
	var written atomic.Int64
	f := streamingFixture(b, tokens, 50*time.Millisecond, &written)
	tr := &http.Transport{MaxIdleConnsPerHost: chats}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	body := `{"messages":[{"role":"user","content":"describe the jump drive"}]}`
	var first, lags []time.Duration
	var perChat, perToken float64
	var ended atomic.Int32
	for b.Loop() {
		before := liveBytes()
		results := make([]streamed, chats)
		errs := make([]error, chats)
		var wg sync.WaitGroup
		var started sync.WaitGroup
		started.Add(chats)
		for i := range chats {
			time.Sleep(2 * time.Millisecond)
			wg.Go(func() {
				started.Done()
				results[i], errs[i] = streamChat(f, client, body)
				ended.Add(1)
			})
		}
		started.Wait()
		// All are streaming now (each lasts 5 s; starting took 2 s).
		time.Sleep(500 * time.Millisecond)
		perChat = float64(int64(liveBytes())-int64(before)) / chats / 1024
		// The CPU a token costs the whole process (fake model and test
		// client included) while all stream and none starts: from here
		// until the first chat's stream ends, at least 1 s (on a loaded
		// machine starting takes longer than a stream, and a few end in
		// it) and at most 3 s.
		cpu0, tok0 := cputime.Process(), written.Load()
		for start := time.Now(); time.Since(start) < time.Second || ended.Load() == 0 && time.Since(start) < 3*time.Second; {
			time.Sleep(10 * time.Millisecond)
		}
		if n := written.Load() - tok0; n > 0 {
			perToken = float64((cputime.Process() - cpu0).Microseconds()) / float64(n)
		}
		wg.Wait()
		for i, s := range results {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			if s.tokens != tokens {
				b.Fatalf("chat %d got %d tokens, want %d", i, s.tokens, tokens)
			}
			first = append(first, s.firstToken)
			lags = append(lags, s.lags...)
		}
	}
	q := func(ds []time.Duration, p float64) float64 {
		slices.Sort(ds)
		return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(first, 0.5), "p50-first-token-ms")
	b.ReportMetric(q(first, 0.99), "p99-first-token-ms")
	b.ReportMetric(q(lags, 0.5), "p50-token-lag-ms")
	b.ReportMetric(q(lags, 0.99), "p99-token-lag-ms")
	b.ReportMetric(perChat, "KB/streaming-chat")
	if cputime.Supported {
		b.ReportMetric(perToken, "cpu-µs/token")
	}
}

// BenchmarkStreamingBurst starts 1,000 chats at the same instant against
// the OpenAI-wire fake model (first token at once, 20 tokens/s, 20
// tokens) and reports their time to first token as each client sees it.
func BenchmarkStreamingBurst(b *testing.B) { burst(b, 20) }

// BenchmarkChatStartCPU is the burst with chats of one token: its CPU per
// chat is what starting (and ending) a chat costs the whole process,
// request, auth, conversation, agent run, model request, stream and save,
// the fake model's and the test client's share included.
func BenchmarkChatStartCPU(b *testing.B) { burst(b, 1) }

func burst(b *testing.B, tokens int) {
	const chats = 1000
	var written atomic.Int64
	f := streamingFixture(b, tokens, 50*time.Millisecond, &written)
	tr := &http.Transport{MaxIdleConnsPerHost: chats}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	body := `{"messages":[{"role":"user","content":"describe the jump drive"}]}`
	var first []time.Duration
	var cpu time.Duration
	for b.Loop() {
		results := make([]streamed, chats)
		errs := make([]error, chats)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		cpu0 := cputime.Process()
		for i := range chats {
			wg.Go(func() {
				<-gate
				results[i], errs[i] = streamChat(f, client, body)
			})
		}
		close(gate)
		wg.Wait()
		cpu += cputime.Process() - cpu0
		for i, s := range results {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			if s.tokens != tokens {
				b.Fatalf("chat %d got %d tokens, want %d", i, s.tokens, tokens)
			}
			first = append(first, s.firstToken)
		}
	}
	slices.Sort(first)
	q := func(p float64) float64 { return float64(first[int(p*float64(len(first)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-first-token-ms")
	b.ReportMetric(q(0.99), "p99-first-token-ms")
	if cputime.Supported {
		// A whole chat: its start, its tokens and its end.
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*chats), "cpu-µs/chat")
	}
}
