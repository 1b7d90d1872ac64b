package gameapi

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/world"
)

// PartyPick is one member of a new game's party (CreateRequest.Party): a
// character of the creator's library and who plays it.
type PartyPick struct {
	Character string `json:"character"`
	ControllerRequest
}

// ControllerRequest names who plays a party member: an agent ("ai", the
// default) with a model the server knows, or the offline agent when it
// names none; a human user by name; or nobody ("none"). It is also the
// body of PUT /api/sessions/{id}/party/{character}/controller.
type ControllerRequest struct {
	Controller string `json:"controller,omitempty"`
	// Kind is the same as Controller, as world.Controller spells it.
	Kind     string `json:"kind,omitempty"`
	User     string `json:"user,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// MemberController is the answer of PUT …/party/{character}/controller.
type MemberController struct {
	Character  string           `json:"character"`
	Controller world.Controller `json:"controller"`
}

// controller checks a requested controller against the server's users and
// models and completes it: an agent's provider is the one the server
// reaches the model through.
func (s *Server) controller(ctx context.Context, who string, c ControllerRequest) (world.Controller, error) {
	kind := strings.TrimSpace(cmp.Or(c.Controller, c.Kind, world.ControllerAI))
	user, provider, model := strings.TrimSpace(c.User), strings.TrimSpace(c.Provider), strings.TrimSpace(c.Model)
	switch kind {
	case world.ControllerAI:
		if user != "" {
			return world.Controller{}, problem("gameapi.party_ai_user", "Character", who)
		}
		if model == "" || provider == "offline" {
			return world.Controller{Kind: world.ControllerAI}, nil
		}
		known, names, err := s.models(ctx)
		if err != nil {
			s.log.Warn("list the models a party member may play with", "err", err)
			p := problem("gameapi.party_models_unavailable", "Model", clip(model))
			p.Code = hearth.Unavailable
			return world.Controller{}, p
		}
		if !slices.Contains(names, model) || (provider != "" && provider != known) {
			list := strings.Join(names, ", ")
			if list == "" {
				list = "-"
			}
			return world.Controller{}, problem("gameapi.party_unknown_model", "Character", who, "Model", clip(model), "Models", list)
		}
		return world.Controller{Kind: world.ControllerAI, Provider: known, Model: model}, nil
	case world.ControllerHuman:
		if user == "" {
			return world.Controller{}, problem("gameapi.party_user_required", "Character", who)
		}
		if provider != "" || model != "" {
			return world.Controller{}, problem("gameapi.party_human_model", "Character", who)
		}
		if s.o.Users != nil {
			names, err := s.o.Users(ctx)
			if err != nil {
				return world.Controller{}, err
			}
			if !slices.Contains(names, user) {
				return world.Controller{}, problem("gameapi.party_unknown_user", "Character", who, "User", clip(user))
			}
		}
		return world.Controller{Kind: world.ControllerHuman, User: user}, nil
	case world.ControllerNone:
		if user != "" || provider != "" || model != "" {
			return world.Controller{}, problem("gameapi.party_none_names", "Character", who)
		}
		return world.Controller{Kind: world.ControllerNone}, nil
	}
	return world.Controller{}, problem("gameapi.party_bad_controller", "Character", who, "Controller", clip(kind))
}

// models are the models an agent may play with and their provider; none
// without Options.Models.
func (s *Server) models(ctx context.Context) (string, []string, error) {
	if s.o.Models == nil {
		return "", nil, nil
	}
	return s.o.Models(ctx)
}

// recruits turns the picks into the party of a new game: each a character
// of u's library (a GM's: anyone's), once, with a controller that can play.
func (s *Server) recruits(ctx context.Context, u auth.User, picks []PartyPick) ([]campaign.Recruit, error) {
	if s.o.Characters == nil {
		return nil, problem("gameapi.party_no_library")
	}
	if len(picks) > world.MaxParty {
		return nil, problem("gameapi.party_size", "Max", world.MaxParty, "Count", len(picks))
	}
	v := chargen.Viewer{UserID: u.ID, All: u.Role >= access.GM}
	var out []campaign.Recruit
	seen := map[string]bool{}
	for _, p := range picks {
		id := strings.TrimSpace(p.Character)
		if id == "" {
			return nil, problem("gameapi.party_character_required")
		}
		if seen[id] {
			return nil, problem("gameapi.party_duplicate", "Character", clip(id))
		}
		seen[id] = true
		saved, err := s.o.Characters.Get(ctx, v, id)
		if hearth.ErrorCode(err) == hearth.NotFound {
			return nil, problem("gameapi.party_unknown_character", "Character", clip(id))
		}
		if err != nil {
			return nil, err
		}
		sheet, err := saved.Character.Sheet(saved.ID)
		if err != nil {
			return nil, err
		}
		ctl, err := s.controller(ctx, sheet.Name, p.ControllerRequest)
		if err != nil {
			return nil, err
		}
		out = append(out, campaign.Recruit{Sheet: sheet, Controller: ctl})
	}
	return out, nil
}

// putController is PUT /api/sessions/{id}/party/{character}/controller:
// the GM's side hands a party member to another controller, as a DM turn
// (controller_changed) that replay and restore keep. A member a human
// holds by drop-in is theirs until released.
func (s *Server) putController(w http.ResponseWriter, r *http.Request) {
	character := r.PathValue("character")
	var req ControllerRequest
	s.withLive(w, r, access.Assistant, func(l *live, u auth.User) {
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		l.mu.Lock()
		wd := l.snap.world // a copy no operation changes
		l.mu.Unlock()
		if wd.Member(character) == nil {
			var party []string
			for _, m := range wd.Members() {
				party = append(party, memberName(wd, m.Character)+" ("+m.Character+")")
			}
			p := problem("gameapi.party_not_member", "Character", clip(character), "Party", strings.Join(party, ", "))
			p.Code = hearth.NotFound
			s.fail(w, r, l.id, p)
			return
		}
		name := memberName(wd, character)
		to, err := s.controller(r.Context(), name, req)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		if err := l.setController(r.Context(), character, name, to, cmp.Or(u.Name, u.ID)); err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, MemberController{Character: character, Controller: to})
	})
}

// setController changes who plays character unless a human holds it by
// drop-in.
func (l *live) setController(ctx context.Context, character, name string, to world.Controller, by string) error {
	l.op.Lock()
	defer l.op.Unlock()
	if l.isDeleted() {
		return errDeleted
	}
	l.mu.Lock()
	held := l.controls[character]
	l.mu.Unlock()
	if held != nil {
		p := problem("gameapi.party_held", "Character", name, "User", held.user)
		p.Code = hearth.Conflict
		return p
	}
	return l.changeControllerLocked(ctx, character, to, by)
}

// memberName is a character's name, else its id.
func memberName(w *world.State, id string) string {
	if c := w.Characters[id]; c != nil && c.Name != "" {
		return c.Name
	}
	return id
}
