// Package playerchoices is the player-choices skill's program: "choose"
// (or the seed's "generate-choices") reads the scene from its tool input
// and offers the player three or four choices (seed 001 §4.2.1), gated by
// perception, reputation and stats, as a narrative_choice ui_event;
// "evaluate-choice" gives the outcome modifier of the choice the player
// took.
package playerchoices

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Scene is what the game tells the skill.
type Scene struct {
	Location struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Exits []struct {
			Direction string `json:"direction"`
			To        string `json:"to"`
			Name      string `json:"name"`
			Locked    bool   `json:"locked"`
		} `json:"exits"`
	} `json:"location"`
	Present []struct {
		ID         string  `json:"id"`
		Name       string  `json:"name"`
		Perception float64 `json:"perception"`
		Faction    string  `json:"faction"`
		Reputation float64 `json:"reputation"`
		Hostile    bool    `json:"hostile"`
	} `json:"present"`
	Stats      map[string]float64    `json:"stats"`
	StatRanges map[string][2]float64 `json:"stat_ranges"`
	Inventory  []string              `json:"inventory"`
	InCombat   bool                  `json:"in_combat"`
}

// Option is one choice.
type Option struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	Hint       string `json:"hint,omitempty"`
	Difficulty string `json:"difficulty,omitempty"` // "", "hard"
	GatedBy    string `json:"gated_by,omitempty"`   // what made it available or hard
}

// Run is the whole program: one tool input on stdin, NDJSON events on
// stdout; it returns the exit status.
func Run(stdin io.Reader, stdout, stderr io.Writer) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "choose:", err)
		return 2
	}
	out.RequestID = in.RequestID
	if in.Tool == "evaluate-choice" {
		return evaluate(out, in)
	}
	var sc Scene
	b, _ := json.Marshal(in.Input["scene"])
	if err := json.Unmarshal(b, &sc); err != nil || sc.Location.Name == "" {
		out.Emit(&protocol.ErrorEvent{ErrorCode: "missing_scene", ErrorMessage: `input needs "scene" with a location`})
		out.Emit(&protocol.Done{OK: false, Summary: "no scene to choose in"})
		return 0
	}
	max := 4
	if v, ok := in.Config["maxChoices"].(float64); ok && v >= 2 && v <= 4 {
		max = int(v)
	}
	opts := choose(sc, max)
	out.Emit(&protocol.UIEvent{Event: "narrative_choice", Payload: map[string]any{"prompt": "What do you do?", "options": opts}})
	if err := out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%d choices", len(opts))}); err != nil {
		return 1
	}
	return 0
}

// choose builds the options, most pressing first: a fight, then the
// people present, then the way on, then a look around.
func choose(sc Scene, max int) []Option {
	var opts []Option
	low := lowStats(sc)
	hard := func(o Option, stats ...string) Option {
		for _, s := range stats {
			if slices.Contains(low, s) {
				o.Difficulty, o.GatedBy = "hard", "low "+s
			}
		}
		return o
	}
	if sc.InCombat {
		for _, p := range sc.Present {
			if p.Hostile {
				opts = append(opts, hard(Option{ID: "attack", Text: "Attack " + p.Name, Hint: "Steel against steel."}, "health", "resolve"))
				break
			}
		}
		opts = append(opts, Option{ID: "flee", Text: "Break away and run", Hint: "Live to fight another day."})
	}
	for _, p := range sc.Present {
		if p.Hostile || len(opts) >= max-1 {
			continue
		}
		switch {
		case p.Perception >= 30:
			opts = append(opts, Option{ID: "ask_help_" + p.ID, Text: "Ask " + p.Name + " for help", Hint: p.Name + " seems well disposed to you.", GatedBy: "perception"})
		case p.Perception <= -30:
			opts = append(opts, hard(Option{ID: "win_over_" + p.ID, Text: "Try to win " + p.Name + " over", Hint: p.Name + " does not trust you.", Difficulty: "hard", GatedBy: "perception"}, "charisma"))
		default:
			opts = append(opts, Option{ID: "talk_" + p.ID, Text: "Talk to " + p.Name})
		}
		if p.Faction != "" && p.Reputation >= 60 && len(opts) < max-1 {
			opts = append(opts, Option{ID: "favour_" + p.Faction, Text: "Call in a favour with the " + title(p.Faction), Hint: "Your standing opens doors.", GatedBy: "reputation"})
		}
	}
	for _, e := range sc.Location.Exits {
		if e.Locked || len(opts) >= max-1 {
			continue
		}
		where := cmpOr(e.Name, e.To)
		text := "Go to " + where
		if e.Direction != "" {
			text = "Go " + e.Direction + " to " + where
		}
		opts = append(opts, Option{ID: "go_" + e.To, Text: text})
		break
	}
	opts = append(opts, hard(Option{ID: "search", Text: "Look around " + sc.Location.Name, Hint: "Something here may be worth finding."}, "perception", "wisdom"))
	if len(opts) > max {
		opts = opts[:max]
	}
	return opts
}

// lowStats lists stats in the bottom fifth of their range.
func lowStats(sc Scene) []string {
	var low []string
	for id, v := range sc.Stats {
		r, ok := sc.StatRanges[id]
		if ok && r[1] > r[0] && (v-r[0])/(r[1]-r[0]) <= 0.2 {
			low = append(low, id)
		}
	}
	slices.Sort(low)
	return low
}

func title(id string) string {
	w := strings.Fields(strings.ReplaceAll(id, "_", " "))
	for i, s := range w {
		w[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return strings.Join(w, " ")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// evaluate is the evaluate-choice script. Input: "choice", an option as
// choose offers it ({id, text, difficulty, gated_by}) or its id, and the
// "scene" it was offered in. The modifier adds the seed's perception
// bonus of the NPC the choice concerns (+1 to +3 above 30, -1 to -3 below
// -30) and -2 for an option marked hard.
func evaluate(out *protocol.Writer, in protocol.Input) int {
	var o Option
	switch c := in.Input["choice"].(type) {
	case string:
		o.ID = c
	case map[string]any:
		b, _ := json.Marshal(c)
		_ = json.Unmarshal(b, &o)
	}
	if id, ok := in.Input["choiceId"].(string); ok && o.ID == "" {
		o.ID = id
	}
	if o.ID == "" {
		out.Emit(&protocol.ErrorEvent{ErrorCode: "missing_choice", ErrorMessage: `input needs "choice", the option taken ({"id": ...}) or its id`})
		out.Emit(&protocol.Done{OK: false, Summary: "no choice to evaluate"})
		return 0
	}
	var sc Scene
	b, _ := json.Marshal(in.Input["scene"])
	_ = json.Unmarshal(b, &sc)
	if o.Text == "" { // an id alone: find the option in the scene's choices
		for _, x := range choose(sc, 4) {
			if x.ID == o.ID {
				o = x
			}
		}
	}
	mod, why := 0, []string{}
	for _, p := range sc.Present {
		if !strings.HasSuffix(o.ID, "_"+p.ID) {
			continue
		}
		if m := perceptionModifier(p.Perception); m != 0 {
			mod += m
			why = append(why, fmt.Sprintf("%s's opinion %+d", p.Name, m))
		}
	}
	if o.Difficulty == "hard" {
		mod -= 2
		why = append(why, "hard -2")
	}
	outcome := map[string]any{"choice": o.ID, "modifier": mod, "difficulty": cmpOr(o.Difficulty, "normal"), "reasons": why}
	out.Emit(&protocol.UIEvent{Event: "choice_evaluated", Payload: outcome})
	out.Emit(&protocol.StatePatch{Patch: map[string]any{"lastChoice": map[string]any{"id": o.ID, "modifier": mod}}})
	if err := out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%s: modifier %+d", o.ID, mod)}); err != nil {
		return 1
	}
	return 0
}

// perceptionModifier is the seed's roll modifier for an NPC's opinion:
// +1 to +3 above 30, -1 to -3 below -30, none between.
func perceptionModifier(v float64) int {
	switch {
	case v > 30:
		return min(3, 1+int((v-31)/24))
	case v < -30:
		return -min(3, 1+int((-v-31)/24))
	}
	return 0
}
