package modelgm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/prompt"
	"github.com/hearth-rpg/hearth/tokens"
)

// Modes.
const (
	Agentic   = "agentic"
	MultiPass = "multipass"
)

// ParseMode reads a pipeline name as campaigns and flags write it:
// "agentic", "multipass" or "multi-pass"; empty means agentic.
func ParseMode(s string) (string, error) {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(s)) {
	case "", Agentic:
		return Agentic, nil
	case MultiPass:
		return MultiPass, nil
	}
	return "", fmt.Errorf("unknown pipeline %q; use %s or %s", s, Agentic, MultiPass)
}

// Role is the model behind one role.
type Role struct {
	Provider llm.Provider
	Model    string
}

func (r Role) ok() bool { return r.Provider != nil }

// Config configures a pipeline.
type Config struct {
	Mode string // Agentic (default) or MultiPass
	// Narrator is the game master's model; the other roles default to it.
	Narrator, Interpreter, Planner, Summariser Role
	// Prompts is the registry (default: the built-in prompts, unpinned).
	Prompts *prompt.Registry
	// Budget is the context packet's token budget, system prompt and tool
	// schemas included (default contextpack.DefaultBudget).
	Budget int
	// Agent holds the agentic loop's limits.
	Agent agent.Config
	// Controller answers the loop's pauses (default: continue until the
	// hard timeout).
	Controller agent.Controller
	// Subagents routes agentic turns to focused subagents, chosen by the
	// interpreter model (default on; set NoSubagents to use one general
	// game master with every tool).
	NoSubagents bool
	// Plan turns on the multi-pass planner.
	Plan bool
	// Documents backs document_search and document_get (optional).
	Documents Documents
	// SummariseEvery summarises older play every this many turns
	// (default 20; negative turns it off).
	SummariseEvery int
	// Recent is how many past turns are offered to the context (default 30).
	Recent int
	Logger *slog.Logger
}

// Pipeline is a model-driven game master; it implements game.Pipeline.
type Pipeline struct {
	cfg     Config
	tools   toolSet
	docs    Documents
	builder *contextpack.Builder
	interp  *structured.Spec[interpretation]
	planner *structured.Spec[plan]
	router  *structured.Spec[routing]
	// narration is the narrator's structured output.
	narration *structured.Spec[narration]
}

// New builds a pipeline.
func New(cfg Config) (*Pipeline, error) {
	if !cfg.Narrator.ok() {
		return nil, errors.New("gm: no narrator model configured")
	}
	for _, r := range []*Role{&cfg.Interpreter, &cfg.Planner, &cfg.Summariser} {
		if !r.ok() {
			*r = cfg.Narrator
		}
	}
	mode, err := ParseMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	cfg.Mode = mode
	if cfg.Prompts == nil {
		r, err := prompt.New("", nil)
		if err != nil {
			return nil, err
		}
		cfg.Prompts = r
	}
	if cfg.Budget <= 0 {
		cfg.Budget = contextpack.DefaultBudget
	}
	if cfg.SummariseEvery == 0 {
		cfg.SummariseEvery = 20
	}
	if cfg.Recent <= 0 {
		cfg.Recent = 30
	}
	if cfg.Controller == nil {
		cfg.Controller = keepGoing{}
	}
	if cfg.Agent.Subject == "" {
		cfg.Agent.Subject = "The game master"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	tok, err := tokens.CL100K()
	if err != nil {
		return nil, err
	}
	tools, err := intentTools()
	if err != nil {
		return nil, err
	}
	p := &Pipeline{cfg: cfg, tools: tools, docs: cfg.Documents, builder: contextpack.NewBuilder(tok)}
	if p.interp, err = structured.New[interpretation]("interpretation"); err != nil {
		return nil, err
	}
	if p.planner, err = structured.New[plan]("plan"); err != nil {
		return nil, err
	}
	if p.router, err = structured.New[routing]("routing"); err != nil {
		return nil, err
	}
	if p.narration, err = structured.New[narration]("narration"); err != nil {
		return nil, err
	}
	return p, nil
}

// Name is the pipeline's mode.
func (p *Pipeline) Name() string { return p.cfg.Mode }

// keepGoing continues at every pause: the hard timeout still bounds a turn.
type keepGoing struct{}

func (keepGoing) ToolResult(ctx context.Context, call llm.ToolCall) (string, error) {
	return "", fmt.Errorf("%s runs in a client, and this game has none", call.Name)
}
func (keepGoing) Pause(context.Context, agent.Event) (agent.Decision, error) {
	return agent.Continue, nil
}

// Call is one model call as the turn records it: what the model saw and
// what came of it. "hearth context" prints these.
type Call struct {
	Pass     string               `json:"pass"`
	Prompt   string               `json:"prompt,omitempty"`
	Provider string               `json:"provider,omitempty"`
	Model    string               `json:"model,omitempty"`
	System   string               `json:"system,omitempty"`
	Context  *contextpack.Packet  `json:"context,omitempty"`
	Output   json.RawMessage      `json:"output,omitempty"`
	Tools    []ToolUse            `json:"tools,omitempty"`
	Report   *structured.Report   `json:"report,omitempty"`
	Usage    llm.Usage            `json:"usage"`
	Millis   int64                `json:"ms"`
	Error    string               `json:"error,omitempty"`
	Fallback string               `json:"fallback,omitempty"`
	Summary  *contextpack.Summary `json:"summary,omitempty"`
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Play plays one turn.
func (p *Pipeline) Play(ctx context.Context, t *game.Turn) error {
	recent, summary, err := p.history(ctx, t)
	if err != nil {
		return err
	}
	switch {
	case t.Confirmed():
		// The player said yes to an act the game asked about; the game
		// has carried it out, and the model only tells what came of it.
		err = p.narrate(ctx, t, recent, summary, nil, t.World().Scene.Number)
	case p.cfg.Mode == MultiPass:
		err = p.multiPass(ctx, t, recent, summary)
	default:
		err = p.agentic(ctx, t, recent, summary)
	}
	if err != nil {
		return err
	}
	if err := p.checkTriggers(ctx, t); err != nil {
		return err
	}
	return p.summarise(ctx, t, recent, summary)
}

// history reads recent turns and the latest summary from their records.
func (p *Pipeline) history(ctx context.Context, t *game.Turn) ([]contextpack.Turn, *contextpack.Summary, error) {
	past, err := t.Recent(ctx, p.cfg.Recent)
	if err != nil {
		return nil, nil, fmt.Errorf("read recent turns: %w", err)
	}
	var recent []contextpack.Turn
	var summary *contextpack.Summary
	for _, r := range past {
		recent = append(recent, contextpack.Turn{Number: r.Number, Input: r.Input, Narrative: r.Narrative})
		var ps struct {
			Calls []Call `json:"calls"`
		}
		if len(r.Passes) > 0 && json.Unmarshal(r.Passes, &ps) == nil {
			for _, c := range ps.Calls {
				if c.Summary != nil {
					summary = c.Summary
				}
			}
		}
	}
	if summary != nil {
		// Turns the summary covers are not repeated verbatim.
		i := 0
		for i < len(recent) && recent[i].Number <= summary.To {
			i++
		}
		recent = recent[i:]
	}
	return recent, summary, nil
}

func (p *Pipeline) data(t *game.Turn, extra map[string]any) map[string]any {
	c := t.Campaign()
	w := t.World()
	player := w.Player
	if pc := w.PC(); pc != nil {
		player = pc.Name
	}
	d := map[string]any{"Title": c.Title, "Genre": cmpOr(c.Genre, "fantasy"), "Tone": c.Tone, "Player": player,
		"System": w.System, "Intents": "", "Words": 150, "PlayerStats": game.PlayerStats(w)}
	for k, v := range extra {
		d[k] = v
	}
	return d
}

func (p *Pipeline) system(t *game.Turn, name string, extra map[string]any) (string, string, error) {
	tm, err := p.cfg.Prompts.Get(name)
	if err != nil {
		return "", "", err
	}
	text, err := tm.Render(p.data(t, extra))
	if err != nil {
		return "", "", err
	}
	t.UsePrompt(name, tm.ID())
	return text, tm.ID(), nil
}

// packet builds the context of one call; its system prompt and tools
// count against the budget, and keep (a subagent's slice, nil for all)
// leaves sections out before the budget is spent.
func (p *Pipeline) packet(ctx context.Context, t *game.Turn, v contextpack.Viewer, recent []contextpack.Turn, summary *contextpack.Summary, keep func(string) bool, system string, tools []llm.Tool) *contextpack.Packet {
	c := t.Campaign()
	return p.builder.Build(contextpack.Input{World: t.World(), Viewer: v, Action: t.Input, Recent: recent, Summary: summary,
		Extra: slices.Concat(t.StatSections(ctx, v.Role), t.BeatSections(ctx, v.Role), t.LoreSections(ctx, v.Role),
			t.MemorySections(ctx, v.Role), t.NoteSections(ctx, v.Role), t.CallbackSections(ctx, v.Role),
			t.ModuleSections(ctx, v.Role)),
		Budget: p.cfg.Budget, System: system, Tools: tools, Keep: keep,
		Campaign: contextpack.Campaign{Title: c.Title, Genre: c.Genre, Tone: c.Tone,
			Description: c.Description, RulesHint: c.RulesHint}})
}

// agentic runs the game-master agent (or the routed subagent).
func (p *Pipeline) agentic(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary) (err error) {
	sub := general
	if !p.cfg.NoSubagents {
		if sub, err = p.routeTurn(ctx, t); err != nil {
			return err
		}
	}
	start := time.Now()
	system, pid, err := p.system(t, sub.prompt, nil)
	if err != nil {
		return err
	}
	var uses []ToolUse
	bound := p.bind(t, sub.tools, &uses)
	schemas := make([]llm.Tool, len(bound))
	for i, b := range bound {
		schemas[i] = b.Tool
	}
	pk := p.packet(ctx, t, contextpack.GM(), recent, summary, sub.keep, system, schemas)
	loop := &agent.Loop{Provider: p.cfg.Narrator.Provider, Tools: bound, Config: p.cfg.Agent}
	call := Call{Pass: "agent:" + sub.name, Prompt: pid, Provider: p.cfg.Narrator.Provider.Name(), Model: p.cfg.Narrator.Model,
		System: system, Context: pk}
	out, err := loop.Run(ctx, llm.Request{Model: p.cfg.Narrator.Model, Messages: pk.Messages(system)}, p.cfg.Controller,
		func(e agent.Event) {
			if e.Type == agent.Content {
				t.Emit(e.Text)
			}
		})
	call.Tools, call.Millis = uses, time.Since(start).Milliseconds()
	if out != nil {
		call.Usage, call.Output = out.Usage, raw(out.Text)
		if out.Cancelled {
			call.Error = "cancelled at a pause"
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		call.Error = err.Error()
		p.cfg.Logger.Warn("game master model failed; narrating offline", "err", err)
	}
	if q := t.Confirming(); q != "" {
		// A hostile act waits for the player's yes: the turn ends with
		// the game's question, whatever the model said before it.
		if strings.TrimSpace(t.Narrative()) != "" {
			t.Emit("\n\n")
		}
		t.Emit(q + " (yes/no)")
	}
	if strings.TrimSpace(t.Narrative()) == "" && (out == nil || !out.Cancelled) {
		// The model said nothing usable: tell the turn with the offline
		// narrator, or play it offline if nothing was resolved.
		if len(t.Resolutions()) > 0 {
			call.Fallback = "offline narrator"
			err = t.NarrateOffline(ctx)
		} else {
			call.Fallback = "offline interpreter and narrator"
			err = t.Fallback(ctx)
		}
		if err != nil {
			return err
		}
	}
	return t.Record(call)
}
