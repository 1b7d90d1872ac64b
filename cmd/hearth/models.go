package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/contextpack"
)

// roleFlags are flags over one role's model.
type roleFlags struct {
	Provider, Model, BaseURL, APIKeyEnv, APIKeyFile string
}

// over applies the flags to r: a provider flag starts the role afresh,
// the others replace single fields. It records each flag in src.
func (f roleFlags) over(r *config.Role, src *config.Source, key, prefix string) {
	if f.Provider != "" {
		*r = config.Role{Provider: f.Provider}
		src.Set(key+".provider", "flag --"+prefix+"provider")
	}
	for _, set := range []struct {
		to       *string
		v, field string
	}{{&r.Model, f.Model, "model"}, {&r.BaseURL, f.BaseURL, "base_url"},
		{&r.APIKeyEnv, f.APIKeyEnv, "api_key_env"}, {&r.APIKeyFile, f.APIKeyFile, "api_key_file"}} {
		if set.v != "" {
			*set.to = set.v
			src.Set(key+"."+set.field, "flag --"+prefix+strings.ReplaceAll(set.field, "_", "-"))
		}
	}
}

// modelFlags are the flags that choose models, over the configuration's
// [models] section.
type modelFlags struct {
	role     roleFlags
	pipeline string
	prompts  string
	pins     string
	record   string
	budget   int
	plan     bool
	// noSubagents plays agentic turns with one game master.
	noSubagents bool
}

func (f *modelFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.role.Provider, "provider", "", "model provider for the game master: offline, ollama, openai (any OpenAI-compatible server), anthropic, gemini")
	fs.StringVar(&f.role.Model, "model", "", "model name, e.g. llama3.2, gpt-4o-mini, claude-sonnet-4-5, gemini-2.5-flash")
	fs.StringVar(&f.role.BaseURL, "base-url", "", "provider URL (default: the provider's; ollama http://127.0.0.1:11434)")
	fs.StringVar(&f.role.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY)")
	fs.StringVar(&f.role.APIKeyFile, "api-key-file", "", "file holding the API key")
	fs.StringVar(&f.pipeline, "pipeline", "", "turn pipeline: agentic or multipass with a model, or skills (plans of skill invocations, no model needed); default: the campaign's choice, else agentic")
	fs.StringVar(&f.prompts, "prompts", "", "directory of prompt overrides (NAME@VERSION.tmpl)")
	fs.StringVar(&f.pins, "prompt-versions", "", "prompt versions to use over the campaign's pins, e.g. narrator@2,interpreter@1 (unpinned prompts use their default version)")
	fs.StringVar(&f.record, "record", "", "append every model call to this cassette file, for 'hearth replay --cassette'")
	fs.IntVar(&f.budget, "context-budget", 0, fmt.Sprintf("context budget in tokens of each model call, system prompt and tool schemas included (default %d)", contextpack.DefaultBudget))
	fs.BoolVar(&f.plan, "plan", false, "run the planner pass in the multipass pipeline")
	fs.BoolVar(&f.noSubagents, "no-subagents", false, "agentic pipeline: one game master with every tool, instead of a focused subagent (combat, npc, exploration, rules, worldbuilder) chosen each turn by the interpreter model")
}

// load returns the configuration with the flags applied over its
// [models] section: --provider and friends set the narrator, whose model
// the other roles share unless configured otherwise.
func (f *modelFlags) load(g *globals) (*config.Config, error) {
	cfg, src, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	m := &cfg.Models
	f.role.over(&m.Narrator, src, "models.narrator", "")
	for _, set := range []struct {
		to       *string
		v, key   string
		flagName string
	}{{&m.Pipeline, f.pipeline, "models.pipeline", "pipeline"}, {&m.Prompts, f.prompts, "models.prompts", "prompts"},
		{&m.PromptVersions, f.pins, "models.prompt_versions", "prompt-versions"}} {
		if set.v != "" {
			*set.to = set.v
			src.Set(set.key, "flag --"+set.flagName)
		}
	}
	if f.budget > 0 {
		m.ContextBudget = f.budget
		src.Set("models.context_budget", "flag --context-budget")
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageError{g.fail("cli.serve.bad_config", nil, err)}
	}
	return cfg, nil
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
			n, _ := cfg.Models.Role("narrator")
			p, err := app.NewProvider(cmd.Context(), n, cfg.Models.Timeout)
			if err != nil {
				return err
			}
			ms, err := p.Models(cmd.Context())
			if err != nil {
				return g.fail("cli.models.list_failed", map[string]any{"Provider": n.Provider, "URL": app.Endpoint(n)}, err)
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
