package config

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the server configuration. Field tags are the key names in
// files and, upper-cased and joined by "__", in environment variables.
type Config struct {
	Server    Server    `toml:"server"`
	Storage   Storage   `toml:"storage"`
	Database  Database  `toml:"database"`
	Models    Models    `toml:"models"`
	Assistant Assistant `toml:"assistant"`
	FVTT      FVTT      `toml:"fvtt"`
	MCP       MCP       `toml:"mcp"`
	Images    Images    `toml:"images"`
	Limits    Limits    `toml:"limits"`
	Log       Log       `toml:"log"`
}

// Server is the HTTP listener.
type Server struct {
	Host string `toml:"host"`
	Port int    `toml:"port"` // 0 picks a free port
	// PublicURL is the base URL clients reach the server at (behind a proxy,
	// in a container); empty means clients are told nothing, never localhost.
	PublicURL         string        `toml:"public_url"`
	CORSOrigins       []string      `toml:"cors_origins"` // e.g. the Foundry VTT origin
	MaxBodyBytes      int64         `toml:"max_body_bytes"`
	ReadHeaderTimeout time.Duration `toml:"read_header_timeout"`
	ShutdownTimeout   time.Duration `toml:"shutdown_timeout"`
	// TrustedProxies are the CIDRs (or single addresses) of reverse proxies
	// whose X-Forwarded-For is believed: a request from one of them counts
	// as coming from the right-most address in that header not itself a
	// trusted proxy. Empty: the peer is the client, the header is ignored.
	TrustedProxies []string `toml:"trusted_proxies"`
	// SessionIdle ends a browser session (POST /api/session) unused this
	// long; SessionMax ends any session this long after sign-in, however
	// busy. The session cookie is HttpOnly and SameSite=Strict.
	SessionIdle time.Duration `toml:"session_idle"`
	SessionMax  time.Duration `toml:"session_max"`
}

// Storage is where data lives.
type Storage struct {
	DataDir string `toml:"data_dir"` // empty: the CLI's default data directory
}

// Database chooses where the stores keep their tables.
type Database struct {
	// URL is "" for SQLite in the data directory (DATA/hearth.db), or
	// postgres://user:password@host:port/name for PostgreSQL. Its password
	// is masked wherever it is shown.
	URL DatabaseURL `toml:"url" secret:"password"`
	// LeaseTTL is how long a server's hold on a game or an ingest job
	// lasts unless renewed (PostgreSQL only, with several servers): when a
	// server dies, another takes its games and jobs over within LeaseTTL
	// plus LeasePoll, how often servers look for them.
	LeaseTTL  time.Duration `toml:"lease_ttl"`
	LeasePoll time.Duration `toml:"lease_poll"`
}

// DatabaseURL is a database URL whose password must never be printed or
// logged: every way of formatting it masks the password (MaskURL).
// Convert with string(u) where the value is really needed.
type DatabaseURL string

func (u DatabaseURL) String() string { return MaskURL(string(u)) }

// GoString masks %#v too.
func (u DatabaseURL) GoString() string { return strconv.Quote(u.String()) }

// LogValue masks the password in slog output.
func (u DatabaseURL) LogValue() slog.Value { return slog.StringValue(u.String()) }

// MarshalText masks the password in JSON, TOML and YAML encoders.
func (u DatabaseURL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// Postgres reports whether the URL names a PostgreSQL database.
func (u DatabaseURL) Postgres() bool {
	return strings.HasPrefix(string(u), "postgres://") || strings.HasPrefix(string(u), "postgresql://")
}

// MaskURL returns a database URL with its password, in the user part or
// a password parameter, replaced by "****". A string that is not a URL is
// masked whole, since where its password is cannot be told.
func MaskURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return mask
	}
	if p, ok := u.User.Password(); ok && p != "" {
		u.User = url.UserPassword(u.User.Username(), mask)
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", mask)
		u.RawQuery = q.Encode()
	}
	return strings.Replace(u.String(), url.QueryEscape(mask), mask, -1)
}

// Models chooses a model per role; key names match the CLI's model
// configuration (cmd/hearth), with the roles directly under [models].
type Models struct {
	Pipeline       string        `toml:"pipeline"`        // agentic, multipass or skills; empty: the campaign's choice
	Prompts        string        `toml:"prompts"`         // directory of prompt overrides
	PromptVersions string        `toml:"prompt_versions"` // e.g. narrator@1,interpreter@1
	ContextBudget  int           `toml:"context_budget"`  // tokens; 0: the default
	Timeout        time.Duration `toml:"timeout"`         // per model call

	Narrator    Role `toml:"narrator"`
	Interpreter Role `toml:"interpreter"`
	Planner     Role `toml:"planner"`
	Summariser  Role `toml:"summariser"`
	Embedder    Role `toml:"embedder"`
	Assistant   Role `toml:"assistant"`
	Vision      Role `toml:"vision"`
}

// Role is one role's model.
type Role struct {
	Provider   string `toml:"provider"` // offline, ollama, openai, anthropic, gemini; empty: the narrator's
	Model      string `toml:"model"`
	BaseURL    string `toml:"base_url"`
	APIKeyEnv  string `toml:"api_key_env"`  // environment variable holding the key
	APIKeyFile string `toml:"api_key_file"` // file holding the key
	APIKey     Secret `toml:"api_key" secret:"true"`
	// ContextWindow is the context the model is asked to hold, in tokens
	// (Ollama's num_ctx); not read from the file: the application sets it
	// from the context budget. 0 leaves the server's default.
	ContextWindow int `toml:"-"`
}

// Images configures scene illustration (seed 002 v2.1). It is off
// until a provider is set; the key is found as a model role's is.
type Images struct {
	Provider   string `toml:"provider"` // "" (off), openai (or any server speaking its Images API), gemini (Imagen)
	Model      string `toml:"model"`    // empty: ImageModels' default for the provider
	BaseURL    string `toml:"base_url"`
	APIKeyEnv  string `toml:"api_key_env"`  // default OPENAI_API_KEY or GEMINI_API_KEY
	APIKeyFile string `toml:"api_key_file"` // file holding the key
	APIKey     Secret `toml:"api_key" secret:"true"`
	Size       string `toml:"size"` // WIDTHxHEIGHT, e.g. 1024x1024; empty: the provider's default
}

// ImageModels are the default image model of each image provider.
var ImageModels = map[string]string{"openai": "gpt-image-1", "gemini": "imagen-3.0-generate-002"}

// On reports whether image generation is configured.
func (i Images) On() bool { return i.Provider != "" }

// Role is the image provider as a model role, for finding its key.
func (i Images) Role() Role {
	r := Role{Provider: i.Provider, Model: i.Model, BaseURL: i.BaseURL, APIKeyEnv: i.APIKeyEnv, APIKeyFile: i.APIKeyFile, APIKey: i.APIKey}
	if r.Model == "" {
		r.Model = ImageModels[i.Provider]
	}
	return r
}

// Secret is a value that must never be printed or logged: every way of
// formatting it shows "****". Convert with string(s) where the value is
// really needed.
type Secret string

const mask = "****"

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return mask
}

// GoString masks %#v too.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// LogValue masks the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText masks the secret in JSON, TOML and YAML encoders.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Assistant holds the GM assistant's loop limits and conversation cleanup
// (seed 000 §2.4.5, §2.4.6).
type Assistant struct {
	ToolCallPauseThreshold int           `toml:"tool_call_pause_threshold"` // tool calls before asking to continue
	MaxConsecutiveInternal int           `toml:"max_consecutive_internal"`  // internal tool calls without model output
	TimePauseThreshold     time.Duration `toml:"time_pause_threshold"`      // time before asking to continue
	HardTimeout            time.Duration `toml:"hard_timeout"`              // no continuing past this
	ExternalToolTimeout    time.Duration `toml:"external_tool_timeout"`     // waiting for a client's tool result
	ConversationTTL        time.Duration `toml:"conversation_ttl"`          // idle conversations older than this are removed
	CleanupInterval        time.Duration `toml:"cleanup_interval"`
	MaxPerUser             int           `toml:"max_per_user"` // 0: unlimited
	System                 string        `toml:"system"`       // rules system hint, e.g. mgt2e; also picks the bundled packs a chat searches
	// Library names bundled packs every chat searches (e.g. ["srd51"]);
	// otherwise a bundled pack is searched only when a chat's system is
	// its own (srd51 for dnd5e) or the request's "library" names it.
	Library []string `toml:"library"`
}

// FVTT is Foundry VTT integration.
type FVTT struct {
	// AssetsPath is Foundry's Data/assets directory; when set and writable,
	// images are copied there instead of shuttled through the API.
	AssetsPath string `toml:"assets_path"`
}

// MCP is the Model Context Protocol endpoint.
type MCP struct {
	Path    string `toml:"path"`
	SSEPath string `toml:"sse_path"`
	Enabled bool   `toml:"enabled"`
}

// Limits bound what one client can ask of the server.
type Limits struct {
	MaxDocumentSizeBytes int64 `toml:"max_document_size_bytes"`
	// RateLimitRPM and RateLimitBurst bound, per key, the requests that
	// make a model work: chat, continue, search, uploads, new characters,
	// image generation.
	RateLimitRPM   int `toml:"rate_limit_rpm"`
	RateLimitBurst int `toml:"rate_limit_burst"`
	// APIRPM bounds all requests per key, those above included, with a
	// tenth of it at once: a browser page fetches several resources a
	// view.
	APIRPM int `toml:"api_rpm"`
	// MCP clients and tool-result posts have budgets of their own, per key
	// and minute, with a tenth of that at once: an agent makes dozens of
	// small requests a minute and must not spend the chat budget.
	MCPRPM        int `toml:"mcp_rpm"`
	ToolResultRPM int `toml:"tool_result_rpm"`
}

// Log is the server's structured log.
type Log struct {
	Level  string `toml:"level"`  // debug, info, warn, error
	Format string `toml:"format"` // json or text
}

// Default returns the compiled-in defaults.
func Default() *Config {
	return &Config{
		Database: Database{LeaseTTL: 10 * time.Second, LeasePoll: 2 * time.Second},
		Server: Server{
			// Loopback, not the seed's 0.0.0.0: a fresh install must not
			// expose an unauthenticated game server to the network; binding
			// wider is a deliberate choice (host = "0.0.0.0").
			Host:              "127.0.0.1",
			Port:              8080,
			CORSOrigins:       []string{},
			TrustedProxies:    []string{},
			MaxBodyBytes:      1 << 20,
			ReadHeaderTimeout: 10 * time.Second,
			ShutdownTimeout:   30 * time.Second,
			SessionIdle:       12 * time.Hour,
			SessionMax:        7 * 24 * time.Hour,
		},
		Models: Models{Timeout: 120 * time.Second},
		Assistant: Assistant{
			ToolCallPauseThreshold: 10,
			MaxConsecutiveInternal: 5,
			TimePauseThreshold:     60 * time.Second,
			HardTimeout:            300 * time.Second,
			ExternalToolTimeout:    30 * time.Second,
			ConversationTTL:        7 * 24 * time.Hour,
			CleanupInterval:        24 * time.Hour,
			MaxPerUser:             100,
			Library:                []string{},
		},
		MCP:    MCP{Path: "/mcp", SSEPath: "/mcp/sse", Enabled: true},
		Limits: Limits{MaxDocumentSizeBytes: 100 << 20, RateLimitRPM: 60, RateLimitBurst: 10, APIRPM: 1200, MCPRPM: 600, ToolResultRPM: 600},
		Log:    Log{Level: "info", Format: "json"},
	}
}

// RoleNames lists the model roles in a stable order.
func RoleNames() []string {
	return []string{"narrator", "interpreter", "planner", "summariser", "embedder", "assistant", "vision"}
}

// Providers lists the known model providers.
func Providers() []string {
	return []string{"offline", "ollama", "openai", "anthropic", "gemini"}
}

func (m *Models) role(name string) *Role {
	switch name {
	case "narrator":
		return &m.Narrator
	case "interpreter":
		return &m.Interpreter
	case "planner":
		return &m.Planner
	case "summariser":
		return &m.Summariser
	case "embedder":
		return &m.Embedder
	case "assistant":
		return &m.Assistant
	case "vision":
		return &m.Vision
	}
	return nil
}

// Role returns the effective model of a role. The narrator's provider
// defaults to offline; vision stands alone (empty when not configured);
// another role without a provider uses the
// narrator's, and while it shares the narrator's provider its empty fields
// come from the narrator too (so setting only a smaller model for the
// summariser works). ok is false for an unknown role name.
func (m Models) Role(name string) (r Role, ok bool) {
	p := m.role(name)
	if p == nil {
		return Role{}, false
	}
	n := m.Narrator
	if n.Provider == "" {
		n.Provider = "offline"
	}
	r = *p
	if name == "narrator" {
		return n, true
	}
	if name == "vision" {
		// A text model cannot see images: vision is set up on its own or
		// not at all.
		return r, true
	}
	if r.Provider == "" {
		r.Provider = n.Provider
	}
	if r.Provider == n.Provider {
		for _, f := range []struct{ to, from *string }{
			{&r.Model, &n.Model}, {&r.BaseURL, &n.BaseURL},
			{&r.APIKeyEnv, &n.APIKeyEnv}, {&r.APIKeyFile, &n.APIKeyFile},
		} {
			if *f.to == "" {
				*f.to = *f.from
			}
		}
		if r.APIKey == "" && r.APIKeyFile == "" {
			r.APIKey = n.APIKey
		}
	}
	return r, true
}

// Handler returns a slog handler writing to w in the configured format and
// level; Validate has checked both.
func (l Log) Handler(w io.Writer) slog.Handler {
	var level slog.Level
	_ = level.UnmarshalText([]byte(l.Level)) // unknown: info
	opts := &slog.HandlerOptions{Level: level}
	if l.Format == "text" {
		return slog.NewTextHandler(w, opts)
	}
	return slog.NewJSONHandler(w, opts)
}

// KeyError is a problem with one configuration key. Source is the file or
// environment variable the value came from; empty for a value set in code.
type KeyError struct {
	Key     string
	Source  string
	Problem string
}

func (e *KeyError) Error() string {
	src := e.Source
	if src == "" {
		src = "config"
	}
	return fmt.Sprintf("%s: %s: %s", src, e.Key, e.Problem)
}

// Validate reports every invalid value, each as a *KeyError, joined.
func (c *Config) Validate() error {
	var errs []error
	for _, e := range c.problems() {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func (c *Config) problems() []*KeyError {
	var ps []*KeyError
	bad := func(key, format string, args ...any) {
		ps = append(ps, &KeyError{Key: key, Problem: fmt.Sprintf(format, args...)})
	}
	positive := func(key string, n int64) {
		if n <= 0 {
			bad(key, "must be positive, got %d", n)
		}
	}
	positiveDur := func(key string, d time.Duration) {
		if d <= 0 {
			bad(key, "must be a positive duration such as \"30s\", got %q", d.String())
		}
	}
	oneOf := func(key, v string, allowed ...string) {
		if !slices.Contains(allowed, v) {
			bad(key, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
		}
	}

	s := c.Server
	if s.Host != "" {
		if _, _, err := net.SplitHostPort(s.Host); err == nil || strings.ContainsAny(s.Host, "/[] ") {
			bad("server.host", "must be a host name or IP address without port or brackets (the port is server.port), got %q", s.Host)
		}
	}
	if u := c.Database.URL; u != "" {
		// Never quote the value: it may hold a password.
		if pu, err := url.Parse(string(u)); err != nil || !u.Postgres() || pu.Host == "" {
			bad("database.url", "must be empty (SQLite in the data directory) or postgres://user:password@host:port/name")
		}
	}
	if d := c.Database; d.LeaseTTL <= 0 || d.LeasePoll <= 0 || d.LeasePoll > d.LeaseTTL/2 {
		bad("database.lease_poll", "must be positive and at most half of database.lease_ttl (%v), got %v", d.LeaseTTL, d.LeasePoll)
	}
	if s.Port < 0 || s.Port > 65535 {
		bad("server.port", "must be between 0 and 65535, got %d", s.Port)
	}
	if s.PublicURL != "" {
		if err := checkURL(s.PublicURL, true); err != nil {
			bad("server.public_url", "%v", err)
		}
	}
	for _, o := range s.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			bad("server.cors_origins", "%v", err)
		}
	}
	for _, p := range s.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				bad("server.trusted_proxies", "want CIDRs such as \"10.0.0.0/8\" or addresses, got %q", p)
			}
		}
	}
	positive("server.max_body_bytes", s.MaxBodyBytes)
	positiveDur("server.read_header_timeout", s.ReadHeaderTimeout)
	positiveDur("server.shutdown_timeout", s.ShutdownTimeout)
	positiveDur("server.session_idle", s.SessionIdle)
	positiveDur("server.session_max", s.SessionMax)
	if s.SessionIdle > s.SessionMax && s.SessionMax > 0 {
		bad("server.session_idle", "must not exceed server.session_max (%v), got %v", s.SessionMax, s.SessionIdle)
	}

	m := c.Models
	oneOf("models.pipeline", m.Pipeline, "", "agentic", "multipass", "skills")
	if m.ContextBudget < 0 {
		bad("models.context_budget", "must be 0 (the default) or positive, got %d", m.ContextBudget)
	}
	positiveDur("models.timeout", m.Timeout)
	for _, name := range RoleNames() {
		r := m.role(name)
		key := "models." + name
		if r.Provider != "" {
			oneOf(key+".provider", r.Provider, Providers()...)
		}
		if r.BaseURL != "" {
			if err := checkURL(r.BaseURL, false); err != nil {
				bad(key+".base_url", "%v", err)
			}
		}
		if r.APIKey != "" && r.APIKeyFile != "" {
			bad(key+".api_key", "set either api_key or api_key_file, not both")
		}
	}

	im := c.Images
	oneOf("images.provider", im.Provider, "", "openai", "gemini")
	if im.BaseURL != "" {
		if err := checkURL(im.BaseURL, false); err != nil {
			bad("images.base_url", "%v", err)
		}
	}
	if im.APIKey != "" && im.APIKeyFile != "" {
		bad("images.api_key", "set either api_key or api_key_file, not both")
	}
	if im.Size != "" {
		var w, h int
		if n, err := fmt.Sscanf(im.Size, "%dx%d", &w, &h); err != nil || n != 2 || w <= 0 || h <= 0 || fmt.Sprintf("%dx%d", w, h) != im.Size {
			bad("images.size", "must be WIDTHxHEIGHT such as \"1024x1024\", got %q", im.Size)
		}
	}

	a := c.Assistant
	positive("assistant.tool_call_pause_threshold", int64(a.ToolCallPauseThreshold))
	positive("assistant.max_consecutive_internal", int64(a.MaxConsecutiveInternal))
	positiveDur("assistant.time_pause_threshold", a.TimePauseThreshold)
	positiveDur("assistant.hard_timeout", a.HardTimeout)
	if a.HardTimeout > 0 && a.HardTimeout < a.TimePauseThreshold {
		bad("assistant.hard_timeout", "must not be shorter than assistant.time_pause_threshold (%s), got %s", a.TimePauseThreshold, a.HardTimeout)
	}
	positiveDur("assistant.external_tool_timeout", a.ExternalToolTimeout)
	positiveDur("assistant.conversation_ttl", a.ConversationTTL)
	positiveDur("assistant.cleanup_interval", a.CleanupInterval)
	if a.MaxPerUser < 0 {
		bad("assistant.max_per_user", "must be 0 (unlimited) or positive, got %d", a.MaxPerUser)
	}

	for _, p := range []struct{ key, v string }{{"mcp.path", c.MCP.Path}, {"mcp.sse_path", c.MCP.SSEPath}} {
		if !strings.HasPrefix(p.v, "/") || strings.ContainsAny(p.v, "?# ") {
			bad(p.key, "must be a URL path starting with '/', got %q", p.v)
		}
	}
	if c.MCP.Path == c.MCP.SSEPath {
		bad("mcp.sse_path", "must differ from mcp.path (%q)", c.MCP.Path)
	}

	positive("limits.max_document_size_bytes", c.Limits.MaxDocumentSizeBytes)
	positive("limits.rate_limit_rpm", int64(c.Limits.RateLimitRPM))
	positive("limits.rate_limit_burst", int64(c.Limits.RateLimitBurst))
	positive("limits.api_rpm", int64(c.Limits.APIRPM))
	positive("limits.mcp_rpm", int64(c.Limits.MCPRPM))
	positive("limits.tool_result_rpm", int64(c.Limits.ToolResultRPM))

	oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	oneOf("log.format", c.Log.Format, "json", "text")
	return ps
}

// checkURL accepts an absolute http(s) URL; a public URL must also be a
// plain base without query or fragment.
func checkURL(s string, base bool) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL such as \"https://hearth.example.org\", got %q", s)
	}
	if base && (u.RawQuery != "" || u.Fragment != "") {
		return fmt.Errorf("must be a base URL without query or fragment, got %q", s)
	}
	return nil
}

// checkOrigin accepts "*" or a browser origin: scheme://host[:port].
func checkOrigin(s string) error {
	if s == "*" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("each entry must be \"*\" or an origin such as \"http://localhost:30000\" (scheme, host, optional port, no path), got %q", s)
	}
	return nil
}
