package gameapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// project cuts turn records to what a viewer with level may see. The GM
// sees them whole. Everyone else gets the input, the narrative, the rolls
// and the effects the current state's view admits (world.VisibleEffects);
// never the intents or the pipeline's passes, which hold the GM's context.
func (l *live) project(recs []game.TurnRecord, vw viewer) []game.TurnRecord {
	level, pc := vw.level, vw.character
	if level >= access.GM {
		return recs
	}
	v := l.view(vw)
	out := make([]game.TurnRecord, 0, len(recs))
	for _, t := range recs {
		p := game.TurnRecord{Number: t.Number, Agent: t.Agent, Controller: t.Controller, Input: t.Input, Narrative: t.Narrative, Rolls: t.Rolls, At: t.At}
		var es world.Effects
		if len(t.Effects) > 0 && json.Unmarshal(t.Effects, &es) == nil {
			if vis := v.VisibleEffects(es, level, pc); len(vis) > 0 {
				if b, err := json.Marshal(vis); err == nil {
					p.Effects = b
				}
			}
		}
		// Effects that cannot be read (a newer kind) are left out.
		out = append(out, p)
	}
	return out
}

// playerTranscript writes the current branch's transcript as a player sees
// it, in the shapes game.Session.Export uses, without the dice seed.
func (l *live) playerTranscript(ctx context.Context, w io.Writer, format string, vw viewer) error {
	gs := l.session()
	recs, err := gs.Turns(ctx, 1, gs.Turn())
	if err != nil {
		return err
	}
	turns := l.project(recs, vw)
	if turns == nil {
		turns = []game.TurnRecord{}
	}
	branch := gs.Branch()
	if format == "json" {
		doc := struct {
			Session  string            `json:"session"`
			Title    string            `json:"title"`
			Campaign string            `json:"campaign"`
			Branch   string            `json:"branch"`
			Turns    []game.TurnRecord `json:"turns"`
		}{l.id, l.title, l.camp, branch, turns}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", l.title)
	fmt.Fprintf(&b, "Session `%s`, branch `%s`, %d turns.\n\n", l.id, branch, len(turns))
	if intro := strings.TrimSpace(gs.Intro()); intro != "" {
		fmt.Fprintf(&b, "%s\n\n", intro)
	}
	for _, t := range turns {
		fmt.Fprintf(&b, "## Turn %d\n\n> %s\n\n%s\n\n", t.Number, t.Input, strings.TrimSpace(t.Narrative))
		for _, n := range game.Notes(t.Effects) {
			fmt.Fprintf(&b, "%s\n\n", n)
		}
		if t.Agent != "" {
			fmt.Fprintf(&b, "<sub>played by %s (%s)</sub>\n\n", t.Agent, cmp.Or(t.Controller, "unrecorded"))
		}
		var es world.Effects
		if json.Unmarshal(t.Effects, &es) == nil {
			var kinds []string
			for _, e := range es {
				if e.Kind() != "turn_began" {
					kinds = append(kinds, e.Kind())
				}
			}
			if len(kinds) > 0 {
				fmt.Fprintf(&b, "<sub>effects: %s</sub>\n\n", strings.Join(kinds, ", "))
			}
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// Comparison is two branches' turns side by side from the last turn their
// lines share (GET /api/sessions/{id}/compare).
type Comparison struct {
	// Ancestor is the last turn both lines share.
	Ancestor int        `json:"ancestor"`
	A        BranchLine `json:"a"`
	B        BranchLine `json:"b"`
}

// BranchLine is one side of a Comparison: the branch's turns after the
// common ancestor, at most maxTurnsPage of them.
type BranchLine struct {
	Branch    string            `json:"branch"`
	Tip       int               `json:"tip"`
	Turns     []game.TurnRecord `json:"turns"`
	Truncated bool              `json:"truncated,omitempty"`
}

// compare reads branches a and b from the store; missing names a branch
// that does not exist.
func (l *live) compare(ctx context.Context, a, b string, vw viewer) (cmp *Comparison, missing string, err error) {
	st := l.srv.o.Store
	brs, err := st.Branches(ctx, l.id)
	if err != nil {
		return nil, "", err
	}
	byName, byID := map[string]store.Branch{}, map[string]store.Branch{}
	for _, br := range brs {
		byName[br.Name], byID[br.ID] = br, br
	}
	ba, ok := byName[a]
	if !ok {
		return nil, a, nil
	}
	bb, ok := byName[b]
	if !ok {
		return nil, b, nil
	}
	tipA, err := st.Tip(ctx, ba.ID)
	if err != nil {
		return nil, "", err
	}
	tipB, err := st.Tip(ctx, bb.ID)
	if err != nil {
		return nil, "", err
	}
	anc := commonTurn(chain(ba, byID), chain(bb, byID), tipA, tipB)
	cmp = &Comparison{Ancestor: anc}
	for i, side := range []struct {
		br  store.Branch
		tip int
	}{{ba, tipA}, {bb, tipB}} {
		to := min(side.tip, anc+maxTurnsPage)
		var ts []store.Turn
		if to > anc {
			if ts, err = st.Turns(ctx, side.br.ID, anc+1, to); err != nil {
				return nil, "", err
			}
		}
		recs := make([]game.TurnRecord, 0, len(ts))
		for _, t := range ts {
			recs = append(recs, game.TurnRecord{Number: t.Number, Agent: t.Actor, Controller: t.Controller, Input: t.Input, Narrative: t.Narrative,
				Intents: t.Intents, Effects: t.Effects, Rolls: t.Rolls, Passes: t.Passes, At: t.CreatedAt})
		}
		line := BranchLine{Branch: side.br.Name, Tip: side.tip, Turns: l.project(recs, vw), Truncated: to < side.tip}
		if line.Turns == nil {
			line.Turns = []game.TurnRecord{}
		}
		if i == 0 {
			cmp.A = line
		} else {
			cmp.B = line
		}
	}
	return cmp, "", nil
}

// chain lists b and its ancestors, root first.
func chain(b store.Branch, byID map[string]store.Branch) []store.Branch {
	out := []store.Branch{b}
	for seen := 0; b.ParentID != "" && seen < len(byID); seen++ {
		p, ok := byID[b.ParentID]
		if !ok {
			break
		}
		out = append(out, p)
		b = p
	}
	slices.Reverse(out)
	return out
}

// commonTurn is the last turn two branches' lines share: after the deepest
// branch both chains hold, each line leaves it at its next branch's fork
// turn, or at its tip when it is that branch.
func commonTurn(a, b []store.Branch, tipA, tipB int) int {
	i := 0
	for i < len(a) && i < len(b) && a[i].ID == b[i].ID {
		i++
	}
	fa, fb := tipA, tipB
	if i < len(a) {
		fa = a[i].ForkTurn
	}
	if i < len(b) {
		fb = b[i].ForkTurn
	}
	if i == 0 { // no common root: nothing shared
		return 0
	}
	return min(fa, fb)
}
