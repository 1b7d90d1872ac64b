package opinion

import (
	"fmt"
	"io"
	"strings"

	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Kind says which opinion a skill handles.
type Kind struct {
	Key   string // the input field naming whose opinion: faction, npc
	Patch string // the state patch's top-level key: factions, npcs
	Field string // reputation, perception
	Read  func(c *host.Client, id string) (int, error)
}

// Run is the whole script; it returns the exit status.
func Run(stdin io.Reader, stdout, stderr io.Writer, k Kind) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, k.Field+":", err)
		return 2
	}
	out.RequestID = in.RequestID
	fail := func(code, msg string) int {
		out.Emit(&protocol.ErrorEvent{ErrorCode: code, ErrorMessage: msg})
		out.Emit(&protocol.Done{OK: false, Summary: msg})
		return 0
	}
	id, _ := in.Input[k.Key].(string)
	if id = strings.TrimSpace(id); id == "" {
		return fail("missing_"+k.Key, fmt.Sprintf("input needs %q", k.Key))
	}
	c, err := host.FromEnv()
	if err != nil {
		return fail("no_host", err.Error())
	}
	v, err := k.Read(c, id)
	if err != nil {
		return fail("read_failed", err.Error())
	}
	switch in.Tool {
	case "get":
		out.Emit(&protocol.UIEvent{Event: k.Field, Payload: map[string]any{k.Key: id, k.Field: v, "tier": host.Tier(v),
			"text": fmt.Sprintf("%s: %s (%+d)", id, host.Tier(v), v)}})
		out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%s %d", id, v)})
		return 0
	case "adjust":
		d, ok := in.Input["delta"].(float64)
		if !ok || d < -100 || d > 100 {
			return fail("bad_delta", `input needs "delta", a number from -100 to 100`)
		}
		next := max(-100, min(100, v+int(d)))
		reason, _ := in.Input["reason"].(string)
		out.Emit(&protocol.Log{Level: protocol.LevelInfo, Message: fmt.Sprintf("%s %s %d → %d: %s", id, k.Field, v, next, reason)})
		out.Emit(&protocol.StatePatch{Patch: map[string]any{k.Patch: map[string]any{id: map[string]any{k.Field: next}}}})
		out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%s %s now %d", id, k.Field, next)})
		return 0
	}
	return fail("unknown_script", fmt.Sprintf("no operation %q: use get or adjust", in.Tool))
}
