// Package memory is the memory skill's program: "recall" searches the
// playthrough's memories through the host API, "store" adds one.
package memory

import (
	"fmt"
	"io"
	"strings"

	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Run is the whole program: one tool input on stdin, NDJSON events on
// stdout; it returns the exit status.
func Run(stdin io.Reader, stdout, stderr io.Writer) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "memory:", err)
		return 2
	}
	out.RequestID = in.RequestID
	fail := func(code, msg string) int {
		out.Emit(&protocol.ErrorEvent{ErrorCode: code, ErrorMessage: msg})
		out.Emit(&protocol.Done{OK: false, Summary: msg})
		return 0
	}
	c, err := host.FromEnv()
	if err != nil {
		return fail("no_host", err.Error())
	}
	str := func(k string) string { s, _ := in.Input[k].(string); return strings.TrimSpace(s) }
	num := func(k string, d int) int {
		if f, ok := in.Input[k].(float64); ok {
			return int(f)
		}
		return d
	}
	switch in.Tool {
	case "recall":
		ms, err := c.Recall(str("query"), max(1, min(num("limit", 3), 10)))
		if err != nil {
			return fail("recall_failed", err.Error())
		}
		var lines []string
		var recalled []any
		for _, m := range ms {
			lines = append(lines, fmt.Sprintf("You remember (turn %d): %s", m.Turn, m.Summary))
			recalled = append(recalled, map[string]any{"turn": m.Turn, "summary": m.Summary, "kind": m.Kind})
		}
		text := strings.Join(lines, "\n")
		if text == "" {
			text = "Nothing comes to mind."
		}
		out.Emit(&protocol.UIEvent{Event: "memories_recalled", Payload: map[string]any{"text": text, "count": len(ms)}})
		out.Emit(&protocol.StatePatch{Patch: map[string]any{"memory": map[string]any{"recalled": recalled}}})
		return done(out, fmt.Sprintf("%d memories", len(ms)))
	case "store":
		var chars []string
		if cs, ok := in.Input["characters"].([]any); ok {
			for _, c := range cs {
				if s, ok := c.(string); ok {
					chars = append(chars, s)
				}
			}
		}
		if err := c.Remember(host.NewMemory{Summary: str("summary"), Characters: chars, Significance: num("significance", 5), Kind: str("kind")}); err != nil {
			return fail("store_failed", err.Error())
		}
		return done(out, "remembered")
	}
	return fail("unknown_script", fmt.Sprintf("no operation %q: use recall or store", in.Tool))
}

func done(out *protocol.Writer, summary string) int {
	if err := out.Emit(&protocol.Done{OK: true, Summary: summary}); err != nil {
		return 1
	}
	return 0
}
