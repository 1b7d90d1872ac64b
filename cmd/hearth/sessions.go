package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store"
)

func newSessions(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "sessions",
		Aliases: []string{"games", "ls"},
		Short:   g.t("cli.short.sessions", nil),
		Long:    "List saved games, newest first, with their campaign, turn and branch.",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd.Context(), func(db store.Store) error { return listSessions(cmd.Context(), g, db) })
		},
	}
}

func listSessions(ctx context.Context, g *globals, db store.Store) error {
	ss, err := db.Sessions(ctx)
	if err != nil {
		return err
	}
	if len(ss) == 0 {
		fmt.Fprintln(g.stdout, g.t("cli.sessions.none", nil))
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCAMPAIGN\tTURN\tBRANCH\tUPDATED")
	for _, s := range ss {
		branch := ""
		if bs, err := db.Branches(ctx, s.ID); err == nil {
			for _, b := range bs {
				if b.ID == s.Branch {
					branch = b.Name
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Name, s.Head, branch, s.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func newExport(g *globals) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "export SESSION",
		Short: g.t("cli.short.export", nil),
		Long: `Write the transcript of a saved game — the current branch up to the current
turn — as Markdown (for reading) or JSON (every turn's input, intents, effects,
dice rolls and narrative).`,
		Example: `  hearth export 3f9a1c2b7d10 --format md -o saltmere.md
  hearth export 3f9a1c2b7d10 --format json | jq '.turns | length'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return g.withStore(ctx, func(db store.Store) error {
				s, err := game.Open(ctx, db, args[0], game.Options{})
				if err != nil {
					return err
				}
				w := g.stdout
				if output != "" && output != "-" {
					f, err := os.Create(output)
					if err != nil {
						return err
					}
					defer f.Close()
					w = f
				}
				return s.Export(ctx, w, format)
			})
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "markdown", "markdown (md) or json")
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default standard output)")
	return cmd
}

func newVerify(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "verify [SESSION...]",
		Short: g.t("cli.short.verify", nil),
		Long: `Reopen saved games (all of them by default) and check each: the state rebuilt
from its latest snapshot must equal the state rebuilt by replaying every
turn's effects from the start, dice state included. Use it after a crash or
before trusting a backup.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return g.withStore(ctx, func(db store.Store) error { return verify(ctx, g, db, args) })
		},
	}
}

func verify(ctx context.Context, g *globals, db store.Store, ids []string) error {
	if len(ids) == 0 {
		ss, err := db.Sessions(ctx)
		if err != nil {
			return err
		}
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
	}
	bad := 0
	for _, id := range ids {
		s, err := game.Open(ctx, db, id, game.Options{})
		if err == nil {
			err = s.Verify(ctx)
		}
		if err != nil {
			bad++
			fmt.Fprintf(g.stdout, "%s  FAIL  %v\n", id, err)
			continue
		}
		fmt.Fprintf(g.stdout, "%s  ok    turn %d on %s\n", id, s.Turn(), s.Branch())
	}
	if bad > 0 {
		return errors.New(g.t("cli.verify.failed", map[string]any{"Bad": bad, "Total": len(ids)}))
	}
	return nil
}
