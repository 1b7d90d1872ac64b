package streambench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/openai"
)

// openAIChunk is a chat.completion.chunk as OpenAI documents it.
type openAIChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// The model's bytes, read with encoding/json, are OpenAI stream chunks:
// one content chunk a token, stamped with its write time in order, then
// the finish reason, the usage and [DONE], for every one of several
// streams at once.
func TestModelWritesOpenAIChunks(t *testing.T) {
	const tokens = 7
	srv := httptest.NewServer(NewModel(tokens, 5*time.Millisecond))
	defer srv.Close()
	const streams = 12
	var wg sync.WaitGroup
	errs := make([]error, streams)
	for i := range streams {
		wg.Go(func() { errs[i] = readOpenAIStream(srv.URL, tokens) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("stream %d: %v", i, err)
		}
	}
}

func readOpenAIStream(url string, tokens int) error {
	before := time.Now().UnixNano()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		return fmt.Errorf("content type %q", ct)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		switch l := sc.Text(); {
		case l == "":
		case strings.HasPrefix(l, "data: "):
			events = append(events, strings.TrimPrefix(l, "data: "))
		default:
			return fmt.Errorf("line %q is not an SSE data line", l)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(events) != tokens+3 || events[len(events)-1] != "[DONE]" {
		return fmt.Errorf("%d events ending %q, want %d tokens, stop, usage and [DONE]", len(events), events[len(events)-1], tokens)
	}
	last := before
	for i, e := range events[:len(events)-1] {
		var c openAIChunk
		dec := json.NewDecoder(strings.NewReader(e))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("event %d %q: %v", i, e, err)
		}
		if c.Object != "chat.completion.chunk" || c.ID == "" || c.Model == "" {
			return fmt.Errorf("event %d %q: not a chat.completion.chunk", i, e)
		}
		switch {
		case i < tokens:
			if len(c.Choices) != 1 || c.Choices[0].Delta.Content == nil || c.Choices[0].FinishReason != nil {
				return fmt.Errorf("token %d %q: want one choice with content and no finish reason", i, e)
			}
			text := *c.Choices[0].Delta.Content
			ns, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(text, "t"), " "), 10, 64)
			if err != nil || text != "t"+strconv.FormatInt(ns, 10)+" " {
				return fmt.Errorf("token %d's text %q is not t<unix ns> and a space", i, text)
			}
			if ns < last || ns > time.Now().UnixNano() {
				return fmt.Errorf("token %d stamped %d, after %d and before now", i, ns, last)
			}
			last = ns
		case i == tokens:
			if len(c.Choices) != 1 || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != "stop" || c.Choices[0].Delta.Content != nil {
				return fmt.Errorf("event %d %q: want the finish reason stop", i, e)
			}
		default:
			if len(c.Choices) != 0 || c.Usage == nil || c.Usage.CompletionTokens != tokens || c.Usage.TotalTokens != tokens+c.Usage.PromptTokens {
				return fmt.Errorf("event %d %q: want the usage of %d tokens", i, e, tokens)
			}
		}
	}
	return nil
}

// Hearth's OpenAI provider reads the model's streams, several at once,
// token by token, with the usage.
func TestModelThroughOpenAIProvider(t *testing.T) {
	const tokens = 9
	srv := httptest.NewServer(NewModel(tokens, 5*time.Millisecond))
	defer srv.Close()
	p, err := openai.New(srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Go(func() {
			var got []string
			resp, err := p.Chat(context.Background(), llm.Request{Model: "fake", Messages: []llm.Message{{Role: llm.User, Content: "go"}}},
				func(c llm.Chunk) error { got = append(got, c.Content); return nil })
			switch {
			case err != nil:
				errs[i] = err
			case len(got) != tokens:
				errs[i] = fmt.Errorf("%d chunks %q, want %d", len(got), got, tokens)
			case resp.Message.Content != strings.Join(got, ""):
				errs[i] = fmt.Errorf("answer %q, chunks %q", resp.Message.Content, got)
			case resp.Usage.CompletionTokens != tokens:
				errs[i] = fmt.Errorf("usage %+v", resp.Usage)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("stream %d: %v", i, err)
		}
	}
}

// A client that goes away in the middle of a stream leaves the
// scheduler, which stops once no stream is left, and the others go on.
func TestModelClientLeaves(t *testing.T) {
	m := NewModel(1000, 5*time.Millisecond)
	srv := httptest.NewServer(m)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/chat/completions", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	for n := 0; n < 3; {
		l, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(l, []byte("data: ")) {
			n++
		}
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		m.mu.Lock()
		left, running := len(m.due), m.running
		m.mu.Unlock()
		if left == 0 && !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the client left, %d streams are scheduled (running %v)", left, running)
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.Set(3, time.Millisecond)
	if err := readOpenAIStream(srv.URL, 3); err != nil {
		t.Errorf("a stream after: %v", err)
	}
}

// POST /api/chat streams the same tokens as hearth's chat events, which
// the clients' own reader takes for content with one stamp each, in
// order, and then done, for several streams at once.
func TestModelWritesHearthEventsDirect(t *testing.T) {
	const tokens = 6
	srv := httptest.NewServer(NewModel(tokens, 5*time.Millisecond))
	defer srv.Close()
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = readHearthEvents(srv.URL, tokens) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("stream %d: %v", i, err)
		}
	}
}

func readHearthEvents(url string, tokens int) error {
	before := time.Now().UnixNano()
	resp, err := http.Post(url+"/api/chat", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var types []string
	last := before
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		typ, text, ok, err := parseEvent(line)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		types = append(types, string(typ))
		if string(typ) != "content" {
			continue
		}
		ns := stamps(nil, text)
		if len(ns) != 1 || ns[0] < last || ns[0] > time.Now().UnixNano() {
			return fmt.Errorf("content %q: want one stamp after %d and before now", text, last)
		}
		last = ns[0]
	}
	if want := strings.Repeat("content ", tokens) + "done"; strings.Join(types, " ") != want {
		return fmt.Errorf("events %q, want %q", strings.Join(types, " "), want)
	}
	return nil
}
