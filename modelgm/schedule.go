package modelgm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/world"
)

type scheduleArgs struct {
	Within string `json:"within,omitempty" jsonschema:"how far ahead to look, e.g. 6h, 2d; default 1d"`
}

// listed is how many of each kind check_schedule lists at most.
const listed = 10

// scheduleTool is check_schedule: what the game master has set up and
// not yet happened (scheduled events due soon, consequences waiting for
// their trigger, progress clocks), read without changing anything, so a
// model can plan around it.
func (p *Pipeline) scheduleTool(t *game.Turn, uses *[]ToolUse) agent.Tool {
	params, _ := structured.ForType(reflect.TypeFor[scheduleArgs]())
	return agent.Tool{Tool: llm.Tool{Name: "check_schedule", Parameters: params,
		Description: "Lists what is set up and has not happened yet: scheduled events due soon, consequences waiting for their trigger, and progress clocks. Changes nothing."},
		Run: func(ctx context.Context, raw json.RawMessage) (agent.Result, error) {
			var a scheduleArgs
			err := strictDecode(raw, &a)
			res := ""
			if err == nil {
				res, err = schedule(t.World(), a.Within)
			}
			u := ToolUse{Name: "check_schedule", Args: raw, Result: res, Error: err != nil}
			if err != nil {
				u.Result = err.Error()
			}
			*uses = append(*uses, u)
			if err != nil {
				return agent.Result{}, err
			}
			return agent.Result{Content: res, Summary: firstLine(res)}, nil
		}}
}

// schedule is check_schedule's answer for w, looking within ahead ("" is
// a day).
func schedule(w *world.State, within string) (string, error) {
	ahead := world.Day
	if strings.TrimSpace(within) != "" {
		d, err := world.ParseDuration(strings.TrimSpace(within))
		if err != nil {
			return "", fmt.Errorf("within: %w", err)
		}
		ahead = d
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Now: %s.\n", w.Time)

	var due, later []*world.ScheduledEvent
	for _, ev := range w.Scheduled {
		switch {
		case ev.Fired:
		case ev.At <= w.Time+ahead:
			due = append(due, ev)
		default:
			later = append(later, ev)
		}
	}
	slices.SortFunc(due, func(a, b *world.ScheduledEvent) int { return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.ID, b.ID)) })
	fmt.Fprintf(&b, "Scheduled events within %s: ", span(ahead))
	if len(due) == 0 {
		b.WriteString("none")
	}
	b.WriteByte('\n')
	for i, ev := range due {
		if i == listed {
			fmt.Fprintf(&b, "- … and %d more\n", len(due)-listed)
			break
		}
		fmt.Fprintf(&b, "- %s (in %s): %s", ev.At, span(ev.At-w.Time), ev.Description)
		if l := w.Locations[ev.Location]; l != nil {
			fmt.Fprintf(&b, " [at %s]", l.Name)
		}
		b.WriteByte('\n')
	}
	if len(later) > 0 {
		fmt.Fprintf(&b, "(%d more scheduled later)\n", len(later))
	}

	var waiting []*world.Consequence
	for _, c := range w.Consequences {
		if !c.Triggered {
			waiting = append(waiting, c)
		}
	}
	slices.SortFunc(waiting, func(a, b *world.Consequence) int {
		return cmp.Or(cmp.Compare(w.ConsequenceImportance(b), w.ConsequenceImportance(a)), cmp.Compare(a.ID, b.ID))
	})
	b.WriteString("Consequences waiting: ")
	if len(waiting) == 0 {
		b.WriteString("none")
	}
	b.WriteByte('\n')
	for i, c := range waiting {
		if i == listed {
			fmt.Fprintf(&b, "- … and %d more\n", len(waiting)-listed)
			break
		}
		fmt.Fprintf(&b, "- when %s: %s", c.Trigger, c.Description)
		if c.Severity != "" {
			fmt.Fprintf(&b, " (%s)", c.Severity)
		}
		b.WriteByte('\n')
	}

	var clocks []*world.Clock
	for _, c := range w.Clocks {
		clocks = append(clocks, c)
	}
	slices.SortFunc(clocks, func(a, b *world.Clock) int { return cmp.Compare(a.ID, b.ID) })
	b.WriteString("Clocks: ")
	if len(clocks) == 0 {
		b.WriteString("none")
	}
	b.WriteByte('\n')
	for i, c := range clocks {
		if i == listed {
			fmt.Fprintf(&b, "- … and %d more\n", len(clocks)-listed)
			break
		}
		fmt.Fprintf(&b, "- %s: %d/%d", c.Name, c.Value, c.Max)
		if c.OnFull != "" {
			fmt.Fprintf(&b, " (when full: %s)", c.OnFull)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// span writes a duration of game time as "1d 2h 5m".
func span(d world.GameTime) string {
	if d <= 0 {
		return "0m"
	}
	var parts []string
	for _, u := range []struct {
		n    world.GameTime
		name string
	}{{world.Day, "d"}, {world.Hour, "h"}, {world.Minute, "m"}} {
		if d >= u.n {
			parts = append(parts, fmt.Sprintf("%d%s", d/u.n, u.name))
			d %= u.n
		}
	}
	return strings.Join(parts, " ")
}
