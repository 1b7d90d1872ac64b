package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// skillChoices asks the player-choices skill for the next choices.
type skillChoices struct {
	skill *skill.Skill
}

func (c skillChoices) Choices(ctx context.Context, scene map[string]any) ([]string, error) {
	inv, err := c.skill.Prepare("choose", skill.Call{RequestID: "choices", Input: map[string]any{"scene": scene},
		LookupEnv: os.LookupEnv, Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	res, err := skill.Run(ctx, inv)
	if err != nil {
		return nil, err
	}
	for _, e := range res.Events {
		ui, ok := e.(*protocol.UIEvent)
		if !ok || ui.Event != "narrative_choice" {
			continue
		}
		var p struct {
			Options []struct {
				Text       string `json:"text"`
				Difficulty string `json:"difficulty"`
			} `json:"options"`
		}
		b, _ := json.Marshal(ui.Payload)
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("player-choices: bad narrative_choice payload: %w", err)
		}
		var out []string
		for _, o := range p.Options {
			if o.Text != "" {
				out = append(out, o.Text)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("player-choices sent no narrative_choice event")
}

// noChoices stands in when the skill is missing: the game offers its
// fallback choices.
type noChoices struct{ why error }

func (n noChoices) Choices(context.Context, map[string]any) ([]string, error) { return nil, n.why }

// choiceMaker finds the player-choices skill for choice-based play.
func (g *globals) choiceMaker() game.ChoiceMaker {
	set, warns, err := discover(g, "")
	if err != nil {
		fmt.Fprintln(g.stderr, g.t("cli.play.basic_choices", map[string]any{"Err": err.Error()}))
		return noChoices{err}
	}
	for _, w := range warns {
		fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": fmt.Sprint(w)}))
	}
	s := set.Get("player-choices")
	if s == nil {
		err := errors.New(g.t("cli.play.no_choices_skill", map[string]any{"Dir": set.Dir()}))
		fmt.Fprintln(g.stderr, g.t("cli.play.basic_choices", map[string]any{"Err": err.Error()}))
		return noChoices{err}
	}
	return skillChoices{skill: s}
}
