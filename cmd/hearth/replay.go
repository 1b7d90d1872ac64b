package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// replayStats adds up a replay, as the evaluation tracker reports it.
type replayStats struct {
	turns, sameText, sameEffects, rejected, repairs, fallbacks, invalid, asked int
	usage                                                                      llm.Usage
	millis                                                                     int64
}

func replay(ctx context.Context, g *globals, a *app.App, orig *game.Session, c *campaign.Campaign,
	tape []cassette.Interaction, mode cassette.Mode) error {
	dir, err := os.MkdirTemp("", "hearth-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	scratch, err := sqlitestore.Open(ctx, dir, sqlitestore.WithSynchronousNormal())
	if err != nil {
		return err
	}
	defer scratch.Close()

	var pl *modelgm.Pipeline
	docs := modelgm.NewCampaignDocs(c)
	camp := orig.Campaign()
	cfg := a.Config()
	if tape != nil {
		player := cassette.NewPlayer("cassette", mode, tape)
		reg, err := a.Prompts(camp.Prompts)
		if err != nil {
			return err
		}
		role := modelgm.Role{Provider: player, Model: a.Role("narrator").Model}
		pl, err = modelgm.New(modelgm.Config{Mode: cmpOr(cfg.Models.Pipeline, camp.Pipeline), Narrator: role, Prompts: reg,
			Budget: cfg.Models.ContextBudget, Documents: docs, Plan: a.Plan(), NoSubagents: a.NoSubagents()})
		if err != nil {
			return err
		}
	} else if pl, err = a.ModelPipeline(ctx, cmpOr(cfg.Models.Pipeline, camp.Pipeline), camp.Prompts, docs); err != nil {
		return err
	}
	rs, err := game.New(ctx, scratch, c, orig.Seed(), game.Options{})
	if err != nil {
		return err
	}
	if pl != nil {
		rs.UsePipeline(pl)
	}
	turns, err := orig.Turns(ctx, 1, orig.Turn())
	if err != nil {
		return err
	}
	engine := "offline"
	if pl != nil {
		engine = pl.Name()
	}
	fmt.Fprintf(g.stdout, "%s\n\n", g.t("cli.replay.start", map[string]any{"Turns": len(turns), "ID": orig.ID(), "Seed": orig.Seed(), "Engine": engine}))
	var st replayStats
	for _, t := range turns {
		resp, err := rs.Act(ctx, t.Input)
		if err == nil && resp.Awaiting.Kind == game.Confirmation {
			resp, err = rs.Act(ctx, "yes")
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
