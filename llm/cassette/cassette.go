package cassette

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/llm"
)

// MaxLine is the longest recorded interaction read back, in bytes.
const MaxLine = 16 << 20

// Interaction is one recorded call.
type Interaction struct {
	Op       string        `json:"op"` // chat, models, embed
	Key      string        `json:"key,omitempty"`
	Request  *llm.Request  `json:"request,omitempty"`
	Chunks   []llm.Chunk   `json:"chunks,omitempty"`
	Response *llm.Response `json:"response,omitempty"`
	Models   []llm.Model   `json:"models,omitempty"`
	Vectors  [][]float32   `json:"vectors,omitempty"`
	Error    *Failure      `json:"error,omitempty"`
}

// Failure is a recorded error.
type Failure struct {
	Kind    llm.ErrorKind `json:"kind"`
	Status  int           `json:"status,omitempty"`
	Message string        `json:"message"`
}

// Recorder is a Provider that passes calls to another and records them.
type Recorder struct {
	llm.Provider
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewRecorder records p's calls as JSON Lines to w.
func NewRecorder(p llm.Provider, w io.Writer) *Recorder { return &Recorder{Provider: p, w: w} }

func (r *Recorder) record(in Interaction, err error) {
	if err != nil {
		f := &Failure{Kind: "other", Message: err.Error()}
		var e *llm.Error
		if errors.As(err, &e) {
			f.Kind, f.Status = e.Kind, e.Status
		}
		in.Error = f
	}
	b, merr := json.Marshal(in)
	r.mu.Lock()
	defer r.mu.Unlock()
	if merr == nil {
		_, merr = r.w.Write(append(b, '\n'))
	}
	if merr != nil && r.err == nil {
		r.err = fmt.Errorf("record interaction: %w", merr)
	}
}

// Err reports the first failure to write the recording.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Recorder) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	in := Interaction{Op: "chat", Key: Key(req), Request: &req}
	resp, err := r.Provider.Chat(ctx, req, func(c llm.Chunk) error {
		in.Chunks = append(in.Chunks, c)
		if fn != nil {
			return fn(c)
		}
		return nil
	})
	in.Response = resp
	r.record(in, err)
	return resp, err
}

func (r *Recorder) Models(ctx context.Context) ([]llm.Model, error) {
	m, err := r.Provider.Models(ctx)
	r.record(Interaction{Op: "models", Models: m}, err)
	return m, err
}

func (r *Recorder) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	v, err := r.Provider.Embed(ctx, model, texts)
	r.record(Interaction{Op: "embed", Key: Key(llm.Request{Model: model, Messages: []llm.Message{{Content: fmt.Sprint(texts)}}}), Vectors: v}, err)
	return v, err
}

// Mode is how a Player matches requests to recorded answers.
type Mode int

const (
	// Exact answers a request only with an interaction recorded for the
	// same request (Canonical; each used once, the earliest first), and
	// fails otherwise, remembering the first mismatch.
	Exact Mode = iota
	// InOrder prefers an exact match and otherwise answers with the next
	// unused interaction of the same kind, counting the call as diverged:
	// replaying with changed prompts.
	InOrder
)

// Player is a Provider that answers from recorded interactions. Safe for
// concurrent use.
type Player struct {
	name  string
	mode  Mode
	mu    sync.Mutex
	all   []Interaction
	keys  []string // Key of each recorded request, computed by this build
	keyed bool     // some interaction has a key: scripts have none
	used  []bool
	seen  []llm.Request
	stats Stats
	first *Mismatch
}

// Stats counts what a Player was asked and how it answered.
type Stats struct {
	Calls    int // chat calls asked
	Matched  int // answered with the recording of the same request
	Diverged int // asked something not recorded (answered in order, or not at all)
	Recorded int // chat calls in the cassette
	Unused   int // recorded chat calls never played
	// FirstUnused is the number (from 1) of the first recorded chat call
	// never played, 0 when all were.
	FirstUnused int
}

// Mismatch is a chat request an exact Player could not match, compared
// with the recorded call it expected next: the earliest not yet played.
type Mismatch struct {
	Call     int // the call asked, from 1
	Recorded int // the recorded call compared with, from 1; 0 when none was left
	Difference
}

func (m *Mismatch) Error() string {
	if m.Recorded == 0 {
		return fmt.Sprintf("call %d has no recorded call left to match", m.Call)
	}
	return fmt.Sprintf("call %d differs from recorded call %d at %s", m.Call, m.Recorded, m.Difference)
}

// Requests returns the chat requests received so far, for tests to check
// what a model was asked.
func (p *Player) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.seen...)
}

// ErrNoAnswer is returned when a Player has nothing recorded for a call.
var ErrNoAnswer = errors.New("the cassette has no answer for this call")

// NewPlayer plays back interactions. Recorded requests are keyed anew,
// so a cassette is matched by what it recorded, not by a key an earlier
// build (or a hand edit) left in it.
func NewPlayer(name string, mode Mode, all []Interaction) *Player {
	p := &Player{name: name, mode: mode, all: all, keys: make([]string, len(all)), used: make([]bool, len(all))}
	for i, in := range all {
		switch {
		case in.Op == "chat" && in.Request != nil:
			p.keys[i] = Key(*in.Request)
		default:
			p.keys[i] = in.Key
		}
		p.keyed = p.keyed || p.keys[i] != ""
		if in.Op == "chat" {
			p.stats.Recorded++
		}
	}
	return p
}

// Stats reports the calls so far.
func (p *Player) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats
	n := 0
	for i, in := range p.all {
		if in.Op != "chat" {
			continue
		}
		n++
		if !p.used[i] {
			st.Unused++
			if st.FirstUnused == 0 {
				st.FirstUnused = n
			}
		}
	}
	return st
}

// Mismatch is the first call an exact Player could not answer, or nil.
func (p *Player) Mismatch() *Mismatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// Script is a player answering chat calls with the given interactions in
// order, whatever is asked: scripted model answers for tests.
func Script(all ...Interaction) *Player {
	for i := range all {
		if all[i].Op == "" {
			all[i].Op = "chat"
		}
	}
	return NewPlayer("script", InOrder, all)
}

// Text is a scripted answer with text streamed in the given pieces.
func Text(pieces ...string) Interaction {
	in := Interaction{Op: "chat"}
	var all string
	for _, p := range pieces {
		in.Chunks = append(in.Chunks, llm.Chunk{Content: p})
		all += p
	}
	in.Response = &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: all}, StopReason: "stop",
		Usage: llm.Usage{PromptTokens: 100, CompletionTokens: len(pieces)}}
	return in
}

// Calls is a scripted answer calling tools; each call is name and JSON
// arguments. Call IDs are "call_<n>" by position.
func Calls(nameArgs ...string) Interaction {
	in := Interaction{Op: "chat", Response: &llm.Response{Message: llm.Message{Role: llm.Assistant}, StopReason: "tool_calls",
		Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}}}
	for i := 0; i+1 < len(nameArgs); i += 2 {
		tc := llm.ToolCall{ID: fmt.Sprintf("call_%d", i/2+1), Name: nameArgs[i], Arguments: json.RawMessage(nameArgs[i+1])}
		in.Chunks = append(in.Chunks, llm.Chunk{ToolCall: &tc})
		in.Response.Message.ToolCalls = append(in.Response.Message.ToolCalls, tc)
	}
	return in
}

// Fail is a scripted failure.
func Fail(kind llm.ErrorKind, msg string) Interaction {
	return Interaction{Op: "chat", Error: &Failure{Kind: kind, Message: msg}}
}

// Load reads a recording.
func Load(path string) ([]Interaction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open cassette: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// Read decodes JSON Lines interactions.
func Read(r io.Reader) ([]Interaction, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	var all []Interaction
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var in Interaction
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			return nil, fmt.Errorf("cassette line %d: %w", line, err)
		}
		all = append(all, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read cassette: %w", err)
	}
	return all, nil
}

// Name is the recorded provider's name.
func (p *Player) Name() string { return p.name }

// Remaining counts the interactions not played yet.
func (p *Player) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, u := range p.used {
		if !u {
			n++
		}
	}
	return n
}

func (p *Player) take(op string, req *llm.Request) (Interaction, error) {
	key := ""
	if req != nil && p.keyed {
		key = Key(*req)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if op == "chat" {
		p.stats.Calls++
	}
	next := -1
	for i, in := range p.all {
		if p.used[i] || in.Op != op {
			continue
		}
		if key != "" && p.keys[i] == key {
			p.used[i] = true
			if op == "chat" {
				p.stats.Matched++
			}
			return in, nil
		}
		if next < 0 {
			next = i
		}
	}
	if op == "chat" && key != "" {
		p.stats.Diverged++
	}
	if next < 0 || (p.mode == Exact && key != "") {
		err := fmt.Errorf("%s %s: %w", p.name, op, ErrNoAnswer)
		if op == "chat" && p.mode == Exact {
			m := p.mismatch(*req, next)
			if p.first == nil {
				p.first = m
			}
			err = fmt.Errorf("%s %s: %w: %w", p.name, op, ErrNoAnswer, m)
		}
		return Interaction{}, err
	}
	p.used[next] = true
	return p.all[next], nil
}

// mismatch compares req with the recorded interaction at next (-1: none).
func (p *Player) mismatch(req llm.Request, next int) *Mismatch {
	m := &Mismatch{Call: p.stats.Calls}
	if next < 0 {
		return m
	}
	for i := 0; i <= next; i++ {
		if p.all[i].Op == "chat" {
			m.Recorded++
		}
	}
	var recorded llm.Request
	if r := p.all[next].Request; r != nil {
		recorded = *r
	}
	m.Difference, _ = Diff(Canonical(recorded), Canonical(req))
	return m
}

func (in Interaction) err(provider string) error {
	if in.Error == nil {
		return nil
	}
	return &llm.Error{Provider: provider, Kind: in.Error.Kind, Status: in.Error.Status, Message: in.Error.Message}
}

func (p *Player) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	p.mu.Lock()
	p.seen = append(p.seen, req)
	p.mu.Unlock()
	in, err := p.take("chat", &req)
	if err != nil {
		return nil, err
	}
	for _, c := range in.Chunks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if fn != nil {
			if err := fn(c); err != nil {
				return nil, err
			}
		}
	}
	if err := in.err(p.name); err != nil {
		return nil, err
	}
	if in.Response == nil {
		return nil, &llm.Error{Provider: p.name, Kind: llm.Malformed, Message: "recorded answer has no response"}
	}
	// A copy: callers rename tool calls in place (agent ids).
	resp := *in.Response
	resp.Message.ToolCalls = slices.Clone(resp.Message.ToolCalls)
	return &resp, nil
}

func (p *Player) Models(ctx context.Context) ([]llm.Model, error) {
	in, err := p.take("models", nil)
	if err != nil {
		return nil, err
	}
	return in.Models, in.err(p.name)
}

func (p *Player) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	in, err := p.take("embed", &llm.Request{Model: model, Messages: []llm.Message{{Content: fmt.Sprint(texts)}}})
	if err != nil {
		return nil, err
	}
	return in.Vectors, in.err(p.name)
}
