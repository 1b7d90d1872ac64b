// Package memory is the memory skill's program: "recall" (or the seed's
// "recall-memory") searches the playthrough's memories through the host
// API, "store" (or "store-memory") adds one.
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
	case "recall", "recall-memory":
		ms, err := c.Recall(str("query"), max(1, min(num("limit", 3), 10)))
		if err != nil {
			return fail("recall_failed", err.Error())
		}
		var lines []string
		recalled := []any{}
		for _, m := range ms {
			lines = append(lines, fmt.Sprintf("You remember (turn %d): %s", m.Turn, m.Summary))
			// The seed's recall output: summary, timestamp (here the turn) and relevance.
			recalled = append(recalled, map[string]any{"turn": m.Turn, "timestamp": fmt.Sprintf("turn %d", m.Turn),
				"summary": m.Summary, "kind": m.Kind, "relevance": m.Relevance})
		}
		text := strings.Join(lines, "\n")
		if text == "" {
			text = "Nothing comes to mind."
		}
		out.Emit(&protocol.UIEvent{Event: "memories_recalled", Payload: map[string]any{"text": text, "count": len(ms), "memories": recalled}})
		out.Emit(&protocol.StatePatch{Patch: map[string]any{"memory": map[string]any{"recalled": recalled}}})
		return done(out, fmt.Sprintf("%d memories", len(ms)))
	case "store", "store-memory":
		var chars []string
		if cs, ok := in.Input["characters"].([]any); ok {
			for _, c := range cs {
				if s, ok := c.(string); ok {
					chars = append(chars, s)
				}
			}
		}
		sig, ok := significance(in.Input["significance"])
		if !ok {
			return fail("bad_significance", `"significance" is a number from 1 to 10 or one of low, medium, high, critical`)
		}
		if str("location") != "" {
			out.Emit(&protocol.Log{Level: protocol.LevelDebug, Message: "location " + str("location") + " is taken from the scene the memory happens in"})
		}
		if err := c.Remember(host.NewMemory{Summary: str("summary"), Characters: chars, Significance: sig, Kind: str("kind")}); err != nil {
			return fail("store_failed", err.Error())
		}
		return done(out, "remembered")
	}
	return fail("unknown_script", fmt.Sprintf("no operation %q: use recall (recall-memory) or store (store-memory)", in.Tool))
}

// significance reads 1–10, or the seed's words: low, medium, high,
// critical. Absent is medium.
func significance(v any) (int, bool) {
	switch x := v.(type) {
	case nil:
		return 5, true
	case float64:
		if x >= 1 && x <= 10 {
			return int(x), true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "low", "minor":
			return 3, true
		case "medium", "moderate", "":
			return 5, true
		case "high", "major":
			return 8, true
		case "critical":
			return 10, true
		}
	}
	return 0, false
}

func done(out *protocol.Writer, summary string) int {
	if err := out.Emit(&protocol.Done{OK: true, Summary: summary}); err != nil {
		return 1
	}
	return 0
}
