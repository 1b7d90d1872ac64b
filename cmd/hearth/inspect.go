package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/prompt"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/tokens"
)

// turnPasses is the part of a turn's record the inspector reads.
type turnPasses struct {
	Pipeline    string            `json:"pipeline"`
	Interpreter string            `json:"interpreter"`
	Narrator    string            `json:"narrator"`
	Prompts     map[string]string `json:"prompts"`
	Calls       []modelgm.Call    `json:"calls"`
	Rejection   *rules.Rejection  `json:"rejection"`
	// Clarification is the question the turn asked instead of playing.
	Clarification *game.Question `json:"clarification"`
	Resolutions   []struct {
		Outcomes []rules.Outcome `json:"outcomes"`
	} `json:"resolutions"`
	// Lore is what the turn knew of the scene's lore.
	Lore *struct {
		Scene    int      `json:"scene"`
		Passages []string `json:"passages"`
		Pending  string   `json:"pending"`
	} `json:"lore"`
}

func newContext(g *globals) *cobra.Command {
	var session string
	var asJSON, full bool
	cmd := &cobra.Command{
		Use:   "context TURN",
		Short: g.t("cli.short.context", nil),
		Long: `Show the context inspector for one turn: for every model call the turn made —
interpreter, planner, narrator, the game-master agent, the summariser — the
prompt version, the provider and model, and the context packet section by
section with its precedence tier and token count, what the budget dropped,
the tools called and what came back, and any fallback.

Without --session, the most recently played game is inspected.`,
		Example: `  hearth context 12
  hearth context 12 --full          # print every section's text
  hearth context 12 --json | jq '.calls[0].context.sections[] | {name, tokens}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 1 {
				return usageError{errors.New(g.t("cli.context.bad_turn", map[string]any{"Arg": strconv.Quote(args[0])}))}
			}
			ctx := cmd.Context()
			return g.withStore(ctx, func(db store.Store) error {
				s, err := g.openForInspection(ctx, db, session)
				if err != nil {
					return err
				}
				recs, err := s.Turns(ctx, n, n)
				if err != nil {
					return err
				}
				if len(recs) == 0 {
					return errors.New(g.t("cli.context.no_turn", map[string]any{"ID": s.ID(), "Turn": n, "Head": s.Turn()}))
				}
				if asJSON {
					_, err := g.stdout.Write(append(recs[0].Passes, '\n'))
					return err
				}
				var ps turnPasses
				if err := json.Unmarshal(recs[0].Passes, &ps); err != nil {
					return g.fail("cli.context.unreadable", map[string]any{"Turn": n}, err)
				}
				return printContext(g.stdout, n, recs[0].Input, ps, full)
			})
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "game to inspect (default the most recent)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the turn's raw pass records as JSON")
	cmd.Flags().BoolVar(&full, "full", false, "print the full text of every section and system prompt")
	return cmd
}

func (g *globals) openForInspection(ctx context.Context, db store.Store, id string) (*game.Session, error) {
	if id == "" {
		all, err := db.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, errors.New(g.t("cli.context.no_games", nil))
		}
		id = all[0].ID
	}
	return game.Open(ctx, db, id, game.Options{})
}

func printContext(w io.Writer, n int, input string, ps turnPasses, full bool) error {
	fmt.Fprintf(w, "Turn %d: %q\n", n, input)
	printWorldMoves(w, ps)
	if l := ps.Lore; l != nil {
		if l.Pending != "" {
			fmt.Fprintf(w, "Scene lore: none yet, the %s.\n", l.Pending)
		} else {
			fmt.Fprintf(w, "Scene lore: %d passages (scene %d).\n", len(l.Passages), l.Scene)
		}
	}
	if len(ps.Calls) == 0 {
		fmt.Fprintf(w, "No model was called: the turn was played offline (interpreter %s, narrator %s).\n",
			orDash(ps.Interpreter), orDash(ps.Narrator))
		return nil
	}
	fmt.Fprintf(w, "Pipeline %s; prompts %s\n", ps.Pipeline, promptList(ps.Prompts))
	tok, err := tokens.CL100K()
	if err != nil {
		return err
	}
	for i, c := range ps.Calls {
		fmt.Fprintf(w, "\n── call %d: %s", i+1, c.Pass)
		if c.Prompt != "" {
			fmt.Fprintf(w, " (%s)", c.Prompt)
		}
		if c.Provider == "rules" {
			// A pass of the rules, not of a model: its judgement is the point.
			fmt.Fprintf(w, " — the rules, %d ms\n", c.Millis)
			printRulesPass(w, c)
			continue
		}
		fmt.Fprintf(w, " — %s %s, %d ms, %d prompt + %d completion tokens\n", c.Provider, c.Model, c.Millis,
			c.Usage.PromptTokens, c.Usage.CompletionTokens)
		if c.System != "" {
			if c.Context == nil || c.Context.System == 0 {
				fmt.Fprintf(w, "   system prompt: %d tokens\n", tok.Count(c.System))
			}
			if full {
				fmt.Fprintf(w, "%s\n", indent(c.System))
			}
		}
		if pk := c.Context; pk != nil {
			fmt.Fprintf(w, "   context for %s: %d of %d tokens\n", viewerName(pk.Viewer.Role.String(), pk.Viewer.Character), pk.Tokens, pk.Budget)
			if pk.System > 0 || pk.Tools > 0 {
				fmt.Fprintf(w, "   %-13s         %5d tokens, counted first\n", "system prompt", pk.System)
				fmt.Fprintf(w, "   %-13s         %5d tokens, counted first\n", "tool schemas", pk.Tools)
			}
			for _, s := range pk.Sections {
				stable := ""
				if s.Stable {
					stable = ", cached prefix"
				}
				fmt.Fprintf(w, "   %-13s tier %d  %5d tokens (%s)%s\n", s.Name, s.Tier, s.Tokens, contextpack.TierName(s.Tier), stable)
				if full {
					fmt.Fprintf(w, "%s\n", indent(s.Text))
				}
			}
			printDropped(w, pk.Budget, pk.Dropped)
		}
		for _, t := range c.Tools {
			mark := "→"
			if t.Error {
				mark = "✗"
			}
			fmt.Fprintf(w, "   tool %s %s %s %s\n", t.Name, t.Args, mark, headline(t.Result))
		}
		if c.Report != nil && c.Report.Attempts > 1 {
			fmt.Fprintf(w, "   repaired after: %s\n", strings.Join(c.Report.Errors, "; "))
		}
		if c.Summary != nil {
			fmt.Fprintf(w, "   summary of turns %d–%d: %s\n", c.Summary.From, c.Summary.To, headline(c.Summary.Text))
		}
		if c.Error != "" {
			fmt.Fprintf(w, "   error: %s\n", c.Error)
		}
		if c.Fallback != "" {
			fmt.Fprintf(w, "   fell back to: %s\n", c.Fallback)
		}
	}
	if q := ps.Clarification; q != nil {
		fmt.Fprintf(w, "\nAsked the player instead of playing: %s\n", q.Text)
	}
	return nil
}

// printRulesPass prints the validator's verdict or what the narrator's
// introductions became.
func printRulesPass(w io.Writer, c modelgm.Call) {
	var out struct {
		Verdict string   `json:"verdict"`
		Allowed []string `json:"allowed"`
		Blocked *struct {
			Reason string `json:"reason"`
		} `json:"blocked"`
		NotJudged []string `json:"not_judged"`
		Applied   []string `json:"applied"`
		Skipped   []string `json:"skipped"`
		Lore      *struct {
			Scene   int      `json:"scene"`
			Briefed []string `json:"briefed"`
		} `json:"lore"`
	}
	if json.Unmarshal(c.Output, &out) != nil {
		return
	}
	if out.Verdict != "" {
		fmt.Fprintf(w, "   verdict: %s", out.Verdict)
		if len(out.Allowed) > 0 {
			fmt.Fprintf(w, "; allowed %s", strings.Join(out.Allowed, ", "))
		}
		if out.Blocked != nil {
			fmt.Fprintf(w, "; %s", out.Blocked.Reason)
		}
		if len(out.NotJudged) > 0 {
			fmt.Fprintf(w, "; not judged %s", strings.Join(out.NotJudged, ", "))
		}
		fmt.Fprintln(w)
	}
	for _, a := range out.Applied {
		fmt.Fprintf(w, "   applied %s\n", a)
	}
	for _, sk := range out.Skipped {
		fmt.Fprintf(w, "   skipped %s\n", sk)
	}
	if l := out.Lore; l != nil {
		fmt.Fprintf(w, "   scene %d lore briefs: %s\n", l.Scene, orDash(strings.Join(l.Briefed, ", ")))
	}
	if c.Error != "" {
		fmt.Fprintf(w, "   error: %s\n", c.Error)
	}
	if c.Fallback != "" {
		fmt.Fprintf(w, "   fell back to: %s\n", c.Fallback)
	}
}

// printWorldMoves lists what the world did on its own in the turn:
// consequences that fired (and who decided a trigger in words), clocks,
// scheduled events.
func printWorldMoves(w io.Writer, ps turnPasses) {
	for _, r := range ps.Resolutions {
		for _, o := range r.Outcomes {
			switch o.Action {
			case "consequence":
				fmt.Fprintf(w, "World: consequence %s fired: %s", o.Target, headline(o.Text))
				if by, _ := o.Details["checked_by"].(string); by != "" {
					why, _ := o.Details["why"].(string)
					fmt.Fprintf(w, " (trigger in words, decided %s: %s)", by, why)
				}
				fmt.Fprintln(w)
			case "clock":
				fmt.Fprintf(w, "World: %s\n", headline(o.Text))
			case "clock_full":
				fmt.Fprintf(w, "World: clock %s is full: %s\n", o.Target, headline(o.Text))
			case "event":
				fmt.Fprintf(w, "World: scheduled event %s: %s\n", o.Target, headline(o.Text))
			}
		}
	}
}

// printDropped lists what the budget left out and why, lowest
// precedence first; facts, dropped one by one, are counted together.
func printDropped(w io.Writer, budget int, drops []contextpack.Drop) {
	if len(drops) == 0 {
		return
	}
	fmt.Fprintln(w, "   dropped:")
	drops = slices.Clone(drops)
	slices.SortStableFunc(drops, func(a, b contextpack.Drop) int { return b.Tier - a.Tier })
	var facts []contextpack.Drop
	for _, d := range drops {
		if strings.HasPrefix(d.What, "fact:") {
			facts = append(facts, d)
		}
	}
	factsShown := false
	for _, d := range drops {
		what := strings.TrimPrefix(d.What, "section:")
		if strings.HasPrefix(d.What, "fact:") {
			if factsShown {
				continue
			}
			factsShown = true
			if len(facts) > 1 {
				what = fmt.Sprintf("%d facts", len(facts))
			}
		}
		fmt.Fprintf(w, "     %s\n", dropReason(what, d, budget))
	}
}

func dropReason(what string, d contextpack.Drop, budget int) string {
	if d.Tier == 0 { // a turn recorded before drops kept their reasons
		return what
	}
	return fmt.Sprintf("%s (tier %d, %d tokens) because budget %d exceeded by %d", what, d.Tier, d.Tokens, budget, d.Over)
}

func viewerName(role, character string) string {
	if character != "" {
		return role + " " + character
	}
	return role
}

func promptList(m map[string]string) string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	if len(out) == 0 {
		return "-"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indent(s string) string {
	return "      " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n      ")
}

func headline(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

func newReplay(g *globals) *cobra.Command {
	f := &modelFlags{}
	var session, cassetteFile string
	var exact, showPrompts bool
	var pins []string
	cmd := &cobra.Command{
		Use:   "replay SESSION",
		Short: g.t("cli.short.replay", nil),
		Long: `Replay the player's inputs of a saved game (its current branch) in a scratch
copy — the original is never touched — with the same campaign, dice seed and
pipeline, and print per turn what changed: the narration, the effects,
rejections, repairs and fallbacks, tokens and latency.

The models answer from a cassette recorded with 'hearth play --record FILE'
(--cassette FILE), so a run can be replayed without the model; or from any
configured model (--provider, --model) to compare models. --prompt runs other
prompt versions than the campaign's pins, --prompts a directory of overrides;
--prompt-versions shows per turn which versions ran originally and in the
replay, and what the changed ones changed.

By default a cassette answers in the order it was recorded even when the
requests changed, and the replay counts the calls that diverged. --exact
accepts only the requests the cassette recorded (compared without the model
name and the servers' tool call ids) and stops at the first that differs,
naming the turn, the pass and the field; every recorded call must be asked
for. Record each game to a cassette of its own for --exact.`,
		Example: `  hearth play --new --provider ollama --model llama3.2 --record saltmere.jsonl
  hearth replay 3f9a1c2b7d10 --cassette saltmere.jsonl --exact
  hearth replay 3f9a1c2b7d10 --cassette saltmere.jsonl --prompt narrator@2 --prompt-versions
  hearth replay 3f9a1c2b7d10 --provider ollama --model qwen3 --prompt interpreter@2`,
		Args: func(cmd *cobra.Command, args []string) error {
			// --prompt-versions once took the versions to run.
			if len(args) == 2 && showPrompts {
				if _, err := prompt.ParsePins(args[1]); err == nil {
					return usageError{errors.New(g.t("cli.replay.prompt_flag", map[string]any{"Pins": args[1]}))}
				}
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			session = args[0]
			ctx := cmd.Context()
			if exact && cassetteFile == "" {
				return usageError{errors.New(g.t("cli.replay.exact_needs_cassette", nil))}
			}
			f.pins = strings.Join(pins, ",")
			if _, err := f.load(g); err != nil {
				return err
			}
			a, err := g.openApp(ctx, app.Options{Plan: f.plan, NoSubagents: f.noSubagents})
			if err != nil {
				return err
			}
			defer a.Close()
			return func() error {
				orig, err := game.Open(ctx, a.Store(), session, game.Options{})
				if err != nil {
					return err
				}
				c, err := g.loadCampaign(ctx, f.campaignDir(orig))
				if err != nil {
					return err
				}
				var mode cassette.Mode = cassette.InOrder
				if exact {
					mode = cassette.Exact
				}
				var tape []cassette.Interaction
				if cassetteFile != "" {
					if tape, err = cassette.Load(cassetteFile); err != nil {
						return err
					}
					if len(tape) == 0 {
						// Without calls it would replay with the configured models.
						return errors.New(g.t("cli.replay.empty_cassette", map[string]any{"File": cassetteFile}))
					}
				}
				return replay(ctx, g, a, orig, c, replayOptions{tape: tape, mode: mode, pipeline: f.pipeline, prompts: showPrompts})
			}()
		},
	}
	// Replay shows prompt versions with --prompt-versions and runs others
	// with --prompt; the other model flags are play's.
	models := pflag.NewFlagSet("models", pflag.ContinueOnError)
	f.add(models)
	models.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "prompt-versions" {
			cmd.Flags().AddFlag(fl)
		}
	})
	cmd.Flags().StringVar(&cassetteFile, "cassette", "", "answer model calls from this recording instead of a model")
	cmd.Flags().BoolVar(&exact, "exact", false, "with --cassette, accept only the recorded requests and stop at the first that differs")
	cmd.Flags().StringSliceVar(&pins, "prompt", nil, "prompt versions to run instead of the campaign's pins, e.g. narrator@2,interpreter@2 (repeatable)")
	cmd.Flags().BoolVar(&showPrompts, "prompt-versions", false, "show per turn which prompt versions ran originally and in the replay, and what changed")
	return cmd
}

// campaignDir is where a saved game's campaign is: its recorded directory
// if it still exists, else the built-in campaign.
func (f *modelFlags) campaignDir(s *game.Session) string {
	if p := s.CampaignPath(); p != "" {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	return ""
}
