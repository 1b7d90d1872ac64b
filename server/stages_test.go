package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// envStages turns on the stage trace of the streaming benchmarks: with
// HEARTH_BENCH_STAGES=1 hearth's handler is wrapped (here, in the test)
// so that each chat's path to its first token is timed stage by stage
// and reported per stage (on stderr, and as metrics), for all chats and
// for the slowest 1% by the time their client waited. Off by default: the wrapper and the
// httptrace hooks cost a little of their own.
const envStages = "HEARTH_BENCH_STAGES"

// stage names, in the order a chat passes them. Each is a wall-clock
// time (the client, the fake model and the server share the machine's
// clock): the client's send and the model's stamp of its first token
// come from the harness's child.
var stageNames = []string{
	"sent",       // the client sends the request (its X-Bench-Start)
	"handler",    // hearth's handler is entered (routing, middleware next)
	"auth",       // the chat handler reads the request body: middleware and key check done
	"send",       // the model request is handed to the HTTP transport (assistant and agent started, body encoded)
	"conn",       // the transport has a connection (dialled, or idle)
	"wrote",      // the model request is written
	"modelwrote", // the fake model stamped the first token
	"headers",    // the model's response headers are read
	"event",      // the first content event is written to the client's stream
	"flushed",    // and flushed
	"client",     // the client read it
}

// chatStages is one chat's times, by stage (zero if not reached).
type chatStages struct {
	chat int
	at   [11]time.Time
	// hdrFlush is when the response's headers were flushed, if before
	// the first event; flushes counts the flushes up to the first event.
	hdrFlush time.Time
	flushes  int
}

// stageTracer wraps a handler and keeps each chat's stages.
type stageTracer struct {
	next http.Handler
	mu   sync.Mutex
	all  []*chatStages
}

func (t *stageTracer) reset() {
	t.mu.Lock()
	t.all = nil
	t.mu.Unlock()
}

func (t *stageTracer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	cs := &chatStages{chat: -1}
	cs.at[1] = now
	if v := r.Header.Get("X-Bench-Start"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			cs.at[0] = time.Unix(0, n)
		}
	}
	if v := r.Header.Get("X-Bench-Chat"); v != "" {
		cs.chat, _ = strconv.Atoi(v)
	}
	var mu sync.Mutex // the trace's hooks run on the transport's goroutines
	mark := func(i int) {
		mu.Lock()
		if cs.at[i].IsZero() {
			cs.at[i] = time.Now()
		}
		mu.Unlock()
	}
	ctx := httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
		GetConn:              func(string) { mark(3) },
		GotConn:              func(httptrace.GotConnInfo) { mark(4) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { mark(5) },
		GotFirstResponseByte: func() { mark(7) },
	})
	r = r.WithContext(ctx)
	r.Body = &firstRead{ReadCloser: r.Body, at: func() { mark(2) }}
	sw := &stageWriter{ResponseWriter: w, cs: cs, mu: &mu}
	t.mu.Lock()
	t.all = append(t.all, cs)
	t.mu.Unlock()
	t.next.ServeHTTP(sw, r)
}

// firstRead notes the first read of a request body.
type firstRead struct {
	io.ReadCloser
	at   func()
	once sync.Once
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(f.at)
	return f.ReadCloser.Read(p)
}

// stageWriter notes the first content event's write and the flush after
// it, the stamp of its token, and the flushes before it.
type stageWriter struct {
	http.ResponseWriter
	cs      *chatStages
	mu      *sync.Mutex
	pending bool // the first content event is written, not yet flushed
}

var contentHead = []byte(`data: {"type":"content","text":"t`)

func (s *stageWriter) Write(p []byte) (int, error) {
	n, err := s.ResponseWriter.Write(p)
	now := time.Now()
	s.mu.Lock()
	if s.cs.at[8].IsZero() {
		if i := bytes.Index(p, contentHead); i >= 0 {
			s.cs.at[8], s.pending = now, true
			rest := p[i+len(contentHead):]
			if j := bytes.IndexAny(rest, ` "`); j > 0 {
				if ns, err := strconv.ParseInt(string(rest[:j]), 10, 64); err == nil {
					s.cs.at[6] = time.Unix(0, ns)
				}
			}
		}
	}
	s.mu.Unlock()
	return n, err
}

func (s *stageWriter) Flush() {
	http.NewResponseController(s.ResponseWriter).Flush()
	now := time.Now()
	s.mu.Lock()
	if s.cs.at[8].IsZero() || s.pending {
		s.cs.flushes++
	}
	switch {
	case s.pending:
		s.cs.at[9], s.pending = now, false
	case s.cs.at[8].IsZero() && s.cs.hdrFlush.IsZero():
		s.cs.hdrFlush = now
	}
	s.mu.Unlock()
}

func (s *stageWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// stagesOn reports whether the stage trace is asked for.
func stagesOn() bool { return os.Getenv(envStages) == "1" }

// reportStages joins the traced chats with their clients' first-token
// times (first[i] is chat i's) and reports each stage's time from the one
// before it, p50 and p99, over all chats and over the slowest 1% by
// first token; it logs the table too.
func reportStages(b *testing.B, t *stageTracer, first []time.Duration) {
	t.mu.Lock()
	all := slices.Clone(t.all)
	t.mu.Unlock()
	var chats []*chatStages
	var flushes, hdr int
	for _, cs := range all {
		if cs.chat < 0 || cs.chat >= len(first) || cs.at[0].IsZero() {
			continue
		}
		cs.at[10] = cs.at[0].Add(first[cs.chat])
		chats = append(chats, cs)
		flushes += cs.flushes
		if !cs.hdrFlush.IsZero() {
			hdr++
		}
	}
	if len(chats) == 0 {
		fmt.Fprintln(os.Stderr, "stages: no chat traced")
		return
	}
	total := func(cs *chatStages) time.Duration { return cs.at[10].Sub(cs.at[0]) }
	slices.SortFunc(chats, func(x, y *chatStages) int { return int(total(x) - total(y)) })
	slow := chats[len(chats)-max(1, len(chats)/100):]
	var out bytes.Buffer
	fmt.Fprintf(&out, "stages of %d chats (slowest 1%%: %d); ms from the stage before; flushes before the client could read the first token: %.2f a chat, headers flushed alone in %d\n",
		len(chats), len(slow), float64(flushes)/float64(len(chats)), hdr)
	fmt.Fprintf(&out, "%-11s %8s %8s %8s %8s\n", "stage", "p50", "p99", "slow p50", "slow p99")
	for i := 1; i < len(stageNames); i++ {
		q := func(set []*chatStages, p float64) float64 {
			var ds []time.Duration
			for _, cs := range set {
				// From the latest stage reached before this one.
				var prev time.Time
				for j := i - 1; j >= 0; j-- {
					if !cs.at[j].IsZero() {
						prev = cs.at[j]
						break
					}
				}
				if !cs.at[i].IsZero() && !prev.IsZero() {
					ds = append(ds, cs.at[i].Sub(prev))
				}
			}
			if len(ds) == 0 {
				return -1
			}
			slices.Sort(ds)
			return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
		}
		a50, a99, s50, s99 := q(chats, .5), q(chats, .99), q(slow, .5), q(slow, .99)
		fmt.Fprintf(&out, "%-11s %8.2f %8.2f %8.2f %8.2f\n", stageNames[i], a50, a99, s50, s99)
		b.ReportMetric(a50, "p50-"+stageNames[i]+"-ms")
		b.ReportMetric(a99, "p99-"+stageNames[i]+"-ms")
		b.ReportMetric(s50, "slow-p50-"+stageNames[i]+"-ms")
	}
	// To stderr: a benchmark's log is cut to a few lines.
	fmt.Fprintf(os.Stderr, "%s: %s", b.Name(), out.String())
}
