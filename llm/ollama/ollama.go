package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hearth-rpg/hearth/llm"
)

// DefaultBaseURL is where Ollama listens unless told otherwise.
const DefaultBaseURL = "http://127.0.0.1:11434"

const name = "ollama"

// Provider talks to one Ollama server. It is safe for concurrent use.
type Provider struct {
	client *api.Client
	model  string
	window int // num_ctx sent with every chat; 0: the server's default
}

var _ llm.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*config)

type config struct {
	httpClient *http.Client
	model      string
	window     int
}

// WithHTTPClient sets the HTTP client used for every call. The client is
// copied; its Transport (http.DefaultTransport when nil) is wrapped so that
// the status and Retry-After header of failed calls can be reported.
func WithHTTPClient(c *http.Client) Option {
	return func(cfg *config) { cfg.httpClient = c }
}

// WithModel sets the model used when a Request (or Embed) names none.
func WithModel(model string) Option {
	return func(cfg *config) { cfg.model = model }
}

// WithContextWindow asks the server to hold n tokens of context
// (num_ctx) on every chat. Ollama's default (2,048 or 4,096 tokens by
// version) silently cuts longer prompts from the front, system prompt
// first; the same n on every call keeps the model from being reloaded.
func WithContextWindow(n int) Option {
	return func(cfg *config) { cfg.window = n }
}

// New returns a Provider for the server at baseURL (DefaultBaseURL when
// empty; "host:port" without a scheme means http).
func New(baseURL string, opts ...Option) (*Provider, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if !strings.Contains(baseURL, "://") {
		baseURL = "http://" + baseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("ollama: base URL %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("ollama: base URL %q: want http(s)://host[:port]", baseURL)
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
	hc.Transport = recorder{base: base}
	return &Provider{client: api.NewClient(u, hc), model: cfg.model, window: cfg.window}, nil
}

// Name returns "ollama".
func (*Provider) Name() string { return name }

// Chat sends req to /api/chat, streaming text and tool calls through fn.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	if model == "" {
		return nil, &llm.Error{Provider: name, Kind: llm.BadRequest, Message: "no model given"}
	}
	areq, err := chatRequest(model, req, p.window)
	if err != nil {
		return nil, &llm.Error{Provider: name, Kind: llm.BadRequest, Message: "building chat request: " + err.Error(), Err: err}
	}

	ctx, info := withCallInfo(ctx)
	resp := &llm.Response{Message: llm.Message{Role: llm.Assistant}}
	var (
		content strings.Builder
		done    bool
		fnErr   error
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
	err = p.client.Chat(ctx, areq, func(r api.ChatResponse) error {
		if done {
			return errors.New("data after the final chunk")
		}
		if r.Message.Content != "" {
			content.WriteString(r.Message.Content)
			if err := emit(llm.Chunk{Content: r.Message.Content}); err != nil {
				return err
			}
		}
		for _, tc := range r.Message.ToolCalls {
			call, err := toolCall(tc, len(resp.Message.ToolCalls)+1)
			if err != nil {
				return err
			}
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, call)
			if err := emit(llm.Chunk{ToolCall: &call}); err != nil {
				return err
			}
		}
		if r.Done {
			done = true
			resp.StopReason = r.DoneReason
			resp.Usage = llm.Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
		}
		return nil
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if err != nil {
		return nil, callError(ctx, info, fmt.Errorf("chat: %w", err))
	}
	if !done {
		// The client stops quietly when the body ends early, when reading
		// it fails (a cancelled context included) and when an HTTP error
		// carries no body.
		return nil, callError(ctx, info, errors.New("chat: stream ended before the final chunk"))
	}
	resp.Message.Content = content.String()
	return resp, nil
}

// Models lists the server's models (/api/tags) with the context length,
// parameter size and quantization /api/show reports for each.
func (p *Provider) Models(ctx context.Context) ([]llm.Model, error) {
	ctx, info := withCallInfo(ctx)
	list, err := p.client.List(ctx)
	if err != nil {
		return nil, callError(ctx, info, fmt.Errorf("list models: %w", err))
	}
	out := make([]llm.Model, 0, len(list.Models))
	for _, m := range list.Models {
		id := m.Model
		if id == "" {
			id = m.Name
		}
		show, err := p.client.Show(ctx, &api.ShowRequest{Model: id})
		if err != nil {
			return nil, callError(ctx, info, fmt.Errorf("show model %s: %w", id, err))
		}
		details := show.Details
		if details.ParameterSize == "" {
			details.ParameterSize = m.Details.ParameterSize
		}
		if details.QuantizationLevel == "" {
			details.QuantizationLevel = m.Details.QuantizationLevel
		}
		n := m.Name
		if n == "" {
			n = id
		}
		out = append(out, llm.Model{
			Name:          n,
			ContextLength: contextLength(show.ModelInfo),
			ParameterSize: details.ParameterSize,
			Quantization:  details.QuantizationLevel,
		})
	}
	return out, nil
}

// Embed returns one embedding per text from /api/embed.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if model == "" {
		model = p.model
	}
	if model == "" {
		return nil, &llm.Error{Provider: name, Kind: llm.BadRequest, Message: "no model given"}
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	ctx, info := withCallInfo(ctx)
	resp, err := p.client.Embed(ctx, &api.EmbedRequest{Model: model, Input: texts})
	if err != nil {
		return nil, callError(ctx, info, fmt.Errorf("embed: %w", err))
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, &llm.Error{Provider: name, Kind: llm.Malformed,
			Message: fmt.Sprintf("embed: %d embeddings for %d texts", len(resp.Embeddings), len(texts))}
	}
	return resp.Embeddings, nil
}

// chatRequest converts req into the SDK's request.
func chatRequest(model string, req llm.Request, window int) (*api.ChatRequest, error) {
	stream := true
	out := &api.ChatRequest{Model: model, Stream: &stream}
	for i, m := range req.Messages {
		if err := m.CheckImages(); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		am := api.Message{Role: string(m.Role), Content: m.Content}
		// Ollama takes the bytes alone, base64 in "images", and finds
		// the format itself.
		for _, im := range m.Images {
			am.Images = append(am.Images, api.ImageData(im.Data))
		}
		switch m.Role {
		case llm.System, llm.User:
		case llm.Assistant:
			for j, tc := range m.ToolCalls {
				args := api.NewToolCallFunctionArguments()
				if raw := strings.TrimSpace(string(tc.Arguments)); raw != "" && raw != "null" {
					if err := json.Unmarshal(tc.Arguments, &args); err != nil {
						return nil, fmt.Errorf("message %d: tool call %s arguments: %w", i, tc.Name, err)
					}
				}
				am.ToolCalls = append(am.ToolCalls, api.ToolCall{
					ID:       tc.ID,
					Function: api.ToolCallFunction{Index: j, Name: tc.Name, Arguments: args},
				})
			}
		case llm.ToolRole:
			am.ToolName = m.Name
			am.ToolCallID = m.ToolCallID
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		out.Messages = append(out.Messages, am)
	}
	for _, t := range req.Tools {
		params := api.ToolFunctionParameters{Type: "object"}
		if raw := strings.TrimSpace(string(t.Parameters)); raw != "" && raw != "null" {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, fmt.Errorf("tool %s parameters: %w", t.Name, err)
			}
		}
		if params.Type == "" {
			params.Type = "object"
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
		out.Tools = append(out.Tools, api.Tool{
			Type:     "function",
			Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	if len(req.Schema) > 0 {
		out.Format = req.Schema
	}
	if req.Temperature != nil || req.MaxTokens > 0 || window > 0 {
		out.Options = map[string]any{}
		if window > 0 {
			out.Options["num_ctx"] = window
		}
		if req.Temperature != nil {
			out.Options["temperature"] = *req.Temperature
		}
		if req.MaxTokens > 0 {
			out.Options["num_predict"] = req.MaxTokens
		}
	}
	return out, nil
}

// toolCall converts one of Ollama's tool calls; n numbers the calls of a
// response from 1 and names the call when Ollama gives it no ID.
func toolCall(tc api.ToolCall, n int) (llm.ToolCall, error) {
	args, err := json.Marshal(tc.Function.Arguments)
	if err != nil {
		return llm.ToolCall{}, fmt.Errorf("tool call %s arguments: %w", tc.Function.Name, err)
	}
	id := tc.ID
	if id == "" {
		id = "call_" + strconv.Itoa(n)
	}
	return llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args}, nil
}

// contextLength reads "<general.architecture>.context_length" from
// /api/show's model_info; 0 when it is missing.
func contextLength(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	if arch != "" {
		if n, ok := toInt(info[arch+".context_length"]); ok {
			return n
		}
	}
	return 0
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), n > 0
	case int:
		return n, n > 0
	case int64:
		return int(n), n > 0
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil && i > 0
	}
	return 0, false
}

// callError turns an error from the SDK into an *llm.Error (or the
// context's error, when the caller gave up).
func callError(ctx context.Context, info *callInfo, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(err, ctxErr) {
			return llm.Classify(name, err)
		}
		return llm.Classify(name, fmt.Errorf("%w (%v)", ctxErr, err))
	}
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &se):
		msg := se.ErrorMessage
		if msg == "" {
			msg = se.Status
		}
		if msg == "" {
			msg = http.StatusText(se.StatusCode)
		}
		e := llm.StatusError(name, se.StatusCode, msg, err)
		e.RetryAfter = info.retryAfter
		return e
	case errors.As(err, &ae):
		msg := ae.Status
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		if ae.SigninURL != "" {
			msg += " (sign in at " + ae.SigninURL + ")"
		}
		return llm.StatusError(name, ae.StatusCode, msg, err)
	case info.status >= http.StatusBadRequest:
		// An HTTP error whose body the client could not turn into one.
		e := llm.StatusError(name, info.status, http.StatusText(info.status), err)
		e.RetryAfter = info.retryAfter
		return e
	}
	return llm.Classify(name, err)
}

// callInfo is what the transport saw of one call's last HTTP response.
// Each call has its own, passed down in the request's context.
type callInfo struct {
	status     int
	retryAfter time.Duration
}

type callInfoKey struct{}

func withCallInfo(ctx context.Context) (context.Context, *callInfo) {
	info := &callInfo{}
	return context.WithValue(ctx, callInfoKey{}, info), info
}

// recorder notes the status and Retry-After header of each response in
// the request's callInfo: the SDK's errors carry neither the header nor,
// for a streamed error without a body, the status.
type recorder struct{ base http.RoundTripper }

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if info, ok := req.Context().Value(callInfoKey{}).(*callInfo); ok && resp != nil {
		info.status = resp.StatusCode
		info.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, err
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
