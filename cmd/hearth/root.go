package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/store"
)

// versionString is the binary's version and VCS revision, from its build
// information (see hearth.Version).
func versionString() string { return hearth.Version().String() }

// globals are the flags every command shares, and the configuration
// once loaded.
type globals struct {
	data       string
	configFile string
	verbose    bool
	environ    []string
	cfg        *config.Config
	src        *config.Source
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	// loc speaks the language of the user's locale (LANG and friends).
	loc i18n.Localizer
}

// t is the message id in the user's language, data filled in.
func (g *globals) t(id string, data map[string]any) string {
	return g.loc.T(id, data)
}

// fail is an error saying message id in the user's language, with the
// cause's text as {{.Err}}; errors.Is and As still see the cause.
func (g *globals) fail(id string, data map[string]any, err error) error {
	d := map[string]any{"Err": err.Error()}
	for k, v := range data {
		d[k] = v
	}
	return userMessage{g.t(id, d), err}
}

// newRoot builds the command tree; environ (as os.Environ gives it)
// chooses the language of its messages.
func newRoot(stdin io.Reader, stdout, stderr io.Writer, environ []string) *cobra.Command {
	// The embedded catalogs are checked by the i18n tests.
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr, environ: environ, loc: i18n.MustLoad().ForEnv(environ)}
	root := &cobra.Command{
		Use:   "hearth",
		Short: g.t("cli.short.root", nil),
		Long: `Hearth runs tabletop role-playing games: a deterministic rules engine decides
what happens, a narrator tells it, and every turn is saved as it is played, so
any game can be resumed, rewound to an earlier turn, or forked into branches.

With no model configured Hearth plays offline, with a built-in interpreter and
narrator grounded in the campaign's own text.

Data lives in one SQLite file in the data directory: --data, else
storage.data_dir in the configuration, else $HEARTH_DATA, else the user data
directory (~/.local/share/hearth on Linux).

One configuration serves every command: built-in defaults, then the file
(--config, else $HEARTH_CONFIG, else ~/.config/hearth/config.toml; YAML is
accepted too), then HEARTH__SECTION__KEY variables, then flags. 'hearth
config show' prints the result and where each value came from; 'hearth
config init' writes a commented file to start from.

` + exitStatuses,
		Example: `  hearth play                          # play the bundled campaign, resuming your last game
  hearth play --new --seed 7           # a fresh, reproducible game
  hearth play < commands.txt           # play a scripted session
  hearth sessions                      # list saved games
  hearth export SESSION --format md    # write a transcript`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level})))
			return nil
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{g.fail("cli.usage_hint", map[string]any{"Command": cmd.CommandPath()}, err)}
	})
	root.PersistentFlags().StringVar(&g.data, "data", "", "data directory holding hearth.db (default storage.data_dir, $HEARTH_DATA or the user data directory)")
	root.PersistentFlags().StringVar(&g.configFile, "config", "", "configuration file, TOML or YAML (default $HEARTH_CONFIG or ~/.config/hearth/config.toml when present)")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log debug detail to stderr")
	root.AddCommand(newPlay(g), newSessions(g), newExport(g), newVerify(g), newModels(g), newContext(g), newReplay(g), newEval(g), newPack(g), newSearch(g), newIngest(g), newImport(g), newSkill(g), newLibrary(g), newServe(g), newFoundry(g), newMCP(g), newUser(g), newConfig(g), newDB(g), newVersion(g))
	strictUsage(g, root)
	return root
}

// strictUsage makes c's and its subcommands' argument mistakes usage
// errors (exit status 2, with the hint to --help), as flag mistakes are:
// positional arguments a command does not take, and an unknown
// subcommand, which cobra answers with the group's help and status 0
// below the root and with status 1 at it.
func strictUsage(g *globals, c *cobra.Command) {
	usage := func(cmd *cobra.Command, err error) error {
		return usageError{g.fail("cli.usage_hint", map[string]any{"Command": cmd.CommandPath()}, err)}
	}
	if c.HasSubCommands() && !c.Runnable() {
		// A group: run, it shows its help, or names the unknown command.
		c.Args = cobra.ArbitraryArgs // set, so cobra leaves the check to RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			err := fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
			cmd.SuggestionsMinimumDistance = 2 // cobra's own default
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				err = fmt.Errorf("%w; did you mean %s?", err, strings.Join(s, " or "))
			}
			return usage(cmd, err)
		}
	} else if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usage(cmd, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		strictUsage(g, sub)
	}
}

// withStore runs fn with the database open.
func (g *globals) withStore(ctx context.Context, fn func(store.Store) error) error {
	return g.withDatabase(ctx, func(db *database.DB) error { return fn(db.Games) })
}

func newVersion(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: g.t("cli.short.version", nil),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := hearth.Version()
			fmt.Fprintf(g.stdout, "hearth %s\n", v)
			if v.Revision != "" {
				fmt.Fprintf(g.stdout, "revision %s\ncommitted %s\nmodified %t\n", v.Revision, v.Time.Format(time.RFC3339), v.Modified)
			}
			fmt.Fprintf(g.stdout, "built with %s\n", v.Go)
			return nil
		},
	}
}
