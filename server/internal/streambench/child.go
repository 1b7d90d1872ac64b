package streambench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-rpg/hearth/internal/cputime"
)

// EnvRole names the environment variable that makes a test binary the
// harness's child: TestMain calls MaybeChild, which runs the child and
// exits when it is set.
const EnvRole = "HEARTH_STREAMBENCH_ROLE"

// EnvCPUProfile names the environment variable that makes the child
// write a CPU profile of its whole life (fake model and clients) to the
// file it names: the parent's -cpuprofile covers only the parent.
const EnvCPUProfile = "HEARTH_STREAMBENCH_CPUPROFILE"

// EnvProcs names the environment variable that sets the child's
// GOMAXPROCS (by default the machine's cores): 1 keeps the harness on at
// most one core, leaving the other to the server under test.
const EnvProcs = "HEARTH_STREAMBENCH_PROCS"

// Plan is one run the parent asks of the child.
type Plan struct {
	// Burst starts all chats at one instant; otherwise they start
	// Spacing apart and the child marks a steady window once all stream.
	Burst   bool          `json:"burst"`
	Chats   int           `json:"chats"`
	Tokens  int           `json:"tokens"`  // the model's tokens per answer
	Every   time.Duration `json:"every"`   // between a stream's tokens
	Spacing time.Duration `json:"spacing"` // between chat starts
	URL     string        `json:"url"`     // chats are POSTed to URL+"/api/chat"
	Key     string        `json:"key"`     // bearer key, if any
	Body    string        `json:"body"`
}

// Result is what the child's clients measured.
type Result struct {
	First []time.Duration `json:"first"` // per chat: request to first content event
	Lags  []time.Duration `json:"lags"`  // per token: the model wrote it → the client read it
	// WindowTokens are the tokens the model wrote in the window (between
	// the marks "steady" and "end", or "start" and "end" in a burst) and
	// ChildCPU the child's CPU time meanwhile.
	WindowTokens int64         `json:"window_tokens"`
	ChildCPU     time.Duration `json:"child_cpu"`
	// Live is how many chats were streaming (first token read, end not
	// yet) at the mark "steady".
	Live int `json:"live"`
}

// message is one line from the child to the parent.
type message struct {
	Model  string  `json:"model,omitempty"` // the fake model's base URL, first
	Mark   string  `json:"mark,omitempty"`  // a point in a run; the parent acks it
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// MaybeChild runs the harness's child and exits when EnvRole says this
// process is one; otherwise it returns at once. Call it first in TestMain.
func MaybeChild() {
	if os.Getenv(EnvRole) != "child" {
		return
	}
	// The child shares the cores with the server under test, and its
	// collections are CPU taken from it: its heap (1,000 clients'
	// connections and the model's) is small, so it may grow more first.
	debug.SetGCPercent(400)
	err := setProcs(os.Getenv(EnvProcs))
	var stop func() error
	if err == nil {
		stop, err = startProfile(os.Getenv(EnvCPUProfile))
	}
	if err == nil {
		err = RunChild(context.Background(), os.Stdin, os.Stdout, os.Stderr)
		if perr := stop(); err == nil {
			err = perr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "streambench child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// setProcs sets GOMAXPROCS from EnvProcs's value, if any.
func setProcs(v string) error {
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("%s=%q: want a positive number of cores for the child", EnvProcs, v)
	}
	runtime.GOMAXPROCS(n)
	return nil
}

// startProfile starts a CPU profile into the file at path, if any, and
// returns what stops it and closes the file.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvCPUProfile, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s=%s: %w", EnvCPUProfile, path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// RunChild serves the fake model on 127.0.0.1, says where on out, then
// runs each plan read from in until in ends. Progress and errors go to
// log, which the parent shows when the child fails.
func RunChild(ctx context.Context, in io.Reader, out, log io.Writer) error {
	if os.Getenv(EnvRole+"_CRASH") != "" { // for the harness's own tests
		fmt.Fprintln(log, "streambench child: crashing on purpose")
		os.Exit(3)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReader(in)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSpace(l)
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	m := &Model{}
	srv := &http.Server{Handler: m}
	go srv.Serve(ln)
	defer srv.Close()
	enc := json.NewEncoder(out)
	if err := enc.Encode(message{Model: "http://" + ln.Addr().String()}); err != nil {
		return err
	}
	fmt.Fprintln(log, "streambench child: fake model at", ln.Addr())
	// mark tells the parent where the run is and waits for its ack.
	mark := func(name string) error {
		if err := enc.Encode(message{Mark: name}); err != nil {
			return err
		}
		if _, ok := <-lines; !ok {
			return errors.New("the parent went away")
		}
		return nil
	}
	for l := range lines {
		var p Plan
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			return fmt.Errorf("plan %q: %w", l, err)
		}
		if p.Chats <= 0 || p.Tokens <= 0 || p.Every <= 0 {
			return fmt.Errorf("plan %q: chats, tokens and every must be positive", l)
		}
		m.Set(p.Tokens, p.Every)
		fmt.Fprintf(log, "streambench child: %d chats of %d tokens against %s (burst %v)\n", p.Chats, p.Tokens, p.URL, p.Burst)
		res, err := run(ctx, p, m, mark)
		if err != nil {
			fmt.Fprintln(log, "streambench child: run failed:", err)
			enc.Encode(message{Error: err.Error()})
			return err
		}
		if err := enc.Encode(message{Result: &res}); err != nil {
			return err
		}
	}
	return nil
}

// run runs one plan's chats and collects what their clients saw.
func run(ctx context.Context, p Plan, m *Model, mark func(string) error) (Result, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: p.Chats}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	results := make([]streamed, p.Chats)
	errs := make([]error, p.Chats)
	var wg sync.WaitGroup
	var started, streaming sync.WaitGroup
	started.Add(p.Chats)
	streaming.Add(p.Chats)
	var ended sync.Once
	var live atomic.Int64 // chats between their first token and their end
	firstEnd := make(chan struct{})
	gate := make(chan struct{})
	var res Result
	var markErr error
	for i := range p.Chats {
		if !p.Burst && i > 0 {
			time.Sleep(p.Spacing)
		}
		wg.Go(func() {
			started.Done()
			<-gate
			var first sync.Once
			results[i], errs[i] = streamChat(ctx, client, p, i, func() {
				live.Add(1)
				first.Do(streaming.Done)
			})
			if results[i].firstToken > 0 {
				live.Add(-1)
			}
			first.Do(streaming.Done)
			ended.Do(func() { close(firstEnd) })
		})
		if !p.Burst && i == 0 {
			close(gate)
		}
	}
	started.Wait()
	var cpu0 time.Duration
	var tok0 int64
	if p.Burst {
		if markErr = mark("start"); markErr == nil {
			cpu0, tok0 = cputime.Process(), m.written.Load()
		}
		close(gate)
	} else {
		// The window starts once every chat has had its first token
		// (none is starting) and the last have settled.
		streaming.Wait()
		time.Sleep(200 * time.Millisecond)
		res.Live = int(live.Load())
		if markErr = mark("steady"); markErr == nil {
			cpu0, tok0 = cputime.Process(), m.written.Load()
			// The window: from here until the first stream ends, at
			// least 1 s (on a loaded machine starting takes longer than a
			// stream, and a few end in it) and at most 3 s.
			min, max := time.After(time.Second), time.After(3*time.Second)
			<-min
			select {
			case <-firstEnd:
			case <-max:
			}
		}
	}
	if !p.Burst && markErr == nil {
		res.ChildCPU, res.WindowTokens = cputime.Process()-cpu0, m.written.Load()-tok0
		markErr = mark("end")
	}
	wg.Wait()
	if p.Burst && markErr == nil {
		res.ChildCPU, res.WindowTokens = cputime.Process()-cpu0, m.written.Load()-tok0
		markErr = mark("end")
	}
	if markErr != nil {
		return res, markErr
	}
	for i, s := range results {
		if errs[i] != nil {
			return res, fmt.Errorf("chat %d: %w", i, errs[i])
		}
		if s.tokens != p.Tokens {
			return res, fmt.Errorf("chat %d got %d tokens, want %d", i, s.tokens, p.Tokens)
		}
		res.First = append(res.First, s.firstToken)
		res.Lags = append(res.Lags, s.lags...)
	}
	return res, nil
}

// streamed is what one chat's client saw.
type streamed struct {
	firstToken time.Duration
	lags       []time.Duration
	tokens     int
}

// streamChat posts chat i and reads its stream to the end.
// onFirst is called at its first token. The request says which chat it
// is and when it was sent (X-Bench-Chat, X-Bench-Start: Unix
// nanoseconds), for a server that traces a chat's stages.
func streamChat(ctx context.Context, client *http.Client, p Plan, i int, onFirst func()) (streamed, error) {
	var s streamed
	req, err := http.NewRequestWithContext(ctx, "POST", p.URL+"/api/chat", strings.NewReader(p.Body))
	if err != nil {
		return s, err
	}
	if p.Key != "" {
		req.Header.Set("Authorization", "Bearer "+p.Key)
	}
	req.Header.Set("X-Bench-Chat", strconv.Itoa(i))
	start := time.Now()
	req.Header.Set("X-Bench-Start", strconv.FormatInt(start.UnixNano(), 10))
	resp, err := client.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return s, fmt.Errorf("chat: %s: %s", resp.Status, b)
	}
	s.lags = make([]time.Duration, 0, p.Tokens)
	// The clock is read as each read of the body returns, before the
	// bytes are parsed: a line's time is that of the read that brought
	// its end (a bufio.Reader reads again only when no line is left).
	body := &stampedReader{r: resp.Body}
	r := bufio.NewReaderSize(body, 512)
	var ns []int64
	for {
		line, err := r.ReadSlice('\n')
		if err == io.EOF {
			return s, nil
		}
		if err == bufio.ErrBufferFull {
			return s, fmt.Errorf("an event longer than %d bytes", r.Size())
		}
		if err != nil {
			return s, err
		}
		now := body.at
		typ, text, ok, err := parseEvent(line)
		if err != nil {
			return s, err
		}
		if !ok || string(typ) != "content" {
			continue
		}
		if s.firstToken == 0 {
			s.firstToken = now.Sub(start)
			onFirst()
		}
		ns = stamps(ns[:0], text)
		for _, n := range ns {
			s.lags = append(s.lags, now.Sub(time.Unix(0, n)))
			s.tokens++
		}
	}
}

// stampedReader notes when each read returned.
type stampedReader struct {
	r  io.Reader
	at time.Time
}

func (s *stampedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.at = time.Now()
	return n, err
}
