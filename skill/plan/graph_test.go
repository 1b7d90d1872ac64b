package plan

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func tools(deps map[string][]string, ids ...string) *Plan {
	p := &Plan{RequestID: "r", Metadata: Metadata{GenerationAttempt: 1}}
	for _, id := range ids {
		p.Tools = append(p.Tools, Tool{ToolID: id, ToolPath: "skills/s/scripts/" + id, Dependencies: deps[id], Required: true})
	}
	return p
}

func ids(p *Plan, order []int) []string {
	var out []string
	for _, i := range order {
		out = append(out, p.Tools[i].ToolID)
	}
	return out
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name string
		p    *Plan
		want []string
	}{
		{"diamond of the seed", tools(map[string][]string{"B": {"A"}, "C": {"A"}, "D": {"B", "C"}}, "A", "B", "C", "D"), []string{"A", "B", "C", "D"}},
		{"listed backwards", tools(map[string][]string{"B": {"A"}, "C": {"A"}, "D": {"B", "C"}}, "D", "C", "B", "A"), []string{"A", "C", "B", "D"}},
		{"independent keep plan order", tools(nil, "x", "y", "z"), []string{"x", "y", "z"}},
		{"empty", tools(nil), []string{}},
	}
	for _, tt := range tests {
		order, err := Order(tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := ids(tt.p, order); !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%s: order %v, want %v", tt.name, got, tt.want)
		}
		checkOrder(t, tt.p, order)
	}
}

func TestOrderNamesTheCycle(t *testing.T) {
	tests := []struct {
		name    string
		p       *Plan
		members []string
	}{
		{"self", tools(map[string][]string{"A": {"A"}}, "A", "B"), []string{"A"}},
		{"direct", tools(map[string][]string{"A": {"B"}, "B": {"A"}}, "A", "B", "C"), []string{"A", "B"}},
		{"transitive, with a dependant outside it", tools(map[string][]string{
			"A": {"C"}, "B": {"A"}, "C": {"B"}, "D": {"C"}, "E": {"ok"},
		}, "ok", "D", "A", "B", "C", "E"), []string{"A", "B", "C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Order(tt.p)
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("Order error = %v, want *CycleError", err)
			}
			got := append([]string(nil), ce.Cycle...)
			if !sameSet(got, tt.members) {
				t.Errorf("cycle %v, want members %v", ce.Cycle, tt.members)
			}
			checkCycle(t, tt.p, ce.Cycle)
			for _, m := range tt.members {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q does not name %s", err, m)
				}
			}
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x]--; m[x] < 0 {
			return false
		}
	}
	return true
}
