package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/anthropic"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/llm/gemini"
	"github.com/hearth-rpg/hearth/llm/offline"
	"github.com/hearth-rpg/hearth/llm/ollama"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/prompt"
	"github.com/hearth-rpg/hearth/world"
)

// Recorder receives every model call as a cassette line.
type Recorder = io.Writer

// gameRoles are the model roles a turn pipeline uses.
var gameRoles = []string{"narrator", "interpreter", "planner", "summariser"}

// Role is the configured model of role name ("narrator", "assistant",
// "vision", …), with the narrator's settings filled in where a role
// shares its provider.
func (a *App) Role(name string) config.Role {
	r, _ := a.cfg.Models.Role(name)
	r.ContextWindow = a.contextWindow()
	return r
}

// answerReserve is the room a context window keeps for the model's
// answer beside the context budget (system prompt, tools and context).
const answerReserve = 2048

// contextWindow is the context a model is asked to hold: the budget a
// turn's prompt may fill and room for the answer.
func (a *App) contextWindow() int {
	budget := a.cfg.Models.ContextBudget
	if budget <= 0 {
		budget = contextpack.DefaultBudget
	}
	return budget + answerReserve
}

// Offline reports whether role name plays without a model.
func (a *App) Offline(name string) bool {
	p := a.Role(name).Provider
	return p == "" || p == "offline"
}

// Provider builds role name's provider, with the configured timeout and
// retries. An offline role gets the offline provider, reading tool calls
// with offlinegm's pattern interpreter.
func (a *App) Provider(ctx context.Context, name string) (llm.Provider, error) {
	return NewProvider(ctx, a.Role(name), a.cfg.Models.Timeout)
}

// NewProvider builds the provider of one configured role. Keys come from
// api_key, api_key_file or the environment (api_key_env, default
// OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY) and are never
// logged.
func NewProvider(ctx context.Context, r config.Role, timeout time.Duration) (llm.Provider, error) {
	key, err := apiKey(r)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	// Each provider gets a transport sized for a server: Go's default
	// keeps 2 idle connections per host, so concurrent chats each dialled
	// the model server anew.
	hc := &http.Client{Transport: llm.ServerTransport()}
	var p llm.Provider
	switch r.Provider {
	case "offline", "":
		// The offline provider knows no game; offlinegm's interpreter
		// gives it the tool calls the agentic pipeline plays by.
		return offline.New(offline.WithToolCalls(offlinegm.ToolCalls)), nil
	case "ollama":
		p, err = ollama.New(r.BaseURL, ollama.WithModel(r.Model), ollama.WithContextWindow(r.ContextWindow), ollama.WithHTTPClient(hc))
	case "openai":
		p, err = openai.New(r.BaseURL, key, openai.WithHTTPClient(hc))
	case "anthropic":
		p, err = anthropic.New(r.BaseURL, key, anthropic.WithHTTPClient(hc))
	case "gemini":
		p, err = gemini.New(ctx, r.BaseURL, key, gemini.WithModel(r.Model), gemini.WithHTTPClient(hc))
	default:
		return nil, fmt.Errorf("unknown provider %q; use offline, ollama, openai, anthropic or gemini", r.Provider)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Provider, err)
	}
	return llm.WithRetry(llm.WithTimeout(p, timeout), llm.Retry{}), nil
}

func apiKey(r config.Role) (string, error) {
	if r.APIKey != "" {
		return string(r.APIKey), nil
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

// Endpoint is the URL a role talks to, for messages.
func Endpoint(r config.Role) string {
	if r.BaseURL != "" {
		return r.BaseURL
	}
	return map[string]string{"ollama": ollama.DefaultBaseURL, "openai": openai.DefaultBaseURL,
		"anthropic": anthropic.DefaultBaseURL, "gemini": "https://generativelanguage.googleapis.com"}[r.Provider]
}

// Reachable asks role's server for its models and reports whether it
// answered within a few seconds; when it did not, it warns once
// (cli.models.unreachable) so the caller can play offline instead.
func (a *App) Reachable(ctx context.Context, name string, p llm.Provider) bool {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := p.Models(cctx); err != nil {
		r := a.Role(name)
		a.warn("cli.models.unreachable", map[string]any{"Provider": r.Provider, "URL": Endpoint(r), "Err": ShortError(err)})
		return false
	}
	return true
}

// ShortError is a model error in a few words: an HTTP status or a kind.
func ShortError(err error) string {
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

// Prompts is the prompt registry for a campaign's pins: the configured
// overrides directory, and the configured versions over the campaign's
// prompt by prompt (a campaign pinning narrator@2 keeps it when the
// configuration pins only interpreter@2).
func (a *App) Prompts(campaignPins map[string]int) (*prompt.Registry, error) {
	pins := maps.Clone(campaignPins)
	if v := a.cfg.Models.PromptVersions; v != "" {
		p, err := prompt.ParsePins(v)
		if err != nil {
			return nil, err
		}
		if pins == nil {
			pins = map[string]int{}
		}
		maps.Copy(pins, p)
	}
	return prompt.New(a.cfg.Models.Prompts, pins)
}

// Plan reports whether the multipass pipeline runs its planner pass.
func (a *App) Plan() bool { return a.opts.Plan }

// NoSubagents reports whether agentic turns skip the router and its
// subagents.
func (a *App) NoSubagents() bool { return a.opts.NoSubagents }

// ModelPipeline builds the model game master (agentic or multipass), or
// nil to play offline: when the narrator is offline, or its server
// cannot be reached.
func (a *App) ModelPipeline(ctx context.Context, mode string, campaignPins map[string]int, docs modelgm.Documents) (*modelgm.Pipeline, error) {
	if !a.online("narrator") {
		return nil, nil
	}
	roles := map[string]modelgm.Role{}
	for _, name := range gameRoles {
		p, err := a.gameProvider(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("%s model: %w", name, err)
		}
		roles[name] = modelgm.Role{Provider: p, Model: a.Role(name).Model}
	}
	if a.opts.Replay == nil && !a.Reachable(ctx, "narrator", roles["narrator"].Provider) {
		return nil, nil
	}
	reg, err := a.Prompts(campaignPins)
	if err != nil {
		return nil, err
	}
	return modelgm.New(modelgm.Config{Mode: mode, Narrator: roles["narrator"], Interpreter: roles["interpreter"], Planner: roles["planner"],
		Summariser: roles["summariser"], Prompts: reg, Budget: a.cfg.Models.ContextBudget, Documents: docs, Plan: a.opts.Plan,
		NoSubagents: a.opts.NoSubagents, Logger: a.log})
}

// online reports whether role name plays with a model: a configured one,
// or the recording a replay answers from.
func (a *App) online(name string) bool { return a.opts.Replay != nil || !a.Offline(name) }

// gameProvider is role name's provider as games use it: the replay's
// recording when replaying, else the configured provider, recorded when
// the App records. Every model call a game makes goes through it, so a
// cassette holds all of them.
func (a *App) gameProvider(ctx context.Context, name string) (llm.Provider, error) {
	if a.opts.Replay != nil {
		return a.opts.Replay, nil
	}
	p, err := a.Provider(ctx, name)
	if err != nil {
		return nil, err
	}
	if a.opts.Record != nil {
		p = cassette.NewRecorder(p, a.opts.Record)
	}
	return p, nil
}

// MemberRole is the model configuration of a party member's agent: the
// member's provider and model, with the server and key of the first
// configured role (narrator, interpreter, planner, summariser, assistant)
// that uses the same provider, else that provider's defaults.
func (a *App) MemberRole(m world.PartyMember) config.Role {
	r := config.Role{Provider: m.Controller.Provider}
	for _, name := range []string{"narrator", "interpreter", "planner", "summariser", "assistant"} {
		if c := a.Role(name); c.Provider == r.Provider {
			r = c
			break
		}
	}
	r.Model = m.Controller.Model
	r.ContextWindow = a.contextWindow()
	return r
}

// PartyAgent is the agent of a party member whose controller names a
// model (game.AgentFor): modelgm's party agent on the member's own
// provider and model, resolved by MemberRole. It is built each time it is
// asked for, so a controller changed mid-campaign takes effect at the
// member's next turn.
func (a *App) PartyAgent(ctx context.Context, m world.PartyMember) (game.Agent, error) {
	r := a.MemberRole(m)
	var p llm.Provider = a.opts.Replay
	if p == nil {
		var err error
		if p, err = NewProvider(ctx, r, a.cfg.Models.Timeout); err != nil {
			return nil, fmt.Errorf("the model of %s: %w", m.Character, err)
		}
		if a.opts.Record != nil {
			p = cassette.NewRecorder(p, a.opts.Record)
		}
	}
	return modelgm.NewPartyAgent(modelgm.Role{Provider: p, Model: r.Model}), nil
}
