package cassette

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
)

// Canonical is a chat request as replay compares it: JSON with sorted
// keys at every depth (tool arguments and schemas included), without
// what differs between two runs of the same build asking the same thing:
//
//   - the model name: the cassette stands in for the model, so the model a
//     replay's configuration names does not change what the game asked;
//   - tool call ids: servers make them up (OpenAI "call_x7Gq…", llama.cpp
//     none, so the agent numbers them), so they become "call#1", "call#2"…
//     in the order they first appear, in calls and in tool answers alike.
//
// Everything else — prompts, context, tools offered, schema, sampling —
// is the request.
func Canonical(req llm.Request) json.RawMessage {
	req.Model = ""
	ids := map[string]string{}
	norm := func(id string) string {
		if id == "" {
			return ""
		}
		if n, ok := ids[id]; ok {
			return n
		}
		ids[id] = fmt.Sprintf("call#%d", len(ids)+1)
		return ids[id]
	}
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		for j := range m.ToolCalls {
			m.ToolCalls[j].ID = norm(m.ToolCalls[j].ID)
		}
		m.ToolCallID = norm(m.ToolCallID)
		msgs[i] = m
	}
	req.Messages = msgs
	b, err := json.Marshal(req)
	if err != nil {
		// Only a tool's broken raw JSON gets here; keep it comparable.
		return json.RawMessage(fmt.Sprintf("%q", err.Error()))
	}
	return sortKeys(b)
}

// sortKeys re-encodes JSON with object keys sorted (encoding/json sorts
// map keys) and numbers kept as written.
func sortKeys(b []byte) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// Key identifies a chat request: requests with equal canonical forms have
// equal keys.
func Key(req llm.Request) string {
	sum := sha256.Sum256(Canonical(req))
	return hex.EncodeToString(sum[:12])
}

// Difference is where two canonical requests first differ: the field's
// path ("messages[3].content") and an excerpt of each side around the
// first differing character.
type Difference struct {
	Field              string
	Recorded, Replayed string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: recorded %s, replayed %s", d.Field, d.Recorded, d.Replayed)
}

// Diff finds the first difference between two canonical requests, in
// their fields' order; ok is false when they are equal.
func Diff(recorded, replayed json.RawMessage) (Difference, bool) {
	var a, b any
	da, db := json.NewDecoder(bytes.NewReader(recorded)), json.NewDecoder(bytes.NewReader(replayed))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&a) != nil || db.Decode(&b) != nil {
		if bytes.Equal(recorded, replayed) {
			return Difference{}, false
		}
		return Difference{Field: "request", Recorded: excerpt(string(recorded), string(replayed)), Replayed: excerpt(string(replayed), string(recorded))}, true
	}
	return diff("", a, b)
}

func diff(path string, a, b any) (Difference, bool) {
	field := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, fieldOrder)
		for _, k := range keys {
			av, inA := x[k]
			bv, inB := y[k]
			switch {
			case !inA:
				return Difference{Field: field(k), Recorded: "nothing", Replayed: show(bv)}, true
			case !inB:
				return Difference{Field: field(k), Recorded: show(av), Replayed: "nothing"}, true
			}
			if d, ok := diff(field(k), av, bv); ok {
				return d, true
			}
		}
		return Difference{}, false
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if d, ok := diff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); ok {
				return d, true
			}
		}
		if len(x) != len(y) {
			return Difference{Field: path, Recorded: fmt.Sprintf("%d entries", len(x)), Replayed: fmt.Sprintf("%d entries", len(y))}, true
		}
		return Difference{}, false
	case string:
		if y, ok := b.(string); ok {
			if x == y {
				return Difference{}, false
			}
			return Difference{Field: path, Recorded: excerpt(x, y), Replayed: excerpt(y, x)}, true
		}
	}
	if show(a) == show(b) {
		return Difference{}, false
	}
	return Difference{Field: path, Recorded: show(a), Replayed: show(b)}, true
}

// fieldOrder puts a message's role before its content and the messages
// before the tools, so the first difference named is the one a reader
// looks for first; other keys sort alphabetically.
func fieldOrder(a, b string) int {
	rank := func(k string) int {
		return slices.Index([]string{"role", "name", "content", "tool_calls", "tool_call_id", "messages", "tools", "schema"}, k) + 1
	}
	ra, rb := rank(a), rank(b)
	switch {
	case ra != 0 && rb != 0:
		return ra - rb
	case ra != 0:
		return -1
	case rb != 0:
		return 1
	}
	return strings.Compare(a, b)
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// excerpt quotes s around its first difference from t: 30 characters
// before it, 50 after.
func excerpt(s, t string) string {
	rs, rt := []rune(s), []rune(t)
	i := 0
	for i < len(rs) && i < len(rt) && rs[i] == rt[i] {
		i++
	}
	from, to := max(0, i-30), min(len(rs), i+50)
	out := fmt.Sprintf("%q", string(rs[from:to]))
	if from > 0 {
		out = "…" + out
	}
	if to < len(rs) {
		out += "…"
	}
	return out
}
