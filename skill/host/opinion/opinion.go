package opinion

import (
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
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
	if in.Tool == "initialize-"+k.Field && k.Field == "perception" {
		return initialize(out, in, c, id, fail)
	}
	v, err := k.Read(c, id)
	if err != nil {
		return fail("read_failed", err.Error())
	}
	switch in.Tool {
	case "get", "query-" + k.Field:
		out.Emit(&protocol.UIEvent{Event: k.Field, Payload: map[string]any{k.Key: id, k.Field: v, "tier": host.Tier(v),
			"text": fmt.Sprintf("%s: %s (%+d)", id, host.Tier(v), v)}})
		out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%s %d", id, v)})
		return 0
	case "adjust", "update-" + k.Field:
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
	return fail("unknown_script", fmt.Sprintf("no operation %q: use get (query-%s) or adjust (update-%s)", in.Tool, k.Field, k.Field))
}

// initialize seeds what a new NPC thinks of the player (seed 001 §4.2.3):
// half from the player's standing with the NPC's faction (input
// "faction"), three tenths from how the player looks to them (input
// "impression", -100..100: visible traits and equipment; 0 if not given)
// and a fifth from chance (input "seed" makes it repeatable).
func initialize(out *protocol.Writer, in protocol.Input, c *host.Client, npc string, fail func(code, msg string) int) int {
	rep := 0
	if f, _ := in.Input["faction"].(string); strings.TrimSpace(f) != "" {
		v, err := c.Reputation(strings.TrimSpace(f))
		if err != nil {
			out.Emit(&protocol.Log{Level: protocol.LevelWarn, Message: fmt.Sprintf("faction %s: %v; counted as neutral", f, err)})
		} else {
			rep = v
		}
	}
	imp, _ := in.Input["impression"].(float64)
	if imp < -100 || imp > 100 {
		return fail("bad_impression", `"impression" is a number from -100 to 100`)
	}
	var r *mrand.Rand
	if s, ok := in.Input["seed"].(float64); ok {
		r = mrand.New(mrand.NewPCG(uint64(int64(s)), 0x9e3779b9))
	} else {
		r = mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
	}
	chance := r.IntN(201) - 100
	v := max(-100, min(100, int(math.Round(0.5*float64(rep)+0.3*imp+0.2*float64(chance)))))
	out.Emit(&protocol.Log{Level: protocol.LevelInfo, Message: fmt.Sprintf("%s perception seeded at %d (faction %d, impression %d, chance %d)", npc, v, rep, int(imp), chance)})
	out.Emit(&protocol.UIEvent{Event: "perception", Payload: map[string]any{"npc": npc, "perception": v, "tier": host.Tier(v),
		"text": fmt.Sprintf("%s: %s (%+d)", npc, host.Tier(v), v)}})
	out.Emit(&protocol.StatePatch{Patch: map[string]any{"npcs": map[string]any{npc: map[string]any{"perception": v}}}})
	if err := out.Emit(&protocol.Done{OK: true, Summary: fmt.Sprintf("%s perception %d", npc, v)}); err != nil {
		return 1
	}
	return 0
}
