package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/builtin"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// skillsDir is where skills are found: --skills, else ./skills when it
// exists (a checkout), else <data>/skills.
func (g *globals) skillsDir(flag string) (string, error) {
	dir, err := g.dataDir()
	if err != nil && flag == "" {
		return "", err
	}
	return app.SkillsDir(flag, dir)
}

func newSkill(g *globals) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "skill",
		Short: g.t("cli.short.skill", nil),
		Long: `A skill is a directory with a SKILL.md (YAML frontmatter: name, description,
metadata) and executables in scripts/ that speak Hearth's NDJSON protocol:
a JSON input on stdin, one event per line on stdout (log, state_patch, asset,
ui_event, error, done). Skills are found in --skills, else ./skills, else
the data directory's skills/. A skill that is misconfigured is reported, never
fatal. See skills/README.md for writing one in any language.`,
	}
	cmd.PersistentFlags().StringVar(&dir, "skills", "", "the skills directory")
	list := &cobra.Command{
		Use:   "list",
		Short: g.t("cli.short.skill.list", nil),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, warns, err := discover(g, dir)
			if err != nil {
				return err
			}
			for _, s := range set.All() {
				var names []string
				for _, sc := range s.Scripts {
					names = append(names, sc.Name)
				}
				fmt.Fprintf(g.stdout, "%-20s %s\n%-20s %s\n", s.Name, oneLine(s.Description), "", g.t("cli.skill.scripts", map[string]any{"Scripts": strings.Join(names, ", ")}))
			}
			for _, w := range warns {
				fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": fmt.Sprint(w)}))
			}
			if len(set.All()) == 0 {
				fmt.Fprintln(g.stdout, g.t("cli.skill.none", map[string]any{"Dir": set.Dir()}))
			}
			return nil
		},
	}
	check := &cobra.Command{
		Use:   "check",
		Short: g.t("cli.short.skill.check", nil),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, warns, err := discover(g, dir)
			if err != nil {
				return err
			}
			problems := len(warns)
			for _, w := range warns {
				fmt.Fprintf(g.stdout, "%v\n", w)
			}
			for _, s := range set.All() {
				if _, err := s.LoadConfig(os.LookupEnv); err != nil {
					fmt.Fprintf(g.stdout, "%s: %v\n", s.ConfigPath(), err)
					problems++
				}
			}
			fmt.Fprintln(g.stdout, g.t("cli.skill.checked", map[string]any{"Skills": len(set.All()), "Problems": problems}))
			if problems > 0 {
				return errors.New(g.t("cli.skill.problems", map[string]any{"Problems": problems, "Dir": set.Dir()}))
			}
			return nil
		},
	}
	var input, campaignDir string
	var timeout time.Duration
	run := &cobra.Command{
		Use:   "run SKILL SCRIPT",
		Short: g.t("cli.short.skill.run", nil),
		Example: `  hearth skill run dice-roller roll --input '{"notation":"2d6+1"}'
  hearth skill run example-echo echo --input '{"text":"hello"}'
  hearth skill run portrait lookup-portrait --campaign ./my-campaign --input '{"character":"gareth"}'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, warns, err := discover(g, dir)
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": fmt.Sprint(w)}))
			}
			s := set.Get(args[0])
			if s == nil {
				return errors.New(g.t("cli.skill.no_skill", map[string]any{"Skill": strconv.Quote(args[0]), "Dir": set.Dir()}))
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(cmpOr(input, "{}")), &in); err != nil {
				return usageError{g.fail("cli.skill.bad_input", nil, err)}
			}
			enc := json.NewEncoder(g.stdout)
			if campaignDir != "" {
				if campaignDir, err = filepath.Abs(campaignDir); err != nil {
					return err
				}
			}
			inv, err := s.Prepare(args[1], skill.Call{RequestID: "cli", Input: in, Timeout: timeout, LookupEnv: os.LookupEnv, CampaignDir: campaignDir,
				OnEvent: func(e protocol.Event) { _ = enc.Encode(e) }})
			if err != nil {
				return err
			}
			res, err := skill.Run(cmd.Context(), inv)
			fmt.Fprintln(g.stderr, g.t("cli.skill.exit", map[string]any{"Code": res.ExitCode, "Took": res.Duration.Round(time.Millisecond).String()}))
			if res.Stderr != "" {
				fmt.Fprintf(g.stderr, "stderr:\n%s\n", res.Stderr)
			}
			return err
		},
	}
	run.Flags().StringVar(&input, "input", "{}", "the tool input, a JSON object")
	run.Flags().StringVar(&campaignDir, "campaign", "", "the campaign directory the script works in (its assets, for the portrait skill)")
	run.Flags().DurationVar(&timeout, "timeout", 0, "stop the script after this long (default: the skill's, else 30s)")
	config := &cobra.Command{
		Use:   "config SKILL [KEY=VALUE ...]",
		Short: g.t("cli.short.skill.config", nil),
		Long: `Without settings, shows the skill's settings: each with its type, what it
allows, its default, its description and its current value (secrets masked).
With KEY=VALUE settings, checks each against the skill's schema
(references/config-schema.json) and saves them to the skill's config.json,
where the skill reads them from its next call. KEY= removes a setting, so its
default applies again. A value may be ${VAR}, read from the environment when
the skill runs.`,
		Example: `  hearth skill config storyteller
  hearth skill config storyteller style=poetic
  hearth skill config storyteller provider=ollama model=llama3.2
  hearth skill config storyteller apiKey='${OPENAI_API_KEY}'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, _, err := discover(g, dir)
			if err != nil {
				return err
			}
			s := set.Get(args[0])
			if s == nil {
				return errors.New(g.t("cli.skill.no_skill", map[string]any{"Skill": strconv.Quote(args[0]), "Dir": set.Dir()}))
			}
			if len(args) > 1 {
				if _, err := s.Configure(args[1:], os.LookupEnv); err != nil {
					return usageError{err}
				}
				fmt.Fprintf(g.stdout, "saved %s\n", s.ConfigPath())
			}
			return showSkillConfig(g, s)
		},
	}
	cmd.AddCommand(list, check, run, config, newSkillBuiltin(g))
	return cmd
}

// showSkillConfig prints each setting of a skill: name, current value
// (masked when secret), type and what it allows, description.
func showSkillConfig(g *globals, s *skill.Skill) error {
	if s.Config == nil || len(s.Config.Fields) == 0 {
		fmt.Fprintf(g.stdout, "%s has no settings.\n", s.Name)
		return nil
	}
	cfg, err := s.LoadConfig(os.LookupEnv)
	if err != nil {
		return err
	}
	saved, err := s.SavedConfig()
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "%s settings (%s):\n", s.Name, s.ConfigPath())
	for _, f := range s.Config.Fields {
		val := "(unset)"
		if v, ok := cfg.Values[f.Name]; ok {
			b, _ := json.Marshal(v)
			val = string(b)
			if f.Sensitive && v != "" {
				val = "********"
			}
			if _, own := saved[f.Name]; !own {
				val += " (default)"
			}
		}
		fmt.Fprintf(g.stdout, "  %s = %s\n      %s\n", f.Name, val, f.Describe())
		if d := oneLine(cmpOr(f.Description, f.Title)); d != "" {
			fmt.Fprintf(g.stdout, "      %s\n", d)
		}
	}
	for _, p := range cfg.Problems {
		fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": p}))
	}
	return nil
}

// builtinExit is a built-in skill program's non-zero exit status.
type builtinExit struct{ code int }

func (e builtinExit) Error() string {
	return fmt.Sprintf("built-in skill exited with status %d", e.code)
}

// newSkillBuiltin is what a bundled skill's script execs: the skill's
// program, compiled into hearth, speaking the NDJSON protocol on stdin and
// stdout like any skill process. Hidden: scripts call it, people need not.
func newSkillBuiltin(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:    "builtin NAME",
		Short:  "Run a bundled skill's program (what its scripts exec)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, ok := builtin.Lookup(args[0])
			if !ok {
				return usageError{fmt.Errorf("no built-in skill %q; built in: %s", args[0], strings.Join(builtin.Names(), ", "))}
			}
			if code := run(g.stdin, g.stdout, g.stderr); code != 0 {
				return builtinExit{code}
			}
			return nil
		},
	}
}

func discover(g *globals, flag string) (*skill.Set, []*skill.Warning, error) {
	dir, err := g.skillsDir(flag)
	if err != nil {
		return nil, nil, err
	}
	// A fresh install: the bundled skills go into the data directory.
	if data, derr := g.dataDir(); derr == nil && flag == "" && dir == filepath.Join(data, "skills") {
		if _, err := app.InstallSkills(dir); err != nil {
			return nil, nil, g.fail("cli.skill.read_failed", map[string]any{"Dir": dir}, err)
		}
	}
	set, warns, err := skill.Discover(dir)
	if err != nil {
		return nil, nil, g.fail("cli.skill.read_failed", map[string]any{"Dir": dir}, err)
	}
	return set, warns, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
