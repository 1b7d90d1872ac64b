package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/gm"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/pattern"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/protocol"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// skillsDir is where skills are found: --skills, else ./skills when it
// exists (a checkout), else <data>/skills.
func (g *globals) skillsDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if st, err := os.Stat("skills"); err == nil && st.IsDir() {
		return filepath.Abs("skills")
	}
	dir, err := g.dataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "skills"), nil
}

func newSkill(g *globals) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "skill",
		Short: "List, check and run skills: external tools for the game master",
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
		Short: "List the skills found, their scripts and any problems",
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
				fmt.Fprintf(g.stdout, "%-20s %s\n%-20s scripts: %s\n", s.Name, oneLine(s.Description), "", strings.Join(names, ", "))
			}
			for _, w := range warns {
				fmt.Fprintf(g.stderr, "warning: %v\n", w)
			}
			if len(set.All()) == 0 {
				fmt.Fprintf(g.stdout, "No skills in %s.\n", set.Dir())
			}
			return nil
		},
	}
	check := &cobra.Command{
		Use:   "check",
		Short: "Check every skill's SKILL.md, scripts and configuration; exit 1 on problems",
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
			fmt.Fprintf(g.stdout, "%d skill(s), %d problem(s)\n", len(set.All()), problems)
			if problems > 0 {
				return fmt.Errorf("%d problem(s) in %s", problems, set.Dir())
			}
			return nil
		},
	}
	var input string
	var timeout time.Duration
	run := &cobra.Command{
		Use:   "run SKILL SCRIPT",
		Short: "Run one skill script with a JSON input and print its events",
		Example: `  hearth skill run dice-roller roll --input '{"notation":"2d6+1"}'
  hearth skill run example-echo echo --input '{"text":"hello"}'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, warns, err := discover(g, dir)
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintf(g.stderr, "warning: %v\n", w)
			}
			s := set.Get(args[0])
			if s == nil {
				return fmt.Errorf("no skill %q in %s: run 'hearth skill list'", args[0], set.Dir())
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(cmpOr(input, "{}")), &in); err != nil {
				return usageError{fmt.Errorf("--input is not a JSON object: %w", err)}
			}
			enc := json.NewEncoder(g.stdout)
			inv, err := s.Prepare(args[1], skill.Call{RequestID: "cli", Input: in, Timeout: timeout, LookupEnv: os.LookupEnv,
				OnEvent: func(e protocol.Event) { _ = enc.Encode(e) }})
			if err != nil {
				return err
			}
			res, err := skill.Run(cmd.Context(), inv)
			fmt.Fprintf(g.stderr, "exit %d in %s\n", res.ExitCode, res.Duration.Round(time.Millisecond))
			if res.Stderr != "" {
				fmt.Fprintf(g.stderr, "stderr:\n%s\n", res.Stderr)
			}
			return err
		},
	}
	run.Flags().StringVar(&input, "input", "{}", "the tool input, a JSON object")
	run.Flags().DurationVar(&timeout, "timeout", 0, "stop the script after this long (default: the skill's, else 30s)")
	cmd.AddCommand(list, check, run)
	return cmd
}

func discover(g *globals, flag string) (*skill.Set, []*skill.Warning, error) {
	dir, err := g.skillsDir(flag)
	if err != nil {
		return nil, nil, err
	}
	set, warns, err := skill.Discover(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read skills in %s: %w", dir, err)
	}
	return set, warns, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// skillsPipeline plays turns through the skills in the skills directory:
// plans from the planner model when one is configured, else the offline
// pattern planner; the DAG executor and the replan loop.
func (g *globals) skillsPipeline(ctx context.Context, mc modelConfig) (*gm.Skills, error) {
	set, warns, err := discover(g, "")
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintf(g.stderr, "warning: %v\n", w)
	}
	var planner replan.Planner = pattern.Planner{}
	role := mc.Roles["planner"]
	if role.Provider == "" || role.Provider == "offline" {
		role = mc.Roles["narrator"]
	}
	if role.Provider != "" && role.Provider != "offline" {
		p, err := role.provider(ctx, mc.Timeout)
		if err != nil {
			return nil, fmt.Errorf("planner model: %w", err)
		}
		var guidance []string
		for _, s := range set.All() {
			if gd, err := s.Guidance(); err == nil && gd != "" {
				guidance = append(guidance, s.Name+": "+oneLine(gd))
			}
		}
		planner = &gm.ModelPlanner{Role: gm.Role{Provider: p, Model: role.Model}, Guidance: strings.Join(guidance, "\n")}
	}
	srv, err := host.Start()
	if err != nil {
		return nil, err
	}
	return &gm.Skills{Host: srv, Loop: &replan.Loop{
		Planner:  planner,
		Executor: &plan.Executor{Runner: &plan.SkillRunner{Skills: set}, RetryDefaults: set.RetryPolicy},
		Skills:   set.Summaries(nil),
		Health:   &skill.Health{},
	}}, nil
}
