package evaluate

import (
	"fmt"
	"io"
	"strings"
)

// Write prints the report for a reader: every metric, with "n/a" where
// there was nothing to count, then the contradictions and the flags.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	title := r.Session
	if r.Title != "" {
		title = fmt.Sprintf("%s (%s)", r.Title, r.Session)
	}
	p("Evaluation of %s: %d turns, %d player inputs.\n\n", title, r.Turns, r.Inputs)
	p("  contradictions            %d\n", len(r.Contradictions))
	p("  invalid actions accepted  %s", share(rate(r.InvalidActions.Accepted, r.InvalidActions.Rejected), "of the turns the rules rejected"))
	if len(r.InvalidActions.AcceptedTurns) > 0 {
		p(" (turns %s)", ints(r.InvalidActions.AcceptedTurns))
	}
	p("; %d refused before a turn\n", r.InvalidActions.Refused)
	p("  clarification rate        %s", share(r.Clarification.Rate, "of inputs"))
	if len(r.Clarification.Why) > 0 {
		var why []string
		for _, k := range sortedKeys(r.Clarification.Why) {
			why = append(why, fmt.Sprintf("%s %d", strings.ReplaceAll(k, "_", " "), r.Clarification.Why[k]))
		}
		p(" (%s)", strings.Join(why, ", "))
	}
	p("\n")
	p("  response length (words)   %s\n", spread(r.ResponseWords))
	if r.Lore.Turns == 0 {
		p("  lore passages per turn    n/a (no turn recorded lore)\n")
	} else {
		p("  lore passages per turn    %s\n", spread(r.Lore.PassagesPerTurn))
	}
	p("  lore relevance            %s", share(r.Lore.Relevance, "of passages offered had a key term in the turn"))
	if r.Lore.Unjudged > 0 {
		p("; %d recorded without key terms", r.Lore.Unjudged)
	}
	p("\n")
	p("  scene-cache hit rate      %s\n", share(r.Lore.CacheHits, "of turns with lore"))
	p("  callback rate             %s\n", share(r.Callbacks, "of turns after the first element"))
	if len(r.Passes) == 0 {
		p("  model passes              none recorded (played offline)\n")
	} else {
		p("\n  %-22s %5s  %-24s %-24s %s\n", "pass", "calls", "prompt tokens p50/p99", "completion p50/p99", "latency ms p50/p99")
		for _, ps := range r.Passes {
			extra := ""
			if ps.Errors > 0 || ps.Fallbacks > 0 {
				extra = fmt.Sprintf("  (%d errors, %d fallbacks)", ps.Errors, ps.Fallbacks)
			}
			p("  %-22s %5d  %-24s %-24s %s%s\n", ps.Name, ps.Calls,
				fmt.Sprintf("%d/%d (total %d)", ps.PromptTokens.P50, ps.PromptTokens.P99, ps.PromptTokens.Total),
				fmt.Sprintf("%d/%d (total %d)", ps.CompletionTokens.P50, ps.CompletionTokens.P99, ps.CompletionTokens.Total),
				fmt.Sprintf("%d/%d", ps.Millis.P50, ps.Millis.P99), extra)
		}
	}
	if len(r.Contradictions) > 0 {
		p("\nContradictions (a lexical check: read the turns before trusting it):\n")
		for _, c := range r.Contradictions {
			p("  turn %d: %q\n      against %s of turn %d: %q\n", c.Turn, excerpt(c.Sentence, 120), what(c.Kind), c.Since, excerpt(c.Against, 100))
		}
	}
	if len(r.Lore.Irrelevant) > 0 {
		shown, more := r.Lore.Irrelevant[:min(10, len(r.Lore.Irrelevant))], ""
		if n := len(r.Lore.Irrelevant) - len(shown); n > 0 {
			more = fmt.Sprintf(" and %d more (--json lists them)", n)
		}
		p("\nLore passages offered but never reflected in their turns: %s%s\n", strings.Join(shown, ", "), more)
	}
	if len(r.Flags) == 0 {
		p("\nFlags: none. Players flag a turn with /flag [turn] reason.\n")
	} else {
		p("\nFlags (%d):\n", len(r.Flags))
		for _, f := range r.Flags {
			by := f.By
			if by == "" {
				by = "a player"
			}
			p("  turn %d, flagged by %s: %s\n      > %s\n      %s\n", f.Turn, by, f.Reason, excerpt(f.Input, 100), excerpt(f.Narrative, 140))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func what(kind string) string {
	if kind == "dead" {
		return "the death or departure"
	}
	return "the fact"
}

// share shows a rate as "3/10 (30%) of what", or "n/a (none to count)".
func share(r Rate, of string) string {
	if r.Share == nil {
		return "n/a (none to count)"
	}
	return fmt.Sprintf("%d/%d (%.0f%%) %s", r.N, r.Of, 100**r.Share, of)
}

func spread(d Dist) string {
	if d.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("p50 %d, p99 %d, mean %.1f, max %d over %d turns", d.P50, d.P99, d.Mean, d.Max, d.N)
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
