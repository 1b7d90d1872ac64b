package modelgm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/rules"
)

// toolSet is every intent's tool definition, with its schema generated
// from the intent's Go type; built once per Pipeline.
type toolSet map[string]llm.Tool

func intentTools() (toolSet, error) {
	ts := toolSet{}
	for _, s := range rules.Specs() {
		schema, err := structured.ForType(reflect.TypeOf(s.Zero))
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", s.Name, err)
		}
		ts[s.Name] = llm.Tool{Name: s.Name, Description: s.Description, Parameters: schema}
	}
	return ts, nil
}

// ToolUse is one tool call as the turn record keeps it.
type ToolUse struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result string          `json:"result"`
	Error  bool            `json:"error,omitempty"`
}

// bind makes agent tools that resolve intents against the turn, for the
// named tools (all intents when names is nil), plus the document tools
// and check_schedule.
func (p *Pipeline) bind(t *game.Turn, names []string, uses *[]ToolUse) []agent.Tool {
	if names == nil {
		names = rules.Names()
		names = append(names, "check_schedule", "document_search", "document_get")
	}
	var out []agent.Tool
	for _, name := range names {
		switch name {
		case "check_schedule":
			out = append(out, p.scheduleTool(t, uses))
			continue
		case "document_search", "document_get":
			if p.docs == nil {
				continue
			}
			out = append(out, p.docTool(name, uses))
			continue
		}
		def, ok := p.tools[name]
		if !ok {
			continue
		}
		out = append(out, agent.Tool{Tool: def, Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
			res, err := resolveTool(ctx, t, def.Name, args)
			u := ToolUse{Name: def.Name, Args: args, Result: res, Error: err != nil}
			if err != nil {
				u.Result = err.Error()
			}
			*uses = append(*uses, u)
			if err != nil {
				return agent.Result{}, err
			}
			return agent.Result{Content: res, Summary: firstLine(res)}, nil
		}})
	}
	return out
}

// resolveTool turns a tool call into an intent and resolves it. A bad
// argument or a refusal is returned as an error for the model to read.
func resolveTool(ctx context.Context, t *game.Turn, name string, args json.RawMessage) (string, error) {
	in, err := rules.DecodeArgs(name, args)
	if err != nil {
		return "", err
	}
	if q := rules.HostileAct(t.World(), in); q != "" {
		// Not resolved: the player is asked, and a yes next turn carries
		// it out (game.Turn.Confirm), as the offline interpreter does.
		t.Confirm(q, in)
		return fmt.Sprintf("Not done yet: the game asks the player %q and carries it out only after a yes. "+
			"Do not narrate the attack or its result; describe the tense moment before it and stop.", q), nil
	}
	res, err := t.Resolve(ctx, in)
	var rej *rules.Rejection
	if errors.As(err, &rej) {
		return "", fmt.Errorf("rejected by the rules: %s", rej.Reason)
	}
	if err != nil {
		return "", err
	}
	return outcomesText([]*rules.Resolution{res}), nil
}

// askFirst ends the turn with a yes/no question, resolving nothing, when
// one of the intents is a hostile act the player must confirm
// (rules.HostileAct); a yes next turn resolves them all.
func askFirst(t *game.Turn, intents []rules.Intent) bool {
	for _, in := range intents {
		if q := rules.HostileAct(t.World(), in); q != "" {
			t.Confirm(q, intents...)
			t.Emit(q + " (yes/no)")
			return true
		}
	}
	return false
}

// outcomesText renders outcomes for a model: one line each.
func outcomesText(all []*rules.Resolution) string {
	var b strings.Builder
	for _, r := range all {
		for _, o := range r.Outcomes {
			b.WriteString("- ")
			b.WriteString(o.Text)
			if o.Quote != "" {
				fmt.Fprintf(&b, " They say: %q", o.Quote)
			}
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return "(nothing happened)"
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
