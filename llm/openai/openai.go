package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	sdk "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"

	"github.com/hearth-rpg/hearth/llm"
)

// DefaultBaseURL is OpenAI's own API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider talks to one OpenAI-compatible server. It is safe for
// concurrent use.
type Provider struct {
	name   string
	apiKey string // only to scrub it from server messages

	tools toolCache // the tools' JSON, encoded once

	// post sends chat requests, with the body encoded here, through an
	// SDK client with only opts: the chat service would also encode its
	// empty typed parameters for every chat. Only the method is kept:
	// a field of type sdk.Client would make every service the SDK has
	// part of the binary (3 MB), through the Provider's type.
	post       func(ctx context.Context, path string, params, res any, opts ...option.RequestOption) error
	opts       []option.RequestOption
	models     sdk.ModelService
	embeddings sdk.EmbeddingService
}

var _ llm.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*config)

type config struct {
	name   string
	client *http.Client
}

// WithHTTPClient sets the HTTP client (proxies, transport). The default is
// http.DefaultClient. A Timeout on the client bounds a whole streamed
// reply, not just its start; a context deadline is usually the better
// limit.
func WithHTTPClient(c *http.Client) Option {
	return func(cfg *config) { cfg.client = c }
}

// WithName sets the name the provider reports and puts in its errors, such
// as "openrouter" or "vllm". The default is "openai".
func WithName(name string) Option {
	return func(cfg *config) { cfg.name = name }
}

// New returns a provider for the server at baseURL (the URL that
// "/chat/completions" is relative to, such as http://localhost:8000/v1);
// an empty baseURL means DefaultBaseURL. An empty apiKey sends no
// Authorization header, which local servers accept.
//
// Unlike the SDK's own client, the provider reads no OPENAI_*
// environment variables: a key meant for OpenAI is never sent to another
// server.
func New(baseURL, apiKey string, opts ...Option) (*Provider, error) {
	cfg := config{name: "openai", client: http.DefaultClient}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.name == "" {
		cfg.name = "openai"
	}
	if cfg.client == nil {
		cfg.client = http.DefaultClient
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: base URL is not a URL", cfg.name)
	}
	// The URL is not quoted in these errors: it may hold credentials.
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL must be an absolute http or https URL", cfg.name)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s: base URL must not have a query or fragment", cfg.name)
	}

	p := &Provider{name: cfg.name, apiKey: apiKey}
	ro := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(u.String(), "/") + "/"),
		option.WithHTTPClient(cfg.client),
		option.WithMaxRetries(0), // Hearth retries in its own wrapper
		option.WithMiddleware(p.checkStatus),
	}
	if apiKey != "" {
		ro = append(ro, option.WithAPIKey(apiKey))
	}
	// Clipped: every SDK call appends its own options to this slice
	// (append(r.Options[:], opts...)), and with spare capacity concurrent
	// calls would write into the same array and swap their responses.
	ro = slices.Clip(ro)
	// The services are built directly rather than through sdk.NewClient,
	// which would add OPENAI_API_KEY, OPENAI_ORG_ID and the like from the
	// environment to every request.
	p.opts = ro
	p.post = (&sdk.Client{Options: ro}).Post
	p.models = sdk.NewModelService(ro...)
	p.embeddings = sdk.NewEmbeddingService(ro...)
	return p, nil
}

// Name returns the provider's name: "openai" unless WithName said
// otherwise.
func (p *Provider) Name() string { return p.name }
