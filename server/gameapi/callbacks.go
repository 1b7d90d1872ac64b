package gameapi

import (
	"net/http"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/world"
)

// Callbacks is what GET /api/sessions/{id}/callbacks answers (seed 002
// FR76–FR80): the narrative elements of the current branch, the callback
// rate of its turns, and for the GM and assistants the unresolved threads
// suggested to the DM.
type Callbacks struct {
	Branch   string                   `json:"branch"`
	Turn     int                      `json:"turn"`
	Elements []world.NarrativeElement `json:"elements"`
	// CallbackRate is the share of turns after the first element that
	// referenced an earlier one.
	CallbackRate float64                  `json:"callback_rate"`
	Referencing  int                      `json:"referencing_turns"`
	Eligible     int                      `json:"eligible_turns"`
	Suggestions  []world.NarrativeElement `json:"suggestions,omitempty"`
}

// callbacks answers the GM and assistants with every element; a player
// with those of the turns they could see, read through their view of the
// game (elements drawn from what the GM alone knows are not in it) and a
// rate counted over the turns' effects as projected for them.
func (s *Server) callbacks(w http.ResponseWriter, r *http.Request) {
	s.withLive(w, r, 0, func(l *live, u auth.User) {
		vw := l.viewerOf(u)
		v := l.view(vw)
		gs := l.session()
		recs, err := gs.Turns(r.Context(), 1, v.Turn)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		out := Callbacks{Branch: gs.Branch(), Turn: v.Turn, Elements: []world.NarrativeElement{}}
		out.Referencing, out.Eligible = game.CallbackRate(l.project(recs, vw))
		if out.Eligible > 0 {
			out.CallbackRate = float64(out.Referencing) / float64(out.Eligible)
		}
		for _, id := range world.SortedKeys(v.Elements) {
			if e := v.Elements[id]; e.TurnIntroduced <= v.Turn {
				out.Elements = append(out.Elements, *e)
			}
		}
		if vw.level >= access.GM {
			out.Suggestions = game.CallbackSuggestions(v, v.Turn+1, true)
		}
		api.JSON(w, http.StatusOK, out)
	})
}
