package modelgm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/rules"
)

// interpretation is the interpreter pass's output.
type interpretation struct {
	Intents []proposed `json:"intents" jsonschema:"the player's actions, in order"`
	Query   string     `json:"query,omitempty"`
	Reply   string     `json:"reply,omitempty"`
	Confirm string     `json:"confirm,omitempty"`
}

type proposed struct {
	Type string          `json:"type" jsonschema:"an intent name"`
	Args json.RawMessage `json:"args,omitempty" jsonschema:"the intent's arguments"`
}

// plan is the planner pass's output.
type plan struct {
	Beats    []string `json:"beats"`
	Tension  string   `json:"tension"`
	Question string   `json:"question,omitempty"`
}

func intentList() string {
	var b strings.Builder
	for _, s := range rules.Specs() {
		fmt.Fprintf(&b, "  %s: %s\n", s.Name, s.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// multiPass is the Freeform pipeline: interpreter → validator → planner →
// resolver → narrator.
func (p *Pipeline) multiPass(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary) error {
	// Interpreter, validated against the schema and, through Check, the
	// rules: a hallucinated name or an impossible action is sent back once
	// with the engine's explanation.
	intents, query, reply, err := p.interpret(ctx, t, recent, summary)
	if err != nil {
		return err
	}
	switch {
	case query != "":
		t.Emit(game.Query(t.World(), query))
		return nil
	case len(intents) == 0 && reply != "":
		t.Emit(reply)
		return nil
	}
	var pl *plan
	if p.cfg.Plan && len(intents) > 0 {
		pl = p.plan(ctx, t, recent, summary)
	}
	// Resolver.
	for _, in := range intents {
		if _, err := t.Resolve(ctx, in); err != nil {
			var rej *rules.Rejection
			if errors.As(err, &rej) {
				break
			}
			return err
		}
	}
	return p.narrate(ctx, t, recent, summary, pl)
}

func (p *Pipeline) interpret(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary) ([]rules.Intent, string, string, error) {
	start := time.Now()
	role := p.cfg.Interpreter
	system, pid, err := p.system(t, "interpreter", map[string]any{"Intents": intentList()})
	if err != nil {
		return nil, "", "", err
	}
	pk := p.packet(ctx, t, contextpack.GM(), recent, summary, nil, system, nil)
	call := Call{Pass: "interpreter", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	var intents []rules.Intent
	spec := *p.interp
	spec.Check = func(v interpretation) error {
		intents = intents[:0]
		var problems []string
		for i, pr := range v.Intents {
			in, err := rules.DecodeArgs(pr.Type, pr.Args)
			if err != nil {
				problems = append(problems, fmt.Sprintf("intent %d: %v", i+1, err))
				continue
			}
			// Validator: only the first intent can be checked against the
			// present state; later ones depend on it.
			if i == 0 {
				var rej *rules.Rejection
				if err := t.Check(ctx, in); errors.As(err, &rej) && rej.Unresolved {
					problems = append(problems, fmt.Sprintf("intent %d (%s): %s", i+1, pr.Type, rej.Reason))
					continue
				}
			}
			intents = append(intents, in)
		}
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	}
	v, rep, err := spec.Call(ctx, role.Provider, llm.Request{Model: role.Model, Messages: pk.Messages(system)})
	call.Report, call.Usage, call.Millis = &rep, rep.Usage, time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return nil, "", "", ctx.Err()
	}
	if err != nil {
		call.Error, call.Fallback = err.Error(), "offline interpreter"
		p.cfg.Logger.Warn("interpreter failed; reading the input offline", "err", err)
		if rerr := t.Record(call); rerr != nil {
			return nil, "", "", rerr
		}
		in, ierr := offlineInterpret(ctx, t)
		if ierr != nil {
			return nil, "", "", ierr
		}
		return in.Intents, in.Query, cmpOr(in.Reply, "Nothing happens. (Type help for ideas.)"), nil
	}
	call.Output = raw(v)
	return intents, v.Query, v.Reply, t.Record(call)
}

func (p *Pipeline) plan(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary) *plan {
	start := time.Now()
	role := p.cfg.Planner
	system, pid, err := p.system(t, "planner", nil)
	if err != nil {
		return nil
	}
	pk := p.packet(ctx, t, contextpack.GM(), recent, summary, nil, system, nil)
	call := Call{Pass: "planner", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	v, rep, err := p.planner.Call(ctx, role.Provider, llm.Request{Model: role.Model, Messages: pk.Messages(system)})
	call.Report, call.Usage, call.Millis = &rep, rep.Usage, time.Since(start).Milliseconds()
	if err != nil {
		call.Error, call.Fallback = err.Error(), "no plan"
		_ = t.Record(call)
		return nil
	}
	call.Output = raw(v)
	_ = t.Record(call)
	return &v
}

// narrate tells the turn, streaming, from the player's point of view: the
// narrator's context is the player's projection, so it cannot leak what
// the player does not know.
func (p *Pipeline) narrate(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary, pl *plan) error {
	start := time.Now()
	role := p.cfg.Narrator
	system, pid, err := p.system(t, "narrator", nil)
	if err != nil {
		return err
	}
	pk := p.packet(ctx, t, contextpack.PlayerOf(t.World().Player), recent, summary, nil, system, nil)
	msgs := pk.Messages(system)
	var b strings.Builder
	b.WriteString("What happened this turn (narrate exactly this):\n")
	b.WriteString(outcomesText(t.Resolutions()))
	if rej := t.Rejection(); rej != nil {
		fmt.Fprintf(&b, "\nRefused by the rules: %s", rej.Reason)
	}
	if pl != nil && len(pl.Beats) > 0 {
		fmt.Fprintf(&b, "\nBeats to weave in: %s", strings.Join(pl.Beats, "; "))
		if pl.Tension != "" {
			fmt.Fprintf(&b, "\nTension: %s", pl.Tension)
		}
	}
	msgs = append(msgs, llm.Message{Role: llm.User, Content: b.String()})
	call := Call{Pass: "narrator", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	resp, err := role.Provider.Chat(ctx, llm.Request{Model: role.Model, Messages: msgs}, func(c llm.Chunk) error {
		t.Emit(c.Content)
		return nil
	})
	call.Millis = time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil && resp != nil {
		call.Usage = resp.Usage
		if strings.TrimSpace(t.Narrative()) == "" {
			t.Emit(resp.Message.Content) // a provider that did not stream
		}
		call.Output = raw(resp.Message.Content)
	}
	if err != nil || strings.TrimSpace(t.Narrative()) == "" {
		if err != nil {
			call.Error = err.Error()
		}
		call.Fallback = "offline narrator"
		if t.Narrative() != "" {
			t.Emit("\n\n")
		}
		if nerr := t.NarrateOffline(ctx); nerr != nil {
			return nerr
		}
	}
	return t.Record(call)
}

// offlineInterpret reads the input with the offline pattern interpreter.
func offlineInterpret(ctx context.Context, t *game.Turn) (rules.Interpretation, error) {
	return t.Interpret(ctx)
}
