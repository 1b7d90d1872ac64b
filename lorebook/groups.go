package lorebook

import (
	"fmt"
	"slices"
)

// filterGroups leaves one entry per inclusion group among this pass's
// candidates, following SillyTavern's filterByInclusionGroups:
//
//  1. a group with a sticky member keeps only its sticky members;
//  2. with group scoring on (globally or for any member), scored members
//     that matched fewer keys than the best member drop out;
//  3. a group that already has an entry included in an earlier pass takes
//     no other; otherwise the member with groupOverride and the highest
//     order wins, or, without one, a draw weighted by groupWeight.
//
// An entry may sit in several groups; once it loses one it cannot win
// another (SillyTavern would still let it, and then drop that group's
// other members for nothing).
func (r *run) filterGroups(cands []candidate, pass int) {
	type group struct {
		name    string
		members []int // indexes into cands, in candidate order
		sticky  bool
	}
	var groups []*group
	byName := map[string]*group{}
	for ci := range cands {
		for _, g := range r.b.Entries[cands[ci].idx].groups {
			if byName[g] == nil {
				byName[g] = &group{name: g}
				groups = append(groups, byName[g])
			}
			byName[g].members = append(byName[g].members, ci)
		}
	}
	if len(groups) == 0 {
		return
	}
	remove := func(ci int, detail string) {
		c := &cands[ci]
		if !c.removed {
			c.removed = true
			r.cut(c.idx, pass, CutGroup, detail, c.key)
		}
	}
	live := func(g *group) []int {
		return slices.DeleteFunc(slices.Clone(g.members), func(ci int) bool { return cands[ci].removed })
	}

	for _, g := range groups {
		if !slices.ContainsFunc(g.members, func(ci int) bool { return cands[ci].sticky }) {
			continue
		}
		g.sticky = true
		for _, ci := range g.members {
			if !cands[ci].sticky {
				remove(ci, fmt.Sprintf("inclusion group %q keeps its sticky entry", g.name))
			}
		}
	}

	for _, g := range groups {
		if g.sticky || !r.scoring(g.members, cands) {
			continue
		}
		members := live(g)
		scores := make([]int, len(members))
		best := 0
		for j, ci := range members {
			scores[j] = r.score(&r.b.Entries[cands[ci].idx])
			best = max(best, scores[j])
		}
		for j, ci := range members {
			e := &r.b.Entries[cands[ci].idx]
			scored := r.in.GroupScoring
			if e.UseGroupScoring != nil {
				scored = *e.UseGroupScoring
			}
			if scored && scores[j] < best {
				remove(ci, fmt.Sprintf("inclusion group %q: matched %d keys, the best member %d", g.name, scores[j], best))
			}
		}
	}

	for _, g := range groups {
		if g.sticky {
			continue
		}
		members := live(g)
		if holder, ok := r.groupHolder(g.name); ok {
			for _, ci := range members {
				remove(ci, fmt.Sprintf("inclusion group %q already has uid %d", g.name, holder))
			}
			continue
		}
		if len(members) <= 1 {
			continue
		}
		winner, how := r.groupWinner(g.name, members, cands, pass)
		if winner < 0 {
			continue // negative weights defeat the draw; SillyTavern then leaves the group alone
		}
		for _, ci := range members {
			if ci != winner {
				remove(ci, fmt.Sprintf("inclusion group %q went to uid %d (%s)", g.name, r.b.Entries[cands[winner].idx].UID, how))
			}
		}
	}
}

// scoring reports whether group scoring applies to a group: it is on
// globally, or some member turns it on.
func (r *run) scoring(members []int, cands []candidate) bool {
	if r.in.GroupScoring {
		return true
	}
	return slices.ContainsFunc(members, func(ci int) bool {
		s := r.b.Entries[cands[ci].idx].UseGroupScoring
		return s != nil && *s
	})
}

// groupHolder finds an entry of the group included in an earlier pass.
func (r *run) groupHolder(name string) (uid int, ok bool) {
	for _, m := range r.included {
		if slices.Contains(r.b.Entries[m.idx].groups, name) {
			return m.UID, true
		}
	}
	return 0, false
}

// groupWinner picks a member: by override and order, else by a seeded draw
// over the weights. It returns -1 when the draw lands on no member, which
// only negative weights can cause.
func (r *run) groupWinner(name string, members []int, cands []candidate, pass int) (int, string) {
	best := -1
	for _, ci := range members {
		e := &r.b.Entries[cands[ci].idx]
		if e.GroupOverride && (best < 0 || e.Order > r.b.Entries[cands[best].idx].Order) {
			best = ci
		}
	}
	if best >= 0 {
		return best, "group override, highest order"
	}
	total := 0.0
	for _, ci := range members {
		total += r.b.Entries[cands[ci].idx].GroupWeight
	}
	x := roll(r.in.Seed, r.in.Turn, "group:"+r.b.Name+":"+name, pass) * total
	sum := 0.0
	for _, ci := range members {
		w := r.b.Entries[cands[ci].idx].GroupWeight
		sum += w
		if x <= sum {
			return ci, fmt.Sprintf("weighted draw, weight %g of %g", w, total)
		}
	}
	return -1, ""
}
