package plan

import "strings"

// CycleError is a plan whose tools depend on each other. Cycle lists the
// members of one cycle in dependency order: each depends on the next, and
// the last on the first.
type CycleError struct {
	Cycle []string
}

func (e *CycleError) Error() string {
	return "circular dependency: " + strings.Join(append(e.Cycle, e.Cycle[0]), " → ") + " (each depends on the next)"
}

// Order returns the indexes of the plan's tools in an order that respects
// their dependencies, by Kahn's algorithm; among tools that are ready
// together, plan order wins. A cycle, direct or transitive, is a
// *CycleError. The plan must be valid (dependencies name existing tools).
func Order(p *Plan) ([]int, error) {
	n := len(p.Tools)
	index := make(map[string]int, n)
	for i := range p.Tools {
		index[p.Tools[i].ToolID] = i
	}
	indegree := make([]int, n)
	dependants := make([][]int, n)
	for i := range p.Tools {
		for _, d := range p.Tools[i].Dependencies {
			j, ok := index[d]
			if !ok {
				continue // Validate reports it
			}
			indegree[i]++
			dependants[j] = append(dependants[j], i)
		}
	}
	queue := make([]int, 0, n)
	for i := range n {
		if indegree[i] == 0 {
			queue = append(queue, i)
		}
	}
	order := make([]int, 0, n)
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		order = append(order, cur)
		for _, next := range dependants[cur] {
			if indegree[next]--; indegree[next] == 0 {
				queue = append(queue, next)
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	return nil, &CycleError{Cycle: findCycle(p, index, indegree)}
}

// findCycle walks dependencies among the tools Kahn's algorithm could not
// place (each has a dependency among them) until a tool repeats; the walk
// from its first visit is a cycle.
func findCycle(p *Plan, index map[string]int, indegree []int) []string {
	start := -1
	for i, d := range indegree {
		if d > 0 {
			start = i
			break
		}
	}
	pos := map[int]int{}
	var walk []int
	for cur := start; ; {
		if at, seen := pos[cur]; seen {
			cycle := make([]string, 0, len(walk)-at)
			for _, i := range walk[at:] {
				cycle = append(cycle, p.Tools[i].ToolID)
			}
			return cycle
		}
		pos[cur] = len(walk)
		walk = append(walk, cur)
		for _, d := range p.Tools[cur].Dependencies {
			if j, ok := index[d]; ok && indegree[j] > 0 {
				cur = j
				break
			}
		}
	}
}
