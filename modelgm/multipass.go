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
	"github.com/hearth-rpg/hearth/llm/structured"
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

// verdict is the validator pass's output: how the rules judge the
// interpreter's intents as the world stands.
type verdict struct {
	// Verdict is "allowed" (the rules accept every intent judged),
	// "refused" (the world refuses one: it is resolved and narrated as a
	// refusal) or "unresolved" (one names something that is not there:
	// the interpreter is asked again).
	Verdict string   `json:"verdict"`
	Allowed []string `json:"allowed,omitempty"`
	Blocked *blocked `json:"blocked,omitempty"`
	// NotJudged are the intents after a refusal.
	NotJudged []string `json:"not_judged,omitempty"`
}

type blocked struct {
	Intent     string `json:"intent"`
	Reason     string `json:"reason"`
	Unresolved bool   `json:"unresolved,omitempty"`
}

// Verdicts.
const (
	allowed    = "allowed"
	refused    = "refused"
	unresolved = "unresolved"
)

// reading is what the interpreter made of the player's words.
type reading struct {
	intents      []rules.Intent
	query, reply string
	output       string // the model's answer, for a retry
	offline      bool   // the offline interpreter read the words
}

func intentList() string {
	var b strings.Builder
	for _, s := range rules.Specs() {
		fmt.Fprintf(&b, "  %s: %s\n", s.Name, s.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// multiPass is the Freeform pipeline (seed 004): interpreter → validator
// → planner → resolver → narrator → commit of what the narrator
// introduced. Every pass is recorded with the turn.
func (p *Pipeline) multiPass(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary) error {
	answering, err := t.Answering(ctx)
	if err != nil {
		return err
	}
	sceneAtStart := t.World().Scene.Number
	rd, err := p.interpret(ctx, t, recent, summary, answering, nil)
	if err != nil {
		return err
	}
	if !rd.offline && len(rd.intents) > 0 {
		v, err := p.validate(ctx, t, rd.intents, false)
		if err != nil {
			return err
		}
		if v.Verdict == unresolved {
			// Sent back once with the rules' explanation; if the model
			// still names what is not there, the words are read offline.
			if rd, err = p.interpret(ctx, t, recent, summary, answering, &retry{output: rd.output, problem: v.Blocked.Reason}); err != nil {
				return err
			}
			if !rd.offline && len(rd.intents) > 0 {
				if v, err = p.validate(ctx, t, rd.intents, true); err != nil {
					return err
				}
				if v.Verdict == unresolved {
					if rd, err = p.offline(ctx, t); err != nil {
						return err
					}
				}
			}
		}
	}
	switch {
	case rd.query != "":
		t.Emit(game.Query(t.World(), rd.query))
		return nil
	case len(rd.intents) == 0:
		t.Emit(cmpOr(rd.reply, "Nothing happens. (Type help for ideas.)"))
		return nil
	}
	if askFirst(t, rd.intents) {
		return nil
	}
	var pl *plan
	if p.cfg.Plan {
		pl = p.plan(ctx, t, recent, summary, answering)
		if pl != nil && strings.TrimSpace(pl.Question) != "" {
			// The planner cannot resolve the action without the
			// player's answer: nothing is resolved, the turn asks.
			asked, err := t.Ask(ctx, pl.Question)
			if err != nil {
				return err
			}
			if asked {
				return nil
			}
		}
	}
	// Resolver.
	for _, in := range rd.intents {
		if _, err := t.Resolve(ctx, in); err != nil {
			var rej *rules.Rejection
			if errors.As(err, &rej) {
				break
			}
			return err
		}
	}
	return p.narrate(ctx, t, recent, summary, pl, sceneAtStart)
}

// retry is the interpreter's previous answer and why the validator sent
// it back.
type retry struct {
	output, problem string
}

// withAnswer tells a pass that the player's words answer the question the
// last turn asked, about what they had said then.
func withAnswer(msgs []llm.Message, answering *game.Question) []llm.Message {
	if answering == nil {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == llm.User {
			out[i].Content = fmt.Sprintf("The player had said: %s\nYou asked them: %s\nTheir answer: %s\nRead the answer together with what they had said.",
				answering.Input, answering.Text, out[i].Content)
			break
		}
	}
	return out
}

func (p *Pipeline) interpret(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary, answering *game.Question, again *retry) (reading, error) {
	start := time.Now()
	role := p.cfg.Interpreter
	system, pid, err := p.system(t, "interpreter", map[string]any{"Intents": intentList()})
	if err != nil {
		return reading{}, err
	}
	pk := p.packet(ctx, t, contextpack.GM(), recent, summary, nil, system, nil)
	call := Call{Pass: "interpreter", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	msgs := withAnswer(pk.Messages(system), answering)
	if again != nil {
		msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: again.output}, llm.Message{Role: llm.User, Content: fmt.Sprintf(
			"The rules cannot carry that out: %s. Use only ids or exact names from the context; answer again with the JSON object only.", again.problem)})
	}
	// The schema and the intents' arguments are the interpreter's own
	// repair; what the world makes of the intents is the validator's.
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
			intents = append(intents, in)
		}
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	}
	v, rep, err := spec.Call(ctx, role.Provider, llm.Request{Model: role.Model, Messages: msgs})
	call.Report, call.Usage, call.Millis = &rep, rep.Usage, time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return reading{}, ctx.Err()
	}
	if err != nil {
		call.Error, call.Fallback = err.Error(), "offline interpreter"
		p.cfg.Logger.Warn("interpreter failed; reading the input offline", "err", err)
		if rerr := t.Record(call); rerr != nil {
			return reading{}, rerr
		}
		return p.offline(ctx, t)
	}
	call.Output = raw(v)
	out := reading{intents: intents, query: v.Query, reply: v.Reply}
	if n := len(rep.Raw); n > 0 {
		out.output = rep.Raw[n-1]
	}
	return out, t.Record(call)
}

// offline reads the words with the offline pattern interpreter.
func (p *Pipeline) offline(ctx context.Context, t *game.Turn) (reading, error) {
	in, err := t.Interpret(ctx)
	if err != nil {
		return reading{}, err
	}
	return reading{intents: in.Intents, query: in.Query, reply: cmpOr(in.Reply, "Nothing happens. (Type help for ideas.)"), offline: true}, nil
}

// validate is the validator pass: the rules judge the intents in order,
// without rolling the game's dice or changing anything. Its verdict is
// recorded with the turn; on the last try, an unresolved verdict is
// recorded as handing the words to the offline interpreter.
func (p *Pipeline) validate(ctx context.Context, t *game.Turn, intents []rules.Intent, last bool) (verdict, error) {
	start := time.Now()
	errs, err := t.Validate(ctx, intents)
	if err != nil {
		return verdict{}, err
	}
	v := verdict{Verdict: allowed}
	for i, in := range intents {
		switch {
		case i >= len(errs):
			v.NotJudged = append(v.NotJudged, in.Type())
		case errs[i] == nil:
			v.Allowed = append(v.Allowed, in.Type())
		default:
			var rej *rules.Rejection
			errors.As(errs[i], &rej)
			v.Blocked = &blocked{Intent: in.Type(), Reason: fmt.Sprintf("intent %d (%s): %s", i+1, in.Type(), rej.Reason), Unresolved: rej.Unresolved}
			v.Verdict = refused
			if rej.Unresolved {
				v.Verdict = unresolved
			}
		}
	}
	call := Call{Pass: "validator", Provider: "rules", Output: raw(v), Millis: time.Since(start).Milliseconds()}
	if last && v.Verdict == unresolved {
		call.Fallback = "offline interpreter"
		p.cfg.Logger.Warn("the interpreter still names what is not there; reading the input offline", "why", v.Blocked.Reason)
	}
	return v, t.Record(call)
}

func (p *Pipeline) plan(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary, answering *game.Question) *plan {
	start := time.Now()
	role := p.cfg.Planner
	system, pid, err := p.system(t, "planner", nil)
	if err != nil {
		return nil
	}
	pk := p.packet(ctx, t, contextpack.GM(), recent, summary, nil, system, nil)
	call := Call{Pass: "planner", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	v, rep, err := p.planner.Call(ctx, role.Provider, llm.Request{Model: role.Model, Messages: withAnswer(pk.Messages(system), answering)})
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
// the player does not know. Its answer is structured (seed 004): the
// narration is streamed as it arrives, and the scene transition, the
// characters and the facts it introduced are committed through the rules
// afterwards. An answer that is not valid falls back, recorded: prose is
// kept as the narration (narrative elements are then extracted offline),
// and a narration that never came is told by the offline narrator.
func (p *Pipeline) narrate(ctx context.Context, t *game.Turn, recent []contextpack.Turn, summary *contextpack.Summary, pl *plan, sceneAtStart int) error {
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
	b.WriteString("\n\n" + narrationFormat)
	msgs = append(msgs, llm.Message{Role: llm.User, Content: b.String()})
	call := Call{Pass: "narrator", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system, Context: pk}
	ns := &narrationStream{emit: t.Emit}
	resp, err := role.Provider.Chat(ctx, llm.Request{Model: role.Model, Messages: msgs, Schema: p.narration.Schema()}, func(c llm.Chunk) error {
		ns.write(c.Content)
		return nil
	})
	call.Millis = time.Since(start).Milliseconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var told *narration
	if err == nil && resp != nil {
		call.Usage = resp.Usage
		text := resp.Message.Content
		if ns.mode == undecided {
			ns.write(text) // a provider that did not stream
		}
		v, perr := p.narration.Parse(text)
		switch {
		case perr == nil:
			ns.finish(v.Narration)
			call.Output = raw(v)
			told = &v
		default:
			call.Report = &structured.Report{Attempts: 1, Errors: []string{perr.Error()}, Raw: []string{text}, Usage: resp.Usage}
			call.Output = raw(text)
			switch {
			case ns.mode == prose:
				call.Fallback = "prose narration; story elements extracted offline"
			case ns.complete && strings.TrimSpace(t.Narrative()) != "":
				call.Fallback = "the narration, without the structured part"
			}
			p.cfg.Logger.Warn("narrator's answer is not valid; falling back", "err", perr, "fallback", cmpOr(call.Fallback, "offline narrator"))
		}
	}
	incomplete := ns.mode == structuredJSON && !ns.complete
	if err != nil || strings.TrimSpace(t.Narrative()) == "" || (told == nil && call.Fallback == "" && incomplete) {
		if err != nil {
			call.Error = err.Error()
		}
		call.Fallback = "offline narrator"
		told = nil
		if t.Narrative() != "" {
			t.Emit("\n\n")
		}
		if nerr := t.NarrateOffline(ctx); nerr != nil {
			return nerr
		}
	}
	if err := t.Record(call); err != nil {
		return err
	}
	if told == nil {
		return nil
	}
	return p.establish(ctx, t, *told, sceneAtStart)
}

// introductions is the record of the narrator's introductions as the
// turn committed them: what the rules applied and what they refused.
type introductions struct {
	Applied []string `json:"applied,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// Lore is the scene's lore cache after them: a new scene is prepared,
	// a new character briefed (seed 004's incremental fetch).
	Lore *loreNote `json:"lore,omitempty"`
}

type loreNote struct {
	Scene   int      `json:"scene"`
	Briefed []string `json:"briefed,omitempty"`
}

// Caps on what one narration may introduce.
const (
	maxIntroducedNPCs = 3
	maxFacts          = 5
)

// establish commits what the narrator introduced, through the rules: the
// scene transition, the new characters, the established facts. The
// scene's lore follows: a new scene has its cache prepared, a new
// character present is briefed.
func (p *Pipeline) establish(ctx context.Context, t *game.Turn, v narration, sceneAtStart int) error {
	start := time.Now()
	var rec introductions
	try := func(what string, in rules.Intent) (bool, error) {
		if _, err := t.Establish(ctx, in); err != nil {
			var rej *rules.Rejection
			if errors.As(err, &rej) {
				rec.Skipped = append(rec.Skipped, what+": "+rej.Reason)
				return false, nil
			}
			return false, err
		}
		rec.Applied = append(rec.Applied, what)
		return true, nil
	}
	lore := false
	if st := v.SceneTransition; st != nil && strings.TrimSpace(st.Title) != "" {
		what := "scene " + strings.TrimSpace(st.Title)
		in := rules.ChangeScene{Title: strings.TrimSpace(st.Title), Location: st.Location, Mood: st.Mood}
		switch {
		case t.World().Scene.Number != sceneAtStart:
			rec.Skipped = append(rec.Skipped, what+": the rules began a new scene this turn")
		case in.Location != "" && t.Check(ctx, in) != nil:
			// A place the world does not know: the scene begins where
			// the player is.
			in.Location = ""
			fallthrough
		default:
			ok, err := try(what, in)
			if err != nil {
				return err
			}
			lore = lore || ok
		}
	}
	for i, n := range v.IntroducedNPCs {
		what := "character " + strings.TrimSpace(n.Name)
		if i >= maxIntroducedNPCs {
			rec.Skipped = append(rec.Skipped, what+": too many in one narration")
			continue
		}
		ok, err := try(what, rules.CreateNPC{Name: strings.TrimSpace(n.Name), Description: n.Description, Disposition: n.Disposition})
		if err != nil {
			return err
		}
		lore = lore || ok
	}
	for i, f := range v.EstablishedFacts {
		what := "fact " + strings.TrimSpace(f.Fact)
		switch {
		case i >= maxFacts:
			rec.Skipped = append(rec.Skipped, what+": too many in one narration")
		case known(t, f.Fact):
			rec.Skipped = append(rec.Skipped, what+": already known")
		default:
			if _, err := try(what, rules.RememberFact{Subject: f.Subject, Fact: strings.TrimSpace(f.Fact), Category: f.Category}); err != nil {
				return err
			}
		}
	}
	if len(rec.Applied)+len(rec.Skipped) == 0 {
		return nil
	}
	if lore {
		if c := t.Lore(ctx); c != nil {
			rec.Lore = &loreNote{Scene: c.Scene}
			for _, b := range c.NPCBriefings {
				rec.Lore.Briefed = append(rec.Lore.Briefed, b.Character)
			}
		}
	}
	return t.Record(Call{Pass: "introductions", Provider: "rules", Output: raw(rec), Millis: time.Since(start).Milliseconds()})
}

// known reports whether the world already holds a fact worded so.
func known(t *game.Turn, fact string) bool {
	for _, f := range t.World().Facts {
		if strings.EqualFold(strings.TrimSpace(f.Text), strings.TrimSpace(fact)) {
			return true
		}
	}
	return false
}
