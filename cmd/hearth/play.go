package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/rules"
)

type playFlags struct {
	campaign string
	seed     uint64
	fresh    bool
	session  string
	models   modelFlags
}

func newPlay(g *globals) *cobra.Command {
	f := &playFlags{}
	cmd := &cobra.Command{
		Use:   "play",
		Short: g.t("cli.short.play", nil),
		Long: `Play a campaign line by line in the terminal. Type what your character does
("look", "go north", "talk to Mira about the lantern", "attack the smuggler",
"search", "take the lens", "use potion"); type help for more.

Every turn is saved as it is played. Without --new or --session, play resumes
your most recent game of the campaign.

The lore of the campaign and its packs is indexed while you play (the first
game of a data directory, or after a pack changed): until the index is ready
the game master plays without it, and 'hearth context TURN' says how far it
got. Leaving early is safe; the next game carries on with the index.

Commands (start with a slash):
  /help               this list
  /look               describe where you are (takes no turn)
  /sheet              your character sheet
  /inventory          what you carry
  /quests             your quests
  /roll NOTATION      roll dice, e.g. /roll 4d6kh3 or /roll 1d20+dex
  /save               every turn is already saved; shows where
  /turns [N]          the last N turns (default 10)
  /restore N          go back to turn N (acting from there starts a branch;
                      the same action rolls the same dice, for exact replays)
  /restore N --reroll go back to turn N and reroll fate: new dice from there
  /fork NAME          start a branch named NAME at this turn
  /switch NAME        continue another branch from its latest turn
  /branches           list branches
  /export [md|json] [FILE]  write a transcript (default markdown to the screen)
  /flag [N] REASON    flag turn N (default the last) as wrong, with why; it
                      changes nothing in the game ('hearth eval' lists flags)
  /quit               leave (also "quit" or Ctrl-D)

Input can be piped from a file: each line is one command, echoed after the
prompt so the output reads as a transcript.`,
		Example: `  hearth play
  hearth play --new --seed 42
  hearth play --campaign ./my-campaign --data ./saves
  hearth play --new --seed 1 < moves.txt   # one command per line`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlay(cmd.Context(), g, f)
		},
	}
	cmd.Flags().StringVar(&f.campaign, "campaign", "", "campaign directory, or the name of a built-in campaign (saltmere, the_ferry_at_greywater); default: The Lantern of Saltmere")
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "dice seed for a new game (default random; the seed is saved with the game)")
	cmd.Flags().BoolVar(&f.fresh, "new", false, "start a new game instead of resuming the last one")
	cmd.Flags().StringVar(&f.session, "session", "", "resume the saved game with this ID (see 'hearth sessions')")
	f.models.add(cmd.Flags())
	return cmd
}

// loadCampaign loads --campaign, or the campaign built into the binary.
func (g *globals) loadCampaign(ctx context.Context, dir string) (*campaign.Campaign, error) {
	c, err := app.LoadCampaign(ctx, dir)
	switch {
	case err != nil && dir == "":
		return nil, g.fail("cli.play.bundled_broken", nil, err)
	case err != nil:
		return nil, g.fail("cli.play.campaign_failed", map[string]any{"Dir": dir}, err)
	}
	return c, nil
}

func runPlay(ctx context.Context, g *globals, f *playFlags) error {
	if _, err := f.models.load(g); err != nil {
		return err
	}
	// The first game of a fresh data directory starts at once; the lore
	// index is built while it plays.
	opts := app.Options{Plan: f.models.plan, NoSubagents: f.models.noSubagents, IndexInBackground: true}
	opts.IndexHold = indexHold(g.environ)
	if f.models.record != "" {
		rf, err := os.OpenFile(f.models.record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return g.fail("cli.play.cassette_failed", nil, err)
		}
		defer rf.Close()
		opts.Record = rf
		// A recording is for replays, which read the whole index; a
		// game recorded while the index was still building would ask
		// its models with less lore than any replay can.
		opts.IndexInBackground = false
	}
	a, err := g.openApp(ctx, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	return play(ctx, g, f, a)
}

// Test hooks: with HEARTH_PLAY_INDEX_PAUSE_AFTER=N, hearth play holds its
// background index build once N files are done, until the file named by
// HEARTH_PLAY_INDEX_RESUME exists or the game ends, so a test can see
// the game before its index is ready, and leave it part-way.
const (
	indexPauseEnv  = "HEARTH_PLAY_INDEX_PAUSE_AFTER"
	indexResumeEnv = "HEARTH_PLAY_INDEX_RESUME"
)

func indexHold(environ []string) func(ctx context.Context, done, total int) {
	after, err := strconv.Atoi(lookupEnv(environ, indexPauseEnv))
	if err != nil {
		return nil
	}
	resume := lookupEnv(environ, indexResumeEnv)
	return func(ctx context.Context, done, total int) {
		if done < after {
			return
		}
		for {
			if resume != "" {
				if _, err := os.Stat(resume); err == nil {
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

func play(ctx context.Context, g *globals, f *playFlags, a *app.App) error {
	out := g.stdout
	var s *game.Session
	switch {
	case f.session != "":
		var err error
		if s, err = a.OpenGame(ctx, f.session, game.Options{}); err != nil {
			return err
		}
	default:
		c, err := g.loadCampaign(ctx, f.campaign)
		if err != nil {
			return err
		}
		for _, w := range c.Warnings {
			fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": w}))
		}
		if !f.fresh {
			if id, err := a.LatestGame(ctx, rules.Slug(c.Meta.Title)); err != nil {
				return err
			} else if id != "" {
				if s, err = a.OpenGame(ctx, id, game.Options{}); err != nil {
					return err
				}
			}
		}
		if s == nil {
			if s, err = a.NewGame(ctx, c, f.seed, game.Options{}); err != nil {
				return err
			}
		}
	}
	width := wrapWidth(out)
	pal := newPalette(out, g.environ)
	// Wrap first: the colour codes take no columns.
	emit := func(p string) { fmt.Fprint(out, pal.narration(wrap(p, width))) }
	if _, ok := s.Pipeline().(*modelgm.Pipeline); ok {
		// A model streams in small pieces: print them as they come.
		emit = func(p string) { fmt.Fprint(out, p) }
	}
	if s.Turn() == 0 {
		fmt.Fprintf(out, "%s\n%s\n\n", s.Title(), strings.Repeat("=", len([]rune(s.Title()))))
		if s.Intro() != "" {
			fmt.Fprintf(out, "%s\n\n", wrap(strings.TrimSpace(s.Intro()), width))
		}
		fmt.Fprintf(out, "%s\n\n", g.t("cli.play.new_game", map[string]any{"ID": s.ID(), "Seed": s.Seed()}))
	} else {
		fmt.Fprintf(out, "%s\n\n", g.t("cli.play.resuming", map[string]any{"Title": s.Title(), "ID": s.ID(), "Turn": s.Turn(), "Branch": s.Branch()}))
	}
	ep, err := s.BeginEpisode(ctx)
	if err != nil {
		return err
	}
	if ep.Recap != "" {
		fmt.Fprintf(out, "%s\n\n", g.t("cli.play.previously", map[string]any{"Recap": wrap(ep.Recap, width)}))
	}
	defer func() {
		if _, err := s.EndEpisode(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintln(g.stderr, g.t("cli.play.episode_not_closed", map[string]any{"Err": err.Error()}))
		}
	}()
	if _, err := s.Look(ctx, emit); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%s\n", game.Status(s.World(), s.Turn(), s.Branch()))
	return repl(ctx, g, s)
}

// maxLine bounds one line of input; the game itself refuses long input
// with a message, this only protects memory.
const maxLine = 64 * 1024

func repl(ctx context.Context, g *globals, s *game.Session) error {
	out := g.stdout
	width := wrapWidth(out)
	pal := newPalette(out, g.environ)
	// Wrap first: the colour codes take no columns.
	emit := func(p string) { fmt.Fprint(out, pal.narration(wrap(p, width))) }
	var historyFile string
	if dir, err := g.dataDir(); err == nil {
		historyFile = filepath.Join(dir, "play_history")
	}
	lines := newLineReader(g.stdin, out, lineOptions{HistoryFile: historyFile, Complete: func(string) []string { return words(s) }})
	echo := !isTerminal(g.stdin)
	for {
		fmt.Fprint(out, "\n")
		raw, err := lines.ReadLine("> ")
		if err != nil {
			fmt.Fprintln(out)
			if !errors.Is(err, io.EOF) {
				return g.fail("cli.play.read_failed", nil, err)
			}
			return nil
		}
		line := strings.TrimSpace(raw)
		if echo {
			fmt.Fprintln(out, line)
		} else if line != "" {
			fmt.Fprintln(out)
		}
		if ctx.Err() != nil {
			return nil
		}
		if line == "" {
			continue
		}
		// "quit" alone is how every text adventure is left; nobody means
		// it as an action in the story.
		if strings.EqualFold(line, "quit") {
			line = "/quit"
		}
		if strings.HasPrefix(line, "/") {
			quit, err := slash(ctx, g, s, line)
			if err != nil {
				var inv error = err
				if errors.Is(err, game.ErrInvalid) {
					fmt.Fprintln(out, strings.TrimPrefix(inv.Error(), "invalid: "))
					continue
				}
				return err
			}
			if quit {
				return nil
			}
			continue
		}
		resp, err := s.ActStream(ctx, line, emit)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		printAfter(out, s, resp, width, pal)
	}
}

// slashCommands are what Tab completes a word starting with "/" to.
var slashCommands = []string{"/help", "/look", "/sheet", "/inventory", "/quests", "/roll", "/save", "/turns",
	"/restore", "/fork", "/switch", "/branches", "/export", "/flag", "/quit"}

// words are what Tab may complete to: the slash commands, and what the
// player can see here — people, things, exits — and carries; hidden exits
// and GM-only names stay out, as the player's view of the world cuts them.
func words(s *game.Session) []string {
	out := slices.Clone(slashCommands)
	w := s.World().View(access.Player, s.World().Player)
	pc := w.PC()
	if pc == nil {
		return out
	}
	for id := range pc.Inventory {
		if it := w.Items[id]; it != nil {
			out = append(out, it.Name)
		}
	}
	here := w.Here()
	if here == nil {
		return out
	}
	for _, c := range w.CharactersAt(here.ID) {
		if f := strings.Fields(c.Name); len(f) > 0 {
			out = append(out, c.Name, f[0])
		}
	}
	for id := range here.Items {
		if it := w.Items[id]; it != nil {
			out = append(out, it.Name)
		}
	}
	for _, e := range here.Exits {
		if e.Hidden {
			continue
		}
		out = append(out, e.Direction)
		if l := w.Locations[e.To]; l != nil {
			out = append(out, l.Name)
		}
	}
	return slices.DeleteFunc(out, func(x string) bool { return x == "" })
}

func printAfter(out io.Writer, s *game.Session, resp *game.Response, width int, pal palette) {
	if !strings.HasSuffix(resp.Narrative, "\n") {
		fmt.Fprintln(out)
	}
	if resp.Notice != "" {
		fmt.Fprintf(out, "\n%s\n", wrap("("+resp.Notice+")", width))
	}
	if resp.Awaiting.Kind == game.Choice {
		fmt.Fprintln(out)
		for i, o := range resp.Awaiting.Options {
			fmt.Fprintln(out, wrap(fmt.Sprintf("  %d. %s", i+1, o), width))
		}
	}
	if resp.Committed {
		fmt.Fprintf(out, "\n%s\n", pal.status(game.Status(s.World(), s.Turn(), s.Branch())))
	}
}

// slash runs a /command; it reports whether to quit.
func slash(ctx context.Context, g *globals, s *game.Session, line string) (bool, error) {
	out := g.stdout
	width := wrapWidth(out)
	pal := newPalette(out, g.environ)
	// Wrap first: the colour codes take no columns.
	emit := func(p string) { fmt.Fprint(out, pal.narration(wrap(p, width))) }
	fields := strings.Fields(line)
	cmd, args := strings.ToLower(fields[0]), fields[1:]
	act := func(input string) error {
		resp, err := s.ActStream(ctx, input, emit)
		if err != nil {
			return err
		}
		printAfter(out, s, resp, width, pal)
		return nil
	}
	switch cmd {
	case "/quit", "/exit", "/q":
		fmt.Fprintln(out, g.t("cli.play.saved", map[string]any{"Turn": s.Turn(), "ID": s.ID()}))
		return true, nil
	case "/help", "/h", "/?":
		fmt.Fprintln(out, g.t("cli.play.slash_help", nil))
	case "/look", "/l":
		if _, err := s.Look(ctx, emit); err != nil {
			return false, err
		}
	case "/sheet", "/stats":
		fmt.Fprintln(out, game.Sheet(s.World()))
	case "/inventory", "/inv", "/i":
		fmt.Fprintln(out, game.Inventory(s.World()))
	case "/quests", "/journal":
		fmt.Fprintln(out, game.Quests(s.World()))
	case "/roll":
		if len(args) == 0 {
			fmt.Fprintln(out, g.t("cli.play.roll_what", nil))
			return false, nil
		}
		return false, act("roll " + strings.Join(args, " "))
	case "/save":
		dir, _ := g.dataDir()
		where := filepath.Join(dir, "hearth.db")
		if cfg, _, err := g.loadConfig(); err == nil && cfg.Database.URL != "" {
			where = "PostgreSQL (database.url)" // the URL may hold a password
		}
		fmt.Fprintln(out, g.t("cli.play.save", map[string]any{"ID": s.ID(), "Turn": s.Turn(), "Branch": s.Branch(), "File": where}))
	case "/turns", "/history":
		n := 10
		if len(args) > 0 {
			v, err := strconv.Atoi(args[0])
			if err != nil || v <= 0 {
				fmt.Fprintln(out, g.t("cli.play.turns_usage", nil))
				return false, nil
			}
			n = v
		}
		ts, err := s.Turns(ctx, s.Turn()-n+1, s.Turn())
		if err != nil {
			return false, err
		}
		if len(ts) == 0 {
			fmt.Fprintln(out, g.t("cli.play.no_turns", nil))
		}
		for _, t := range ts {
			fmt.Fprintf(out, "%4d  > %s\n      %s\n", t.Number, t.Input, firstLine(t.Narrative))
		}
	case "/restore":
		reroll := len(args) == 2 && args[1] == "--reroll"
		if reroll {
			args = args[:1]
		}
		if len(args) != 1 {
			fmt.Fprintln(out, g.t("cli.play.restore_usage", nil))
			return false, nil
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			fmt.Fprintln(out, g.t("cli.play.not_a_turn", map[string]any{"Arg": strconv.Quote(args[0])}))
			return false, nil
		}
		if err := s.Restore(ctx, n); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "%s\n\n", g.t("cli.play.restored", map[string]any{"Turn": n, "Branch": s.Branch()}))
		if reroll {
			s.Reroll()
			fmt.Fprintf(out, "%s\n\n", g.t("cli.play.rerolled", nil))
		}
		if _, err := s.Look(ctx, emit); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "\n%s\n", pal.status(game.Status(s.World(), s.Turn(), s.Branch())))
	case "/fork":
		if len(args) != 1 {
			fmt.Fprintln(out, g.t("cli.play.fork_usage", nil))
			return false, nil
		}
		if _, err := s.Fork(ctx, args[0]); err != nil {
			return false, err
		}
		fmt.Fprintln(out, g.t("cli.play.forked", map[string]any{"Branch": args[0], "Turn": s.Turn()}))
	case "/switch", "/checkout":
		if len(args) != 1 {
			fmt.Fprintln(out, g.t("cli.play.switch_usage", nil))
			return false, nil
		}
		if err := s.Switch(ctx, args[0]); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "%s\n\n", g.t("cli.play.switched", map[string]any{"Branch": s.Branch(), "Turn": s.Turn()}))
		if _, err := s.Look(ctx, emit); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "\n%s\n", pal.status(game.Status(s.World(), s.Turn(), s.Branch())))
	case "/branches":
		bs, err := s.Branches(ctx)
		if err != nil {
			return false, err
		}
		for _, b := range bs {
			mark := " "
			if b.Current {
				mark = "*"
			}
			from := ""
			if b.Parent != "" {
				from = " " + g.t("cli.play.branch_from", map[string]any{"Parent": b.Parent, "Turn": b.ForkTurn})
			}
			fmt.Fprintf(out, "%s %-16s %s%s\n", mark, b.Name, g.t("cli.play.branch_tip", map[string]any{"Tip": b.Tip}), from)
		}
	case "/flag":
		// The reason as typed, spacing kept, after the command and turn.
		n, reason := 0, strings.TrimSpace(line[len(fields[0]):])
		if len(args) > 0 {
			if v, err := strconv.Atoi(args[0]); err == nil {
				n, reason = v, strings.TrimSpace(reason[len(args[0]):])
			}
		}
		if reason == "" {
			fmt.Fprintln(out, g.t("cli.play.flag_usage", nil))
			return false, nil
		}
		f, err := s.Flag(ctx, n, "", reason)
		if err != nil {
			return false, err
		}
		fmt.Fprintln(out, g.t("cli.play.flagged", map[string]any{"Turn": f.Turn, "ID": s.ID()}))
	case "/export":
		format, file := "markdown", ""
		for _, a := range args {
			switch strings.ToLower(a) {
			case "md", "markdown", "json":
				format = a
			default:
				file = a
			}
		}
		w := out
		if file != "" {
			fh, err := os.Create(file)
			if err != nil {
				fmt.Fprintln(out, g.t("cli.play.export_failed", map[string]any{"File": file, "Err": err.Error()}))
				return false, nil
			}
			defer fh.Close()
			w = fh
		}
		if err := s.Export(ctx, w, format); err != nil {
			return false, err
		}
		if file != "" {
			fmt.Fprintln(out, g.t("cli.play.exported", map[string]any{"File": file}))
		}
	default:
		fmt.Fprintln(out, g.t("cli.play.unknown_command", map[string]any{"Command": cmd}))
	}
	return false, nil
}

// firstLine is the first line of a narrative that is not a heading.
func firstLine(s string) string {
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "==") {
			s = l
			break
		}
	}
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// lookupEnv is the value of key in environ ("KEY=value"), or "".
func lookupEnv(environ []string, key string) string {
	for _, kv := range slices.Backward(environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
