package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth/gm"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/anthropic"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/llm/gemini"
	"github.com/hearth-rpg/hearth/llm/offline"
	"github.com/hearth-rpg/hearth/llm/ollama"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/prompt"
)

// roleConfig is one role's model, as the config file and flags give it.
type roleConfig struct {
	Provider   string `yaml:"provider"`
	Model      string `yaml:"model"`
	BaseURL    string `yaml:"base_url"`
	APIKeyEnv  string `yaml:"api_key_env"`  // environment variable holding the key
	APIKeyFile string `yaml:"api_key_file"` // file holding the key
	APIKey     string `yaml:"-"`            // the key itself, from the server configuration only
}

// modelConfig is the model configuration: a role per pass, plus how the
// game master runs.
type modelConfig struct {
	Roles    map[string]roleConfig `yaml:"roles"` // narrator, interpreter, planner, summariser, embedder, vision
	Pipeline string                `yaml:"pipeline"`
	Prompts  string                `yaml:"prompts"` // override directory
	Pins     string                `yaml:"prompt_versions"`
	Budget   int                   `yaml:"context_budget"`
	Timeout  time.Duration         `yaml:"timeout"`
}

var roleNames = []string{"narrator", "interpreter", "planner", "summariser", "embedder", "vision"}

// ownRoles never inherit the narrator's model: a text model cannot see
// images, so vision is set up on its own or not at all.
var ownRoles = map[string]bool{"vision": true}

// modelFlags are the flags that choose models.
type modelFlags struct {
	config   string
	role     roleConfig
	pipeline string
	prompts  string
	pins     string
	record   string
	budget   int
	plan     bool
}

func (f *modelFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "model configuration file (default $HEARTH_CONFIG or ~/.config/hearth/config.yaml when present)")
	fs.StringVar(&f.role.Provider, "provider", "", "model provider for the game master: offline, ollama, openai (any OpenAI-compatible server), anthropic, gemini")
	fs.StringVar(&f.role.Model, "model", "", "model name, e.g. llama3.2, gpt-4o-mini, claude-sonnet-4-5, gemini-2.5-flash")
	fs.StringVar(&f.role.BaseURL, "base-url", "", "provider URL (default: the provider's; ollama http://127.0.0.1:11434)")
	fs.StringVar(&f.role.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY)")
	fs.StringVar(&f.role.APIKeyFile, "api-key-file", "", "file holding the API key")
	fs.StringVar(&f.pipeline, "pipeline", "", "turn pipeline: agentic or multipass with a model, or skills (plans of skill invocations, no model needed); default: the campaign's choice, else agentic")
	fs.StringVar(&f.prompts, "prompts", "", "directory of prompt overrides (NAME@VERSION.tmpl)")
	fs.StringVar(&f.pins, "prompt-versions", "", "prompt versions to use, e.g. narrator@1,interpreter@1 (default: the campaign's pins, else the latest)")
	fs.StringVar(&f.record, "record", "", "append every model call to this cassette file, for 'hearth replay --cassette'")
	fs.IntVar(&f.budget, "context-budget", 0, "context packet budget in tokens (default 4000)")
	fs.BoolVar(&f.plan, "plan", false, "run the planner pass in the multipass pipeline")
}

// load reads the config file and applies the flags over its narrator role;
// other roles inherit the narrator's unless configured.
func (f *modelFlags) load(g *globals) (modelConfig, error) {
	var cfg modelConfig
	path, explicit := f.config, f.config != ""
	if path == "" {
		path = os.Getenv("HEARTH_CONFIG")
		explicit = path != ""
	}
	if path == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			path = filepath.Join(dir, "hearth", "config.yaml")
		}
	}
	if path != "" {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			dec := yaml.NewDecoder(strings.NewReader(string(b)))
			dec.KnownFields(true)
			if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
				return cfg, g.fail("cli.models.bad_config", map[string]any{"File": path}, err)
			}
		case explicit || !errors.Is(err, os.ErrNotExist):
			return cfg, g.fail("cli.models.read_config", nil, err)
		}
	}
	if cfg.Roles == nil {
		cfg.Roles = map[string]roleConfig{}
	}
	for name := range cfg.Roles {
		if !contains(roleNames, name) {
			return cfg, errors.New(g.t("cli.models.unknown_role", map[string]any{"File": path, "Role": strconv.Quote(name), "Roles": strings.Join(roleNames, ", ")}))
		}
	}
	n := cfg.Roles["narrator"]
	if f.role.Provider != "" {
		n = roleConfig{Provider: f.role.Provider}
	}
	for _, set := range []struct {
		to *string
		v  string
	}{{&n.Model, f.role.Model}, {&n.BaseURL, f.role.BaseURL},
		{&n.APIKeyEnv, f.role.APIKeyEnv}, {&n.APIKeyFile, f.role.APIKeyFile}} {
		if set.v != "" {
			*set.to = set.v
		}
	}
	if n.Provider == "" {
		n.Provider = "offline"
	}
	cfg.Roles["narrator"] = n
	for _, name := range roleNames[1:] {
		if _, ok := cfg.Roles[name]; !ok && !ownRoles[name] {
			cfg.Roles[name] = n
		}
	}
	for _, set := range []struct {
		to *string
		v  string
	}{{&cfg.Pipeline, f.pipeline}, {&cfg.Prompts, f.prompts}, {&cfg.Pins, f.pins}} {
		if set.v != "" {
			*set.to = set.v
		}
	}
	if f.budget > 0 {
		cfg.Budget = f.budget
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	return cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// apiKey reads a role's key; it is never printed or logged.
func (r roleConfig) apiKey() (string, error) {
	if r.APIKey != "" {
		return r.APIKey, nil
	}
	if r.APIKeyFile != "" {
		b, err := os.ReadFile(r.APIKeyFile)
		if err != nil {
			return "", fmt.Errorf("read the API key file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	env := r.APIKeyEnv
	if env == "" {
		env = map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}[r.Provider]
	}
	if env == "" {
		return "", nil
	}
	return os.Getenv(env), nil
}

// endpoint is the URL a role talks to, for messages.
func (r roleConfig) endpoint() string {
	if r.BaseURL != "" {
		return r.BaseURL
	}
	return map[string]string{"ollama": ollama.DefaultBaseURL, "openai": openai.DefaultBaseURL,
		"anthropic": anthropic.DefaultBaseURL, "gemini": "https://generativelanguage.googleapis.com"}[r.Provider]
}

// provider builds a role's provider with timeout and retries.
func (r roleConfig) provider(ctx context.Context, timeout time.Duration) (llm.Provider, error) {
	key, err := r.apiKey()
	if err != nil {
		return nil, err
	}
	var p llm.Provider
	switch r.Provider {
	case "offline", "":
		return offline.New(), nil
	case "ollama":
		p, err = ollama.New(r.BaseURL, ollama.WithModel(r.Model))
	case "openai":
		p, err = openai.New(r.BaseURL, key)
	case "anthropic":
		p, err = anthropic.New(r.BaseURL, key)
	case "gemini":
		p, err = gemini.New(ctx, r.BaseURL, key, gemini.WithModel(r.Model))
	default:
		return nil, fmt.Errorf("unknown provider %q; use offline, ollama, openai, anthropic or gemini", r.Provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Provider, err)
	}
	return llm.WithRetry(llm.WithTimeout(p, timeout), llm.Retry{}), nil
}

// pipeline builds the game master for cfg, or nil for offline play. It
// checks the narrator's server first: when it cannot be reached it says so
// in one sentence (to g's stderr; nil g, silently) and returns nil, so the
// game plays offline.
func (cfg modelConfig) pipeline(ctx context.Context, campaignPipeline string, campaignPins map[string]int, docs gm.Documents,
	recordTo io.Writer, plan bool, g *globals) (*gm.Pipeline, error) {
	n := cfg.Roles["narrator"]
	if n.Provider == "offline" {
		return nil, nil
	}
	roles := map[string]gm.Role{}
	for _, name := range roleNames[:4] {
		rc := cfg.Roles[name]
		p, err := rc.provider(ctx, cfg.Timeout)
		if err != nil {
			return nil, g.failOr(fmt.Errorf("%s model: %w", name, err), "cli.models.role_failed", map[string]any{"Role": name}, err)
		}
		if recordTo != nil {
			p = cassette.NewRecorder(p, recordTo)
		}
		roles[name] = gm.Role{Provider: p, Model: rc.Model}
	}
	if n.Provider != "offline" {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := roles["narrator"].Provider.Models(cctx)
		cancel()
		if err != nil {
			if g != nil {
				fmt.Fprintln(g.stderr, g.t("cli.models.unreachable", map[string]any{"Provider": n.Provider, "URL": n.endpoint(), "Err": short(err)}))
			}
			return nil, nil
		}
	}
	pins := campaignPins
	if cfg.Pins != "" {
		p, err := prompt.ParsePins(cfg.Pins)
		if err != nil {
			return nil, err
		}
		pins = p
	}
	reg, err := prompt.New(cfg.Prompts, pins)
	if err != nil {
		return nil, err
	}
	mode := cfg.Pipeline
	if mode == "" {
		mode = campaignPipeline
	}
	return gm.New(gm.Config{Mode: mode, Narrator: roles["narrator"], Interpreter: roles["interpreter"], Planner: roles["planner"],
		Summariser: roles["summariser"], Prompts: reg, Budget: cfg.Budget, Documents: docs, Plan: plan})
}

func short(err error) string {
	var e *llm.Error
	if errors.As(err, &e) {
		if e.Status != 0 {
			return fmt.Sprintf("HTTP %d", e.Status)
		}
		return string(e.Kind)
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func newModels(g *globals) *cobra.Command {
	f := &modelFlags{}
	cmd := &cobra.Command{
		Use:   "models",
		Short: g.t("cli.short.models", nil),
		Example: `  hearth models --provider ollama
  hearth models --provider openai --base-url http://127.0.0.1:8000/v1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.load(g)
			if err != nil {
				return err
			}
			n := cfg.Roles["narrator"]
			p, err := n.provider(cmd.Context(), cfg.Timeout)
			if err != nil {
				return err
			}
			ms, err := p.Models(cmd.Context())
			if err != nil {
				return g.fail("cli.models.list_failed", map[string]any{"Provider": n.Provider, "URL": n.endpoint()}, err)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "MODEL\tCONTEXT\tPARAMETERS\tQUANTIZATION")
			for _, m := range ms {
				ctxLen := "?"
				if m.ContextLength > 0 {
					ctxLen = fmt.Sprint(m.ContextLength)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, ctxLen, m.ParameterSize, m.Quantization)
			}
			return tw.Flush()
		},
	}
	f.add(cmd.Flags())
	return cmd
}
