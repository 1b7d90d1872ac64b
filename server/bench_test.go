package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
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
	"github.com/hearth-rpg/hearth/server/internal/streambench"
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

// liveBytes is the process's heap objects plus goroutine stacks, after a
// collection (runtime/metrics): what an idle goroutine costs is mostly
// its stack, which the heap alone does not show.
func liveBytes() uint64 {
	heap, stacks := liveHeapStacks()
	return heap + stacks
}

// liveHeapStacks is liveBytes in its two parts.
func liveHeapStacks() (heap, stacks uint64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// harness starts the streaming benchmarks' harness, the fake model and
// the test clients, in a child process (this test binary again, see
// TestMain), so that this process holds only the server under test.
func harness(b *testing.B) *streambench.Child {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	c, err := streambench.Start(b.Context(), exe)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// servers are the servers under test, each started in this process
// against the harness's fake model: hearth's chat API (POST /api/chat,
// SSE) with the OpenAI provider (the one a user configures for any
// OpenAI-compatible server, with the transport app gives it), and the
// peer, a bare net/http SSE proxy. Last comes "none": the clients read
// the fake model's own stream of hearth's events, with no server in
// between, the harness's floor against which a server's added time
// shows (its CPU figures are the harness's; this process does nothing).
func servers(b *testing.B, c *streambench.Child) []benchServer {
	modelSide := &connCount{}
	tr := llm.ServerTransport()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn{conn, modelSide}, nil
	}
	p, err := openai.New(c.ModelURL+"/v1", "", openai.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		b.Fatal(err)
	}
	f := newFixture(&testing.T{}, fixtureOpts{provider: p})
	proxy := httptest.NewServer(streambench.Proxy(c.ModelURL, &http.Client{Transport: llm.ServerTransport()}))
	b.Cleanup(proxy.Close)
	hearth := benchServer{name: "hearth", key: f.gmKey, clientSide: &connCount{}, modelSide: modelSide}
	var h http.Handler = f.srv
	if stagesOn() {
		hearth.stages = &stageTracer{next: f.srv}
		h = hearth.stages
	}
	// hearth again, on a listener whose connections count their system
	// calls (an atomic add each).
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = countingListener{ts.Listener, hearth.clientSide}
	ts.Start()
	b.Cleanup(ts.Close)
	hearth.url = ts.URL
	return []benchServer{hearth, {name: "proxy", url: proxy.URL}, {name: "none", url: c.ModelURL}}
}

// benchServer is a server under test; stages, if set, traces hearth's
// chats (HEARTH_BENCH_STAGES=1); clientSide and modelSide, if set, count
// its connections' reads and writes, to its clients and to the model.
type benchServer struct {
	name, url, key        string
	stages                *stageTracer
	clientSide, modelSide *connCount
}

// connCount counts the reads and writes on connections: a net.Conn's
// Read and Write are each one system call (or none, for a read that
// would block: then one after the poller's wake-up).
type connCount struct{ reads, writes atomic.Int64 }

func (c *connCount) load() [2]int64 {
	if c == nil {
		return [2]int64{}
	}
	return [2]int64{c.reads.Load(), c.writes.Load()}
}

type countingListener struct {
	net.Listener
	n *connCount
}

func (l countingListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countedConn{conn, l.n}, nil
}

type countedConn struct {
	net.Conn
	n *connCount
}

func (c countedConn) Read(b []byte) (int, error) {
	c.n.reads.Add(1)
	return c.Conn.Read(b)
}

func (c countedConn) Write(b []byte) (int, error) {
	c.n.writes.Add(1)
	return c.Conn.Write(b)
}

// BenchmarkStreaming1000 is 1,000 chats streaming at the same time from a
// model server speaking OpenAI's wire format at 20 tokens/s per stream
// (100 tokens, 5 s), through hearth and through the peer proxy. The
// chats start 2 ms apart, so all 1,000 stream together for most of the
// run. The fake model and the clients run in a child process; this one
// holds only the server. It reports the time to first token each chat's
// client sees (request to first content event; the model answers at
// once, so all of it is the server's and the loopback's), the lag of
// every token (model wrote it → client read it), and the CPU a token
// costs this process (server-) and the child (harness-), getrusage each,
// while all stream. It forces no collection: BenchmarkStreamingMemory
// measures the memory.
func BenchmarkStreaming1000(b *testing.B) { streaming(b, false) }

// BenchmarkStreamingMemory is BenchmarkStreaming1000 measuring the live
// memory (heap objects and goroutine stacks, runtime/metrics, after a
// forced collection) of this process, the server's, per streaming chat
// while all stream. The forced collection stalls the streams, so its
// latencies are not reported.
func BenchmarkStreamingMemory(b *testing.B) { streaming(b, true) }

func streaming(b *testing.B, memory bool) {
	const chats, tokens = 1000, 100
	c := harness(b)
	for _, srv := range servers(b, c) {
		if memory && srv.name == "none" {
			continue // no server, no server's memory
		}
		b.Run("server="+srv.name, func(b *testing.B) {
			plan := streambench.Plan{Chats: chats, Tokens: tokens, Every: 50 * time.Millisecond, Spacing: 2 * time.Millisecond,
				URL: srv.url, Key: srv.key, Body: `{"messages":[{"role":"user","content":"describe the jump drive"}]}`}
			var first, lags []time.Duration
			var perChat float64
			var cpu, harnessCPU time.Duration
			var windowTokens int64
			var at0, in heapCount // at the window's start; summed over windows
			var ramp heapCount    // summed over runs: from the run's start to the window's
			for b.Loop() {
				if !memory {
					writeRampProfile(b, ".ramp0")
				}
				ramp0 := readHeapCount()
				var heap0, stacks0 uint64
				var heapGrown, stacksGrown int64
				if memory {
					heap0, stacks0 = liveHeapStacks()
				}
				var cpu0 time.Duration
				if srv.stages != nil {
					srv.stages.reset()
				}
				res, err := c.Run(plan, func(mark string) {
					switch mark {
					case "steady":
						if memory {
							heap, stacks := liveHeapStacks()
							heapGrown, stacksGrown = int64(heap)-int64(heap0), int64(stacks)-int64(stacks0)
							writeHeapProfile(b)
						}
						at0 = readHeapCount()
						ramp = ramp.plus(at0.minus(ramp0))
						if !memory {
							writeRampProfile(b, ".ramp1")
						}
						cpu0 = cputime.Process()
					case "end":
						cpu += cputime.Process() - cpu0
						in = in.plus(readHeapCount().minus(at0))
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				if srv.stages != nil && !memory {
					reportStages(b, srv.stages, res.First)
				}
				first, lags = append(first, res.First...), append(lags, res.Lags...)
				harnessCPU += res.ChildCPU
				windowTokens += res.WindowTokens
				if memory && res.Live > 0 {
					// Over the chats streaming then: on a loaded machine
					// the first have ended before the last start.
					perChat = float64(heapGrown+stacksGrown) / float64(res.Live) / 1024
					b.ReportMetric(float64(stacksGrown)/float64(res.Live)/1024, "KB-stacks/streaming-chat")
					b.ReportMetric(float64(res.Live), "chats-streaming")
				}
			}
			if memory {
				b.ReportMetric(perChat, "KB/streaming-chat")
				return
			}
			reportLatencies(b, "first-token", first)
			reportLatencies(b, "token-lag", lags)
			if cputime.Supported && windowTokens > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(windowTokens), "server-cpu-µs/token")
				b.ReportMetric(float64(harnessCPU.Nanoseconds())/1e3/float64(windowTokens), "harness-cpu-µs/token")
			}
			if windowTokens > 0 {
				// What the server allocates while all stream, over the
				// tokens of the window: it sets how often the collector
				// runs and how many goroutines it makes assist.
				b.ReportMetric(float64(in.objects)/float64(windowTokens), "server-allocs/token")
				b.ReportMetric(float64(in.bytes)/float64(windowTokens), "server-B/token")
				b.ReportMetric(float64(in.cycles)/float64(b.N), "server-gc-cycles-in-window")
			}
			if srv.name != "none" {
				// The ramp, while the 1,000 start and the heap grows
				// with them: each cycle there makes starting chats
				// assist it. Its bytes a chat include the first
				// tokens of the chats already streaming.
				b.ReportMetric(float64(ramp.cycles)/float64(b.N), "server-gc-cycles-in-ramp")
				b.ReportMetric(float64(ramp.bytes)/float64(b.N*chats), "server-ramp-B/chat")
			}
		})
	}
}

// writeHeapProfile writes the live heap while all stream to the file
// HEARTH_BENCH_HEAPPROFILE names, if set (BenchmarkStreamingMemory): what
// a streaming chat holds, by allocation site. Run with
// -test.memprofilerate 1 for every object rather than a sample.
func writeHeapProfile(b *testing.B) {
	if name := os.Getenv("HEARTH_BENCH_HEAPPROFILE"); name != "" {
		writeHeap(b, name)
	}
}

// writeRampProfile writes the heap profile, after a collection, to
// HEARTH_BENCH_HEAPPROFILE's name with suffix, if set: in
// BenchmarkStreaming1000 at the start of a run and at its window's (the
// difference of the two is what the ramp allocated, by site: go tool
// pprof -sample_index=alloc_space -base NAME.ramp0 NAME.ramp1; the
// collection it forces is outside the first-token times but inside the
// window's lag), in a burst before it starts and after it ends (.burst0
// and .burst1). The benchmark's process holds only the server, so the
// difference is the server's alone.
func writeRampProfile(b *testing.B, suffix string) {
	if name := os.Getenv("HEARTH_BENCH_HEAPPROFILE"); name != "" {
		runtime.GC()
		writeHeap(b, name+suffix)
	}
}

// writeHeap writes the heap profile to the file name.
func writeHeap(b *testing.B, name string) {
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// heapCount is this process's heap allocations and collections so far
// (runtime/metrics). The counts are exact, not sampled; objects counts
// the tiny allocator's objects too.
type heapCount struct{ objects, bytes, cycles uint64 }

func readHeapCount() heapCount {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"},
		{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return heapCount{s[0].Value.Uint64() + s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()}
}

func (h heapCount) minus(o heapCount) heapCount {
	return heapCount{h.objects - o.objects, h.bytes - o.bytes, h.cycles - o.cycles}
}

func (h heapCount) plus(o heapCount) heapCount {
	return heapCount{h.objects + o.objects, h.bytes + o.bytes, h.cycles + o.cycles}
}

// goroutinesStarted is how many goroutines this process has started
// (runtime/metrics).
func goroutinesStarted(b *testing.B) uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		b.Fatal("runtime/metrics has no /sched/goroutines-created")
	}
	return s[0].Value.Uint64()
}

// reportLatencies reports the p50 and p99 of ds in milliseconds.
func reportLatencies(b *testing.B, name string, ds []time.Duration) {
	slices.Sort(ds)
	q := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-"+name+"-ms")
	b.ReportMetric(q(0.99), "p99-"+name+"-ms")
}

// BenchmarkStreamingBurst starts 1,000 chats at the same instant against
// the OpenAI-wire fake model (first token at once, 20 tokens/s, 20
// tokens), through hearth and through the peer proxy, and reports their
// time to first token as each client sees it.
func BenchmarkStreamingBurst(b *testing.B) { burst(b, 20) }

// BenchmarkChatStartCPU is the burst with chats of one token: its CPU per
// chat is what starting (and ending) a chat costs the server's process
// (request, auth, conversation, agent run, model request, stream and
// save) and, apart, the harness's.
func BenchmarkChatStartCPU(b *testing.B) { burst(b, 1) }

func burst(b *testing.B, tokens int) {
	const chats = 1000
	c := harness(b)
	for _, srv := range servers(b, c) {
		b.Run("server="+srv.name, func(b *testing.B) {
			plan := streambench.Plan{Burst: true, Chats: chats, Tokens: tokens, Every: 50 * time.Millisecond,
				URL: srv.url, Key: srv.key, Body: `{"messages":[{"role":"user","content":"describe the jump drive"}]}`}
			var first []time.Duration
			var cpu, harnessCPU time.Duration
			var heap heapCount         // summed over bursts
			var gor uint64             // summed over bursts
			var client, model [2]int64 // reads, writes; summed over bursts
			for b.Loop() {
				var cpu0 time.Duration
				var heap0 heapCount
				var gor0 uint64
				var client0, model0 [2]int64
				if srv.stages != nil {
					srv.stages.reset()
				}
				res, err := c.Run(plan, func(mark string) {
					switch mark {
					case "start":
						writeRampProfile(b, ".burst0")
						cpu0 = cputime.Process()
						heap0 = readHeapCount()
						gor0, client0, model0 = goroutinesStarted(b), srv.clientSide.load(), srv.modelSide.load()
					case "end":
						cpu += cputime.Process() - cpu0
						heap = heap.plus(readHeapCount().minus(heap0))
						gor += goroutinesStarted(b) - gor0
						c, m := srv.clientSide.load(), srv.modelSide.load()
						for i := range 2 {
							client[i] += c[i] - client0[i]
							model[i] += m[i] - model0[i]
						}
						writeRampProfile(b, ".burst1")
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				if srv.stages != nil {
					reportStages(b, srv.stages, res.First)
				}
				first = append(first, res.First...)
				harnessCPU += res.ChildCPU
			}
			reportLatencies(b, "first-token", first)
			if cputime.Supported {
				// A whole chat: its start, its tokens and its end.
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*chats), "server-cpu-µs/chat")
				b.ReportMetric(float64(harnessCPU.Microseconds())/float64(b.N*chats), "harness-cpu-µs/chat")
			}
			if srv.name != "none" {
				// Exact (runtime/metrics), whatever the load: what a
				// chat allocates in the server's process and how many
				// collections a burst of them brings.
				b.ReportMetric(float64(heap.bytes)/float64(b.N*chats), "server-B/chat")
				b.ReportMetric(float64(heap.objects)/float64(b.N*chats), "server-allocs/chat")
				b.ReportMetric(float64(heap.cycles)/float64(b.N), "server-gc-cycles/burst")
				// Exact too: goroutines started a chat in the server's
				// process, and its connections' reads and writes (each a
				// system call), to the clients and to the model.
				n := float64(b.N * chats)
				b.ReportMetric(float64(gor)/n, "server-goroutines/chat")
				if srv.clientSide != nil {
					b.ReportMetric(float64(client[1])/n, "client-conn-writes/chat")
					b.ReportMetric(float64(client[0])/n, "client-conn-reads/chat")
					b.ReportMetric(float64(model[1])/n, "model-conn-writes/chat")
					b.ReportMetric(float64(model[0])/n, "model-conn-reads/chat")
				}
			}
		})
	}
}

// TestMain makes this test binary the streaming benchmarks' harness
// when it is started as one (streambench.MaybeChild).
func TestMain(m *testing.M) {
	streambench.MaybeChild()
	os.Exit(m.Run())
}
