package gameapi

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/world"
)

// ModuleList answers GET /api/sessions/{id}/modules: the adventure
// modules the game master may choose from, and who listed them: "model"
// (the DM's model, from what it knows) or "campaigns" (the server's
// campaigns, when the game has no model or it failed; Notice says why).
type ModuleList struct {
	Modules []world.Module `json:"modules"`
	Source  string         `json:"source"`
	Notice  string         `json:"notice,omitempty"`
}

// ModuleChoice is the body of POST /api/sessions/{id}/module: a module of
// the list by number, or by name.
type ModuleChoice struct {
	Number int    `json:"number,omitempty"`
	Name   string `json:"name,omitempty"`
}

// ModuleSelected answers POST /api/sessions/{id}/module: the module the
// game now runs and the DM turn that recorded it.
type ModuleSelected struct {
	Module world.Module `json:"module"`
	Turn   int          `json:"turn"`
}

// listModules serves GET /api/sessions/{id}/modules, to the GM's side
// only: a module is the GM's plan.
func (s *Server) listModules(w http.ResponseWriter, r *http.Request) {
	s.withLive(w, r, access.Assistant, func(l *live, _ auth.User) {
		list, err := s.modules(r.Context(), l)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, list)
	})
}

// chooseModule serves POST /api/sessions/{id}/module: the module of the
// list last offered (asked for again when none was) by number or name.
func (s *Server) chooseModule(w http.ResponseWriter, r *http.Request) {
	s.withLive(w, r, access.Assistant, func(l *live, u auth.User) {
		var req ModuleChoice
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		l.mu.Lock()
		list := l.modules
		l.mu.Unlock()
		if list == nil {
			got, err := s.modules(r.Context(), l)
			if err != nil {
				s.fail(w, r, l.id, err)
				return
			}
			list = got
		}
		m, err := game.FindModule(list.Modules, req.Number, req.Name)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		turn, err := l.selectModule(r.Context(), m, cmp.Or(u.Name, u.ID))
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, ModuleSelected{Module: m, Turn: turn})
	})
}

// modules asks the game's DM model for the modules it knows, or lists
// the server's campaigns when the game has no model or the model fails,
// and keeps the list for a choice.
func (s *Server) modules(ctx context.Context, l *live) (*ModuleList, error) {
	list := &ModuleList{Source: game.ModulesFromCampaigns}
	gs := l.session()
	if f := gs.ModuleFinder(); f != nil {
		mctx, cancel := context.WithTimeout(ctx, s.o.TurnTimeout)
		ms, err := f.FindModules(mctx, gs.Campaign())
		cancel()
		if err == nil {
			list.Modules, list.Source = ms, game.ModulesFromModel
		} else {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.log.Warn("the DM's model listed no modules; listing the campaigns", "session", l.id, "err", err)
			list.Notice = "The game master's model gave no module list (" + err.Error() + "); these are the server's campaigns."
		}
	}
	if list.Source == game.ModulesFromCampaigns {
		ms, err := s.campaignModules(ctx)
		if err != nil {
			return nil, err
		}
		list.Modules = ms
	}
	if list.Modules == nil {
		list.Modules = []world.Module{}
	}
	l.mu.Lock()
	l.modules = list
	l.mu.Unlock()
	return list, nil
}

// campaignModules lists the server's campaigns as modules, in name
// order: title, description, genre and start as the setting, the player
// characters' levels as the range, and for the DM's context the quests as
// hooks, the NPCs (by name and what anyone sees of them) and the tone
// and rules as guidelines. Campaigns that do not load are left out.
func (s *Server) campaignModules(ctx context.Context) ([]world.Module, error) {
	names, err := s.o.Campaigns(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var ms []world.Module
	for _, n := range names {
		c, err := s.o.Campaign(ctx, n)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		ms = append(ms, campaignModule(c))
	}
	out, err := game.ValidModules(ms, game.ModulesFromCampaigns)
	if err != nil {
		s.log.Warn("campaigns as modules", "err", err)
	}
	return out, nil
}

func campaignModule(c *campaign.Campaign) world.Module {
	m := c.Meta
	setting := m.Genre
	if l := c.Locations[m.Start.Location]; l != nil {
		setting = strings.TrimLeft(setting+"; begins at "+l.Name, "; ")
	}
	lo, hi := 0, 0
	pcs := []string{m.Player}
	for _, p := range m.Party {
		pcs = append(pcs, p.ID)
	}
	for _, id := range pcs {
		if ch := c.Characters[id]; ch != nil && ch.Level > 0 {
			if lo == 0 || ch.Level < lo {
				lo = ch.Level
			}
			hi = max(hi, ch.Level)
		}
	}
	levels := ""
	switch {
	case lo > 0 && lo == hi:
		levels = fmt.Sprint(lo)
	case lo > 0:
		levels = fmt.Sprintf("%d-%d", lo, hi)
	}
	var hooks, npcs []string
	for _, id := range world.SortedKeys(c.Quests) {
		q := c.Quests[id]
		hooks = append(hooks, "- "+strings.TrimSpace(q.Name+": "+firstLine(q.Description)))
	}
	for _, id := range world.SortedKeys(c.Characters) {
		ch := c.Characters[id]
		if ch.Kind == world.NPC {
			npcs = append(npcs, "- "+strings.TrimSpace(ch.Name+": "+firstLine(ch.Description)))
		}
	}
	var guide []string
	if m.Tone != "" {
		guide = append(guide, "Tone: "+m.Tone+".")
	}
	if m.RulesHint != "" {
		guide = append(guide, "Rules: "+m.RulesHint+".")
	}
	if len(m.ContentWarnings) > 0 {
		guide = append(guide, "Content warnings: "+strings.Join(m.ContentWarnings, ", ")+".")
	}
	return world.Module{Name: m.Title, Description: strings.TrimSpace(m.Description), Setting: setting, LevelRange: levels,
		Hooks: strings.Join(hooks, "\n"), NPCs: strings.Join(npcs, "\n"), Guidelines: strings.Join(guide, " ")}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// selectModule records m as the game's module (a DM turn) and sends the
// turn to every client, each as its view shows it: to players an empty DM
// turn.
func (l *live) selectModule(ctx context.Context, m world.Module, by string) (int, error) {
	l.op.Lock()
	defer l.op.Unlock()
	if l.isDeleted() {
		return 0, errDeleted
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.srv.o.TurnTimeout)
	defer cancel()
	resp, err := l.session().SelectModule(ctx, m, by)
	if err != nil {
		return 0, err
	}
	l.refresh(&resp.Awaiting)
	l.broadcastTurn(resp, "", by)
	return resp.Turn, nil
}
