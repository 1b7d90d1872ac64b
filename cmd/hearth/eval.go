package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/evaluate"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store"
)

func newEval(g *globals) *cobra.Command {
	var transcript string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "eval [SESSION]",
		Short: g.t("cli.short.eval", nil),
		Long: `Measure how well the game master played a saved game, from its recorded
turns: contradictions with established facts (a lexical check: it points at
turns to read), invalid actions narrated as if they succeeded, the
clarification rate, response length, lore passages per turn with their
relevance and the scene-cache hit rate, the callback rate, tokens and latency
per model pass, and the turns players flagged with /flag.

Without SESSION the most recently played game is evaluated; --transcript
evaluates a JSON transcript instead ('hearth export SESSION --format json',
/export json in play, or the transcript download). Nothing is changed.`,
		Example: `  hearth eval
  hearth eval 3f9a1c2b7d10 --json | jq '.clarification.share'
  hearth eval --transcript saltmere.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var in evaluate.Input
			switch {
			case transcript != "" && len(args) > 0:
				return usageError{errors.New(g.t("cli.eval.both", nil))}
			case transcript != "":
				b, err := os.ReadFile(transcript)
				if err != nil {
					return err
				}
				var tr game.Transcript
				if err := json.Unmarshal(b, &tr); err != nil || tr.Session == "" {
					return g.fail("cli.eval.not_a_transcript", map[string]any{"File": transcript}, cmp.Or(err, errors.New("it names no session")))
				}
				in = evaluate.Input{Session: tr.Session, Title: tr.Title, Turns: tr.Turns, Flags: tr.Flags}
			default:
				id := ""
				if len(args) > 0 {
					id = args[0]
				}
				err := g.withStore(ctx, func(db store.Store) error {
					s, err := g.openForInspection(ctx, db, id)
					if err != nil {
						return err
					}
					if in.Turns, err = s.Turns(ctx, 1, s.Turn()); err != nil {
						return err
					}
					if in.Flags, err = s.Flags(ctx); err != nil {
						return err
					}
					w := s.World()
					in.Session, in.Title, in.Names = s.ID(), s.Title(), map[string]string{}
					for _, f := range w.Facts {
						in.Facts = append(in.Facts, *f)
					}
					for id, c := range w.Characters {
						in.Names[id] = c.Name
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			r := evaluate.Evaluate(in)
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			return r.Write(g.stdout)
		},
	}
	cmd.Flags().StringVar(&transcript, "transcript", "", "evaluate a JSON transcript file instead of a saved game")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
