package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/prompt"
)

// replayStats adds up a replay, as the evaluation tracker reports it.
type replayStats struct {
	turns, sameText, sameEffects, rejected, repairs, fallbacks, invalid, asked int
	usage                                                                      llm.Usage
	millis                                                                     int64
}

// replayOptions are how a replay runs.
type replayOptions struct {
	tape     []cassette.Interaction // nil: the configured models answer
	mode     cassette.Mode
	pipeline string // "": the one the original played with
	prompts  bool   // show the prompt versions per turn
}

func replay(ctx context.Context, g *globals, a *app.App, orig *game.Session, c *campaign.Campaign, ro replayOptions) error {
	tape, mode, pipeline := ro.tape, ro.mode, ro.pipeline
	dir, err := os.MkdirTemp("", "hearth-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// A scratch App over a scratch data directory, prepared as play
	// prepares a game (lore, beats, memories, the pipeline), so the replay
	// asks the models what the original asked, and nothing of the
	// original's data directory is written.
	cfg := *a.Config()
	cfg.Storage.DataDir, cfg.Database.URL = dir, ""
	if pipeline == "" {
		pipeline = recordedPipeline(ctx, orig)
	}
	if pipeline != "" {
		cfg.Models.Pipeline = pipeline
	}
	var player *cassette.Player
	opts := app.Options{Config: &cfg, Logger: a.Logger(), Hooks: g.hooks(false), Plan: a.Plan(), NoSubagents: a.NoSubagents(), SynchronousNormal: true}
	if tape != nil {
		player = cassette.NewPlayer("cassette", mode, tape)
		opts.Replay = player
	}
	sa, err := app.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer sa.Close()
	rs, err := sa.NewGame(ctx, c, orig.Seed(), game.Options{})
	if err != nil {
		return err
	}
	if err := sa.Prepare(ctx, rs); err != nil {
		return err
	}
	turns, err := orig.Turns(ctx, 1, orig.Turn())
	if err != nil {
		return err
	}
	engine := "offline"
	if pl := rs.Pipeline(); pl != nil && pl.Name() != "" {
		engine = pl.Name()
	}
	fmt.Fprintf(g.stdout, "%s\n\n", g.t("cli.replay.start", map[string]any{"Turns": len(turns), "ID": orig.ID(), "Seed": orig.Seed(), "Engine": engine}))
	var st replayStats
	pv := promptChanges{}
	for _, t := range turns {
		resp, err := rs.Act(ctx, t.Input)
		if err == nil && resp.Awaiting.Kind == game.Confirmation {
			resp, err = rs.Act(ctx, "yes")
		}
		// The pipeline falls back offline when a call fails; an exact
		// replay must not, so the first mismatch ends it.
		if player != nil && mode == cassette.Exact && player.Mismatch() != nil {
			m := player.Mismatch()
			return errors.New(g.t("cli.replay.mismatch", map[string]any{"Turn": t.Number, "Pass": failedPass(ctx, rs), "Err": m.Error()}))
		}
		if err != nil {
			return g.fail("cli.replay.failed", map[string]any{"Turn": t.Number}, err)
		}
		st.turns++
		var line []string
		if resp.Narrative == t.Narrative {
			st.sameText++
			line = append(line, "same narration")
		} else {
			line = append(line, fmt.Sprintf("narration differs (%d → %d words)", len(strings.Fields(t.Narrative)), len(strings.Fields(resp.Narrative))))
		}
		newRecs, err := rs.Turns(ctx, rs.Turn(), rs.Turn())
		if err != nil || len(newRecs) == 0 {
			return errors.New(g.t("cli.replay.not_committed", map[string]any{"Turn": t.Number}))
		}
		a, b := effectKinds(t.Effects), effectKinds(newRecs[0].Effects)
		if a == b {
			st.sameEffects++
			line = append(line, "same effects")
		} else {
			line = append(line, fmt.Sprintf("effects %s → %s", orDash(a), orDash(b)))
		}
		var ps turnPasses
		_ = json.Unmarshal(newRecs[0].Passes, &ps)
		if ps.Rejection != nil {
			st.rejected++
			line = append(line, "rejected: "+ps.Rejection.Reason)
		}
		if ps.Clarification != nil {
			st.asked++
			line = append(line, "asked: "+ps.Clarification.Text)
		}
		for _, c := range ps.Calls {
			st.usage = st.usage.Add(c.Usage)
			st.millis += c.Millis
			if c.Report != nil && c.Report.Repaired {
				st.repairs++
			}
			if c.Fallback != "" {
				st.fallbacks++
				line = append(line, c.Pass+" fell back to "+c.Fallback)
			}
			for _, u := range c.Tools {
				if u.Error {
					st.invalid++
				}
			}
		}
		fmt.Fprintf(g.stdout, "turn %3d  %-40q %s\n", t.Number, truncate(t.Input, 38), strings.Join(line, "; "))
		if ro.prompts {
			var op turnPasses
			_ = json.Unmarshal(t.Passes, &op)
			fmt.Fprintf(g.stdout, "          prompts: %s\n", pv.turn(op.Prompts, ps.Prompts))
		}
	}
	if ro.prompts {
		reg, err := sa.Prompts(rs.Campaign().Prompts)
		if err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "\n%s", pv.summary(reg))
	}
	if player != nil {
		if err := cassetteSummary(g, player.Stats(), mode); err != nil {
			return err
		}
	}
	fmt.Fprintf(g.stdout, "\n%d turns: %d with the same narration, %d with the same effects; %d rejected, %d asked for clarification, %d invalid tool calls, %d repairs, %d fallbacks; %d prompt + %d completion tokens; %d ms in models.\n",
		st.turns, st.sameText, st.sameEffects, st.rejected, st.asked, st.invalid, st.repairs, st.fallbacks,
		st.usage.PromptTokens, st.usage.CompletionTokens, st.millis)
	// The callback rate (seed 002 FR80) of the original and of the replay.
	replayed, err := rs.Turns(ctx, 1, rs.Turn())
	if err != nil {
		return err
	}
	or, oe := game.CallbackRate(turns)
	rr, re := game.CallbackRate(replayed)
	fmt.Fprintf(g.stdout, "callback rate: %s originally, %s replayed.\n", rate(or, oe), rate(rr, re))
	return nil
}

// cassetteSummary says how the cassette answered: in exact mode every
// recorded call must have been asked for, in order mode how many calls
// diverged from the recording.
func cassetteSummary(g *globals, st cassette.Stats, mode cassette.Mode) error {
	if mode == cassette.Exact && st.Unused > 0 {
		return errors.New(g.t("cli.replay.unused", map[string]any{"Unused": st.Unused, "Recorded": st.Recorded, "First": st.FirstUnused}))
	}
	if mode == cassette.Exact {
		fmt.Fprintf(g.stdout, "\n%s\n", g.t("cli.replay.matched", map[string]any{"Matched": st.Matched, "Calls": st.Calls}))
		return nil
	}
	fmt.Fprintf(g.stdout, "\n%s\n", g.t("cli.replay.diverged", map[string]any{"Diverged": st.Diverged, "Calls": st.Calls, "Unused": st.Unused}))
	return nil
}

// failedPass names the pass of the replay's latest turn whose model call
// failed, e.g. "interpreter" or "agent:exploration".
func failedPass(ctx context.Context, rs *game.Session) string {
	recs, err := rs.Turns(ctx, rs.Turn(), rs.Turn())
	if err != nil || len(recs) == 0 {
		return "?"
	}
	var ps turnPasses
	_ = json.Unmarshal(recs[0].Passes, &ps)
	for _, c := range ps.Calls {
		if c.Error != "" {
			return c.Pass
		}
	}
	return "?"
}

// promptChanges counts, per change of a prompt's version between the
// original and the replay ("narrator@1 → narrator@2"), the turns it
// happened on.
type promptChanges map[[2]string]int

// turn is one turn's prompt versions, "name@v" where the original and the
// replay ran the same version, "name@v → name@w" where they did not.
func (pc promptChanges) turn(orig, replayed map[string]string) string {
	names := slices.Sorted(maps.Keys(orig))
	for n := range replayed {
		if _, ok := orig[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		a, b := cmpOr(orig[n], "—"), cmpOr(replayed[n], "—")
		if a == b {
			out = append(out, a)
			continue
		}
		pc[[2]string{a, b}]++
		out = append(out, a+" → "+b)
	}
	if len(out) == 0 {
		return "none (no model ran)"
	}
	return strings.Join(out, ", ")
}

// summary lists the changes with what the newer version of each says it
// changed, from the registry's notes.
func (pc promptChanges) summary(reg *prompt.Registry) string {
	if len(pc) == 0 {
		return "Prompt versions: the same on every turn.\n"
	}
	var b strings.Builder
	b.WriteString("Prompt versions changed:\n")
	for _, ch := range slices.SortedFunc(maps.Keys(pc), func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) }) {
		fmt.Fprintf(&b, "  %s → %s on %d turn(s)", ch[0], ch[1], pc[ch])
		if notes := newerNotes(reg, ch[0], ch[1]); notes != "" {
			fmt.Fprintf(&b, ": %s", notes)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// newerNotes is the notes of the newer of two versions of a prompt (what
// it changed), "" when it has none or is not in the registry.
func newerNotes(reg *prompt.Registry, a, b string) string {
	var name string
	newest := 0
	for _, id := range []string{a, b} {
		pins, err := prompt.ParsePins(id)
		if err != nil {
			continue
		}
		for n, v := range pins {
			if v > newest {
				name, newest = n, v
			}
		}
	}
	if newest == 0 {
		return ""
	}
	tm, err := reg.Version(name, newest)
	if err != nil {
		return ""
	}
	return tm.Notes
}

// recordedPipeline is the pipeline the original game's latest turn
// played with, "" when none is recorded.
func recordedPipeline(ctx context.Context, s *game.Session) string {
	recs, err := s.Turns(ctx, 1, s.Turn())
	if err != nil {
		return ""
	}
	for i := len(recs) - 1; i >= 0; i-- {
		var ps turnPasses
		if json.Unmarshal(recs[i].Passes, &ps) == nil && ps.Pipeline != "" {
			return ps.Pipeline
		}
	}
	return ""
}

// rate shows n of all as a percentage.
func rate(n, all int) string {
	if all == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, all, 100*float64(n)/float64(all))
}

// effectKinds lists a turn's effect kinds, for comparison.
func effectKinds(raw json.RawMessage) string {
	var es []struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(raw, &es)
	var out []string
	for _, e := range es {
		if e.Kind != "turn_began" {
			out = append(out, e.Kind)
		}
	}
	return strings.Join(out, ",")
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
