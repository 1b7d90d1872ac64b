package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/hearth-rpg/hearth/llm"
)

const name = "gemini"

// DefaultEmbedModel is the model Embed uses when it is given none.
const DefaultEmbedModel = "gemini-embedding-001"

// maxEmbedBatch is how many texts one batchEmbedContents call may carry.
const maxEmbedBatch = 100

// maxModelPages bounds Models' paging, in case a server keeps answering
// with a next page.
const maxModelPages = 100

// skipSignature is the thought signature Google documents for function calls
// the model did not make (or whose signature was lost): it tells Gemini 3 to
// skip the check instead of refusing the request.
const skipSignature = "skip_thought_signature_validator"

// Provider talks to the Gemini Developer API. It is safe for concurrent use.
type Provider struct {
	// The one service Hearth calls, not the *genai.Client: a field of
	// that type would make every service the SDK has part of the binary.
	models *genai.Models
	model  string
	sigs   signatures
	nextID atomic.Int64
}

var _ llm.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*config)

type config struct {
	httpClient *http.Client
	model      string
}

// WithHTTPClient sets the HTTP client used for every call (a plain
// http.Client otherwise). The client is copied and its Transport
// (http.DefaultTransport when nil) wrapped; see quietBodies.
func WithHTTPClient(c *http.Client) Option {
	return func(cfg *config) { cfg.httpClient = c }
}

// WithModel sets the model Chat uses when a Request names none, such as
// "gemini-2.5-flash".
func WithModel(model string) Option {
	return func(cfg *config) { cfg.model = model }
}

// New returns a Provider that calls the Gemini API at baseURL with apiKey.
// An empty baseURL means the SDK's default
// (https://generativelanguage.googleapis.com/, or GOOGLE_GEMINI_BASE_URL
// when that is set). The key is sent in the x-goog-api-key header and never
// appears in errors.
func New(ctx context.Context, baseURL, apiKey string, opts ...Option) (*Provider, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if apiKey == "" {
		// The SDK would fall back to GEMINI_API_KEY / GOOGLE_API_KEY; the
		// caller decides where keys come from, so refuse instead.
		return nil, &llm.Error{Provider: name, Kind: llm.Auth, Message: "no API key"}
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("gemini: base URL %q: want http(s)://host[:port][/path]", baseURL)
		}
	}
	if cfg.model != "" {
		if err := validModel(cfg.model); err != nil {
			return nil, err
		}
	}
	hc := &http.Client{}
	if cfg.httpClient != nil {
		c := *cfg.httpClient
		hc = &c
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = quietBodies{base: base}
	one := int32(1)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     apiKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL: baseURL,
			// One attempt per call: Hearth's wrapper does the retrying.
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &one},
		},
	})
	if err != nil {
		// Some of the SDK's configuration errors print the whole config,
		// key included.
		msg := strings.ReplaceAll(err.Error(), apiKey, "[key]")
		return nil, fmt.Errorf("gemini: creating client: %s", msg)
	}
	return &Provider{models: client.Models, model: cfg.model}, nil
}

// Name returns "gemini".
func (*Provider) Name() string { return name }

// Chat streams a generateContent call, passing text and function calls to
// fn as they arrive.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return nil, badRequest("no model given", nil)
	}
	if err := validModel(model); err != nil {
		return nil, err
	}
	contents, system, err := p.contents(model, req.Messages)
	if err != nil {
		return nil, err
	}
	cfg, err := generateConfig(req, system)
	if err != nil {
		return nil, err
	}

	ctx, readErr := withReadErr(ctx)
	resp := &llm.Response{Message: llm.Message{Role: llm.Assistant}}
	var (
		content  strings.Builder
		chunks   int
		finish   genai.FinishReason
		blocked  genai.BlockedReason
		usage    *genai.GenerateContentResponseUsageMetadata
		fnErr    error
		finished bool
	)
	emit := func(c llm.Chunk) error {
		if fn == nil {
			return nil
		}
		if err := fn(c); err != nil {
			fnErr = err
			return err
		}
		return nil
	}
	err = p.stream(ctx, model, contents, cfg, func(r *genai.GenerateContentResponse) error {
		chunks++
		if r.UsageMetadata != nil {
			// Each chunk carries the running total, not an increment.
			usage = r.UsageMetadata
		}
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" &&
			r.PromptFeedback.BlockReason != genai.BlockedReasonUnspecified {
			blocked = r.PromptFeedback.BlockReason
		}
		if len(r.Candidates) == 0 || r.Candidates[0] == nil {
			return nil
		}
		cand := r.Candidates[0]
		if cand.Content != nil {
			for _, part := range cand.Content.Parts {
				switch {
				case part == nil:
				case part.FunctionCall != nil:
					call, err := p.toolCall(part)
					if err != nil {
						return err
					}
					resp.Message.ToolCalls = append(resp.Message.ToolCalls, call)
					if err := emit(llm.Chunk{ToolCall: &call}); err != nil {
						return err
					}
				case part.Thought:
					// Thought summaries are not part of the answer.
				case part.Text != "":
					content.WriteString(part.Text)
					if err := emit(llm.Chunk{Content: part.Text}); err != nil {
						return err
					}
				}
			}
		}
		if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
			finish = cand.FinishReason
			finished = true
		}
		return nil
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if rerr := readErr.get(); rerr != nil {
		// Reading the stream failed (the SDK saw it end there): the
		// connection broke, which trying again may mend.
		err := callError(ctx, "chat: reading the stream", rerr)
		if le, ok := err.(*llm.Error); ok && le.Kind == llm.Malformed {
			le.Kind = llm.Unreachable
		}
		return nil, err
	}
	if err != nil {
		return nil, callError(ctx, "chat", err)
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, callError(ctx, "chat", cerr)
	}
	switch {
	case chunks == 0:
		return nil, malformed("chat: the stream ended without a response", nil)
	case blocked != "":
		resp.StopReason = "blocked_" + strings.ToLower(string(blocked))
	case !finished:
		return nil, malformed("chat: the stream ended without a finish reason", nil)
	default:
		resp.StopReason = stopReason(finish, len(resp.Message.ToolCalls) > 0)
	}
	resp.Message.Content = content.String()
	if usage != nil {
		resp.Usage = llm.Usage{
			PromptTokens: int(usage.PromptTokenCount),
			// Thinking is billed as output, so it counts as completion.
			CompletionTokens: int(usage.CandidatesTokenCount) + int(usage.ThoughtsTokenCount),
			CachedTokens:     int(usage.CachedContentTokenCount),
		}
	}
	return resp, nil
}

// stream runs a streamGenerateContent call, handing each response to each.
// The SDK panics on some well-formed JSON of the wrong shape (a string where
// an array belongs); such a panic inside the SDK is turned into a Malformed
// error, while one from each is left alone.
func (p *Provider) stream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig, each func(*genai.GenerateContentResponse) error) (err error) {
	inBody := false
	defer func() {
		if inBody {
			return
		}
		if r := recover(); r != nil {
			err = malformed(fmt.Sprintf("unreadable stream data: %v", r), nil)
		}
	}()
	for r, serr := range p.models.GenerateContentStream(ctx, model, contents, cfg) {
		if serr != nil {
			return serr
		}
		if r == nil {
			continue
		}
		inBody = true
		err := each(r)
		inBody = false
		if err != nil {
			return err
		}
	}
	return nil
}

// toolCall turns a function-call part into an llm.ToolCall, remembering its
// thought signature.
func (p *Provider) toolCall(part *genai.Part) (llm.ToolCall, error) {
	fc := part.FunctionCall
	if fc.Name == "" {
		return llm.ToolCall{}, malformed("function call without a name", nil)
	}
	args := fc.Args
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return llm.ToolCall{}, malformed("function call arguments", err)
	}
	id := fc.ID
	if id == "" {
		id = "call_" + strconv.FormatInt(p.nextID.Add(1), 10)
	}
	if len(part.ThoughtSignature) > 0 {
		p.sigs.put(sigKey(id, fc.Name, raw), part.ThoughtSignature)
	}
	return llm.ToolCall{ID: id, Name: fc.Name, Arguments: raw}, nil
}

// generatedID matches the IDs toolCall makes up for calls Gemini gave none;
// they are not sent back, since Gemini never issued them.
var generatedID = regexp.MustCompile(`^call_[0-9]+$`)

func wireID(id string) string {
	if generatedID.MatchString(id) {
		return ""
	}
	return id
}

// contents converts the messages: system messages become the system
// instruction, tool results become function responses in a user turn.
func (p *Provider) contents(model string, msgs []llm.Message) ([]*genai.Content, *genai.Content, error) {
	var (
		system   []*genai.Part
		out      []*genai.Content
		names    = map[string]string{} // tool call ID → tool name
		lastTool bool                  // the last content holds function responses
	)
	for i, m := range msgs {
		if err := m.CheckImages(); err != nil {
			return nil, nil, badRequest(fmt.Sprintf("message %d: %v", i, err), nil)
		}
		isTool := false
		switch m.Role {
		case llm.System:
			if m.Content != "" {
				system = append(system, &genai.Part{Text: m.Content})
			}
		case llm.User:
			// Images go as inline data before the text about them, as
			// the API's documentation advises.
			var parts []*genai.Part
			for _, im := range m.Images {
				parts = append(parts, &genai.Part{InlineData: &genai.Blob{MIMEType: im.MIMEType, Data: im.Data}})
			}
			if m.Content != "" {
				parts = append(parts, &genai.Part{Text: m.Content})
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
		case llm.Assistant:
			var parts []*genai.Part
			if m.Content != "" {
				parts = append(parts, &genai.Part{Text: m.Content})
			}
			signed := false
			first := -1
			for _, tc := range m.ToolCalls {
				if tc.Name == "" {
					return nil, nil, badRequest(fmt.Sprintf("message %d: tool call without a name", i), nil)
				}
				args, canon, err := callArgs(tc.Arguments)
				if err != nil {
					return nil, nil, badRequest(fmt.Sprintf("message %d: tool call %s: arguments must be a JSON object", i, tc.Name), err)
				}
				names[tc.ID] = tc.Name
				part := &genai.Part{FunctionCall: &genai.FunctionCall{ID: wireID(tc.ID), Name: tc.Name, Args: args}}
				if sig := p.sigs.get(sigKey(tc.ID, tc.Name, canon)); sig != nil {
					part.ThoughtSignature = sig
					signed = true
				}
				if first < 0 {
					first = len(parts)
				}
				parts = append(parts, part)
			}
			if first >= 0 && !signed && wantsSignatures(model) {
				// Only the first of parallel calls carries a signature.
				parts[first].ThoughtSignature = []byte(skipSignature)
			}
			if len(parts) == 0 {
				continue
			}
			out = append(out, &genai.Content{Role: genai.RoleModel, Parts: parts})
		case llm.ToolRole:
			isTool = true
			fname := m.Name
			if fname == "" {
				fname = names[m.ToolCallID]
			}
			if fname == "" {
				return nil, nil, badRequest(fmt.Sprintf("message %d: tool result without a tool name", i), nil)
			}
			part := &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID:       wireID(m.ToolCallID),
				Name:     fname,
				Response: map[string]any{"result": toolResult(m.Content)},
			}}
			// The responses to one turn's calls go back together.
			if lastTool {
				last := out[len(out)-1]
				last.Parts = append(last.Parts, part)
			} else {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{part}})
			}
		default:
			return nil, nil, badRequest(fmt.Sprintf("message %d: unknown role %q", i, m.Role), nil)
		}
		if m.Role != llm.System {
			lastTool = isTool
		}
	}
	if len(out) == 0 {
		return nil, nil, badRequest("no user or assistant messages", nil)
	}
	var sys *genai.Content
	if len(system) > 0 {
		sys = &genai.Content{Role: genai.RoleUser, Parts: system}
	}
	return out, sys, nil
}

// callArgs parses a tool call's arguments, returning them with their
// canonical JSON (sorted keys) for looking up signatures.
func callArgs(raw json.RawMessage) (map[string]any, []byte, error) {
	args := map[string]any{}
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, nil, err
		}
		if args == nil {
			args = map[string]any{}
		}
	}
	canon, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	return args, canon, nil
}

// toolResult is a tool's output as Gemini receives it: parsed when it is
// JSON, the string otherwise.
func toolResult(s string) any {
	if strings.TrimSpace(s) != "" && json.Valid([]byte(s)) {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err == nil {
			return v
		}
	}
	return s
}

var geminiVersion = regexp.MustCompile(`(?:^|/)gemini-([0-9]+)`)

// wantsSignatures reports whether model refuses function calls without a
// thought signature (Gemini 3 and later).
func wantsSignatures(model string) bool {
	m := geminiVersion.FindStringSubmatch(model)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(m[1])
	return err == nil && n >= 3
}

func generateConfig(req llm.Request, system *genai.Content) (*genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: system,
		// The SDK would otherwise re-send the request when a stream drops
		// or ends early; Hearth's wrapper decides about retries.
		AutomaticContinuation: genai.Ptr(false),
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxTokens, math.MaxInt32))
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			if t.Name == "" {
				return nil, badRequest("tool without a name", nil)
			}
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
				var schema any
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, badRequest(fmt.Sprintf("tool %s: parameters are not JSON", t.Name), err)
				}
				d.ParametersJsonSchema = schema
			}
			decls = append(decls, d)
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if len(req.Schema) > 0 && string(req.Schema) != "null" {
		var schema any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return nil, badRequest("response schema is not JSON", err)
		}
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = schema
	}
	return cfg, nil
}

// stopReason names a finish reason the way the other providers do.
func stopReason(r genai.FinishReason, toolCalls bool) string {
	switch r {
	case genai.FinishReasonStop:
		if toolCalls {
			return "tool_calls"
		}
		return "stop"
	case genai.FinishReasonMaxTokens:
		return "length"
	}
	return strings.ToLower(string(r))
}

// Models lists the models the key can use, with their input token limits.
func (p *Provider) Models(ctx context.Context) (out []llm.Model, err error) {
	defer guard(&err, "list models")
	page, err := p.models.List(ctx, &genai.ListModelsConfig{PageSize: 1000})
	seen := map[string]bool{}
	for n := 0; ; n++ {
		if err != nil {
			return nil, callError(ctx, "list models", err)
		}
		for _, m := range page.Items {
			if m == nil || m.Name == "" {
				continue
			}
			out = append(out, llm.Model{
				Name:          strings.TrimPrefix(m.Name, "models/"),
				ContextLength: int(m.InputTokenLimit),
			})
		}
		tok := page.NextPageToken
		if tok == "" {
			return out, nil
		}
		if seen[tok] || n+1 >= maxModelPages {
			return nil, malformed("list models: the server keeps sending more pages", nil)
		}
		seen[tok] = true
		page, err = page.Next(ctx)
		if errors.Is(err, genai.ErrPageDone) {
			return out, nil
		}
	}
}

// Embed embeds texts with model (DefaultEmbedModel when empty), in batches.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) (out [][]float32, err error) {
	defer guard(&err, "embed")
	if model == "" {
		model = DefaultEmbedModel
	}
	if err := validModel(model); err != nil {
		return nil, err
	}
	out = make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += maxEmbedBatch {
		batch := texts[start:min(start+maxEmbedBatch, len(texts))]
		contents := make([]*genai.Content, len(batch))
		for i, t := range batch {
			contents[i] = &genai.Content{Parts: []*genai.Part{{Text: t}}}
		}
		resp, err := p.models.EmbedContent(ctx, model, contents, nil)
		if err != nil {
			return nil, callError(ctx, "embed", err)
		}
		if resp == nil || len(resp.Embeddings) != len(batch) {
			got := 0
			if resp != nil {
				got = len(resp.Embeddings)
			}
			return nil, malformed(fmt.Sprintf("embed: %d embeddings for %d texts", got, len(batch)), nil)
		}
		for i, e := range resp.Embeddings {
			if e == nil || len(e.Values) == 0 {
				return nil, malformed(fmt.Sprintf("embed: empty embedding for text %d", start+i), nil)
			}
			out = append(out, e.Values)
		}
	}
	return out, nil
}

// validModel refuses names the SDK would refuse with an unclassified error.
func validModel(model string) error {
	if model == "" || strings.ContainsAny(model, "?&# \t\r\n") || strings.Contains(model, "..") {
		return badRequest(fmt.Sprintf("invalid model name %q", model), nil)
	}
	return nil
}

// guard turns a panic inside the SDK (which type-asserts the server's JSON)
// into a Malformed error.
func guard(err *error, op string) {
	if r := recover(); r != nil {
		*err = malformed(fmt.Sprintf("%s: unreadable answer: %v", op, r), nil)
	}
}

func badRequest(msg string, err error) *llm.Error {
	return &llm.Error{Provider: name, Kind: llm.BadRequest, Message: msg, Err: err}
}

func malformed(msg string, err error) *llm.Error {
	return &llm.Error{Provider: name, Kind: llm.Malformed, Message: msg, Err: err}
}

// callError classifies a failed call: API errors by their status, the
// caller's cancellation and deadlines as such, the rest by llm.Classify
// (refused connections are Unreachable, unreadable data Malformed).
func callError(ctx context.Context, op string, err error) error {
	var le *llm.Error
	if errors.As(err, &le) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return llm.Classify(name, fmt.Errorf("%s: %w", op, cerr))
	}
	var ae genai.APIError
	var aep *genai.APIError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &aep) && aep != nil:
		ae = *aep
	default:
		return llm.Classify(name, fmt.Errorf("%s: %w", op, err))
	}
	status := ae.Code
	if status == 0 {
		status = rpcStatus[ae.Status]
	}
	msg := ae.Message
	if msg == "" {
		msg = ae.Status
	}
	e := llm.StatusError(name, status, op+": "+truncate(msg, 1000), err)
	e.RetryAfter = retryDelay(ae.Details)
	return e
}

// rpcStatus gives the HTTP status of the gRPC status names errors carry
// when they come without a code (in the middle of a stream).
var rpcStatus = map[string]int{
	"INVALID_ARGUMENT":    400,
	"FAILED_PRECONDITION": 400,
	"OUT_OF_RANGE":        400,
	"UNAUTHENTICATED":     401,
	"PERMISSION_DENIED":   403,
	"NOT_FOUND":           404,
	"ALREADY_EXISTS":      409,
	"ABORTED":             409,
	"RESOURCE_EXHAUSTED":  429,
	"CANCELLED":           499,
	"INTERNAL":            500,
	"UNKNOWN":             500,
	"DATA_LOSS":           500,
	"UNIMPLEMENTED":       501,
	"UNAVAILABLE":         503,
	"DEADLINE_EXCEEDED":   504,
}

// retryDelay reads google.rpc.RetryInfo from an error's details, which is
// how Gemini says when to try again after a 429.
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		t, _ := d["@type"].(string)
		if !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if dur, err := time.ParseDuration(s); err == nil && dur > 0 {
			return dur
		}
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// signatures remembers the thought signatures of recent function calls, by
// call ID, name and canonical arguments, forgetting the oldest beyond a
// bound.
type signatures struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string
}

const maxSignatures = 4096

func sigKey(id, name string, args []byte) string {
	return id + "\x00" + name + "\x00" + string(args)
}

func (s *signatures) put(key string, sig []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	if _, ok := s.m[key]; !ok {
		s.order = append(s.order, key)
	}
	s.m[key] = append([]byte(nil), sig...)
	for len(s.order) > maxSignatures {
		delete(s.m, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *signatures) get(key string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// quietBodies wraps the transport so that a failure reading a streamed
// response body reaches the SDK as the end of the body and Chat as the
// error it was: the SDK reports such failures through the standard logger
// (a line on stderr each time a narration is interrupted) before returning
// them. Only requests whose context carries a readErr slot, that is
// streams, are affected.
type quietBodies struct{ base http.RoundTripper }

func (q quietBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := q.base.RoundTrip(r)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	if slot, ok := r.Context().Value(readErrKey{}).(*readErr); ok {
		resp.Body = &quietBody{ReadCloser: resp.Body, slot: slot}
	}
	return resp, nil
}

type quietBody struct {
	io.ReadCloser
	slot *readErr
}

func (b *quietBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.slot.set(err)
		return n, io.EOF
	}
	return n, err
}

type readErrKey struct{}

// readErr holds the first body read failure of one call.
type readErr struct {
	mu  sync.Mutex
	err error
}

func withReadErr(ctx context.Context) (context.Context, *readErr) {
	slot := &readErr{}
	return context.WithValue(ctx, readErrKey{}, slot), slot
}

func (r *readErr) set(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *readErr) get() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
