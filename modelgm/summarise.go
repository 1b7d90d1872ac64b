package modelgm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
)

// keepVerbatim is how many recent turns stay verbatim after a summary.
const keepVerbatim = 8

// summarise folds older turns into the rolling summary every
// SummariseEvery turns (the Janitor): the new summary covers the old one
// plus the turns since, except the last few, which stay verbatim. Names,
// inventory, goals and status are kept; dialogue is dropped. Summaries are
// narrative and lossy, recorded apart from the canon facts in the state.
func (p *Pipeline) summarise(ctx context.Context, t *game.Turn, recent []contextpack.Turn, prev *contextpack.Summary) error {
	every := p.cfg.SummariseEvery
	if every < 0 || t.Number%every != 0 || len(recent) <= keepVerbatim {
		return nil
	}
	fold := recent[:len(recent)-keepVerbatim]
	s := &contextpack.Summary{From: fold[0].Number, To: fold[len(fold)-1].Number}
	var in strings.Builder
	if prev != nil {
		s.From = prev.From
		fmt.Fprintf(&in, "Summary so far (turns %d–%d):\n%s\n\n", prev.From, prev.To, prev.Text)
	}
	for _, r := range fold {
		fmt.Fprintf(&in, "Turn %d. Player: %s\nGM: %s\n", r.Number, r.Input, r.Narrative)
	}
	start := time.Now()
	role := p.cfg.Summariser
	system, pid, err := p.system(t, "summariser", map[string]any{"Words": 200})
	if err != nil {
		return err
	}
	call := Call{Pass: "summariser", Prompt: pid, Provider: role.Provider.Name(), Model: role.Model, System: system}
	resp, err := role.Provider.Chat(ctx, llm.Request{Model: role.Model, Messages: []llm.Message{
		{Role: llm.System, Content: system}, {Role: llm.User, Content: in.String()}}}, nil)
	call.Millis = time.Since(start).Milliseconds()
	if err == nil && strings.TrimSpace(resp.Message.Content) != "" {
		s.Text, call.Usage = strings.TrimSpace(resp.Message.Content), resp.Usage
	} else {
		if err != nil {
			call.Error = err.Error()
		}
		call.Fallback = "extractive summary"
		s.Text = extractive(prev, fold)
	}
	call.Summary = s
	return t.Record(call)
}

// extractive summarises without a model: the previous summary and the
// first sentence of each turn's narration, capped.
func extractive(prev *contextpack.Summary, turns []contextpack.Turn) string {
	var b strings.Builder
	if prev != nil {
		b.WriteString(prev.Text)
	}
	for _, t := range turns {
		s := strings.Join(strings.Fields(t.Narrative), " ")
		if i := strings.IndexAny(s, ".!?"); i > 0 {
			s = s[:i+1]
		}
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(T%d) %s", t.Number, s)
	}
	out := b.String()
	if len(out) > 3000 {
		out = "…" + out[len(out)-3000:]
	}
	return out
}
