package gameapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

const (
	maxBody      = 4 << 10
	maxTurnsPage = 500 // turns one request returns, per branch
)

// SessionInfo describes a stored game. The detail (GET /api/sessions/{id})
// adds when it was created, its autopilot and its connected clients, and
// for assistants and the GM its dice seed, from which rolls can be foreseen.
type SessionInfo struct {
	ID        string          `json:"id"`
	Campaign  string          `json:"campaign"`
	Title     string          `json:"title"`
	Turn      int             `json:"turn"`
	Branch    string          `json:"branch"`
	Updated   time.Time       `json:"updated"`
	Created   *time.Time      `json:"created,omitempty"`
	Seed      uint64          `json:"seed,omitempty"`
	Autopilot *AutopilotState `json:"autopilot,omitempty"`
	Clients   *int            `json:"clients,omitempty"`
	// Module is the adventure module the game runs, in the detail shown to
	// assistants and the GM only.
	Module *world.Module `json:"module,omitempty"`
	// Images, in the detail, is set when the server keeps scene images.
	Images *ImageFeatures `json:"images,omitempty"`
}

// ImageFeatures says what the viewer of a game may do with scene images:
// list and download them, and, when Generate, have one drawn (an image
// provider is configured and the viewer's role may spend on it).
type ImageFeatures struct {
	Generate bool `json:"generate"`
}

// CreateRequest is the body of POST /api/sessions.
type CreateRequest struct {
	Campaign string `json:"campaign"`
	Seed     uint64 `json:"seed,omitempty"`
	Title    string `json:"title,omitempty"`
	// Party, when given, is the game's party in place of the campaign's
	// own player characters: characters of the creator's library (a GM's:
	// anyone's), each with who plays it, starting where the campaign
	// starts.
	Party []PartyPick `json:"party,omitempty"`
}

// Config is a session's runtime configuration. Speeds and PlayMode are
// for reading; PUT takes a ConfigUpdate.
type Config struct {
	Speed     string            `json:"speed"`
	Autopilot bool              `json:"autopilot"`
	Speeds    map[string]string `json:"speeds"`
	PlayMode  string            `json:"play_mode,omitempty"`
}

// ConfigUpdate is the body of PUT /api/sessions/{id}/config; absent fields
// stay as they are.
type ConfigUpdate struct {
	Speed     *string `json:"speed,omitempty"`
	Autopilot *bool   `json:"autopilot,omitempty"`
}

// fail answers with what err means to the client: the status by its code
// (api.Fail), the words of the game API's catalog.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, id string, err error, says ...api.Say) {
	says = append(says,
		api.Say{Is: store.ErrNotFound, ID: "gameapi.session_not_found", Data: map[string]any{"ID": clip(id)}},
		api.Say{Code: api.Invalid, ID: "gameapi.invalid"})
	api.Fail(w, r, s.log, err, says...)
}

func (s *Server) info(ctx context.Context, m *store.Session) (SessionInfo, error) {
	brs, err := s.o.Store.Branches(ctx, m.ID)
	if err != nil {
		return SessionInfo{}, fmt.Errorf("branches of %s: %w", m.ID, err)
	}
	in := SessionInfo{ID: m.ID, Campaign: m.Campaign, Title: m.Name, Turn: m.Head, Updated: m.UpdatedAt}
	for _, b := range brs {
		if b.ID == m.Branch {
			in.Branch = b.Name
		}
	}
	return in, nil
}

// detail is info with what only one session's page shows.
func (s *Server) detail(ctx context.Context, id string, role access.Level) (SessionInfo, error) {
	m, err := s.o.Store.Session(ctx, id)
	if err != nil {
		return SessionInfo{}, err
	}
	in, err := s.info(ctx, m)
	if err != nil {
		return in, err
	}
	created := m.CreatedAt
	in.Created = &created
	if s.o.ImageStore != nil {
		in.Images = &ImageFeatures{Generate: s.o.Images != nil && role >= access.Assistant}
	}
	if role >= access.Assistant {
		in.Seed = m.Seed
	}
	ap, clients := AutopilotState{Speed: s.knownSpeed(game.PreferenceOf(m, speedPreference))}, 0
	if l := s.peek(id); l != nil {
		ap = l.autopilotState()
		l.mu.Lock()
		clients = len(l.clients)
		l.mu.Unlock()
	}
	in.Autopilot, in.Clients = &ap, &clients
	if l := s.peek(id); l != nil && role >= access.Assistant {
		l.mu.Lock()
		if m := l.snap.world.Module; m != nil {
			c := *m
			in.Module = &c
		}
		l.mu.Unlock()
	}
	return in, nil
}

// peek returns the live session id if it is open, without holding it.
func (s *Server) peek(id string) *live {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.live[id]
	if l == nil || l.quitting {
		return nil
	}
	select {
	case <-l.ready:
		if l.err != nil {
			return nil
		}
		return l
	default:
		return nil
	}
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, 0); !ok {
		return
	}
	ms, err := s.o.Store.Sessions(r.Context())
	if err != nil {
		s.fail(w, r, "", err)
		return
	}
	out := make([]SessionInfo, 0, len(ms))
	for i := range ms {
		in, err := s.info(r.Context(), &ms[i])
		if err != nil {
			s.fail(w, r, ms[i].ID, err)
			return
		}
		out = append(out, in)
	}
	api.JSON(w, http.StatusOK, map[string]any{"sessions": out})
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	u, ok := s.user(w, r, access.Assistant)
	if !ok {
		return
	}
	var req CreateRequest
	if !api.DecodeOrError(w, r, &req, maxBody) {
		return
	}
	req.Campaign = strings.TrimSpace(req.Campaign)
	if req.Campaign == "" {
		api.Error(w, r, api.Invalid, "gameapi.campaign_required", nil)
		return
	}
	c, err := s.o.Campaign(r.Context(), req.Campaign)
	if errors.Is(err, ErrUnknownCampaign) {
		s.fail(w, r, "", err, api.Say{Is: ErrUnknownCampaign, ID: "gameapi.campaign_not_found", Data: map[string]any{"Name": clip(req.Campaign)}})
		return
	}
	if err != nil {
		// A campaign that does not load is the campaign author's to fix,
		// and its problems name files of the campaign, not of the server.
		s.log.Warn("campaign does not load", "campaign", req.Campaign, "err", err)
		api.Error(w, r, api.Invalid, "gameapi.campaign_failed", map[string]any{"Name": clip(req.Campaign), "Reason": err.Error()})
		return
	}
	title := strings.TrimSpace(req.Title)
	if len(title) > maxTitle {
		api.Error(w, r, api.Invalid, "gameapi.title_too_long", map[string]any{"Max": maxTitle})
		return
	}
	var party []campaign.Recruit
	if req.Party != nil {
		if party, err = s.recruits(r.Context(), u, req.Party); err != nil {
			s.fail(w, r, "", err)
			return
		}
		if len(party) == 0 {
			s.fail(w, r, "", problem("gameapi.party_size", "Max", world.MaxParty, "Count", 0))
			return
		}
	}
	gs, err := game.New(context.WithoutCancel(r.Context()), s.o.Store, c, req.Seed, game.Options{Logger: s.log, Name: title, Party: party})
	if err != nil {
		s.fail(w, r, "", err)
		return
	}
	in, err := s.detail(r.Context(), gs.ID(), u.Role)
	if err != nil {
		s.fail(w, r, gs.ID(), err)
		return
	}
	s.log.Info("game created", "session", gs.ID(), "campaign", in.Campaign, "by", u.ID)
	w.Header().Set("Location", "/api/sessions/"+gs.ID())
	api.JSON(w, http.StatusCreated, in)
}

// maxTitle bounds a game's name.
const maxTitle = 200

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	u, ok := s.user(w, r, 0)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if u.Role >= access.Assistant {
		// The module is in the game's state: the GM's side opens the game
		// to read it.
		l, err := s.acquire(r.Context(), id)
		if err != nil {
			s.fail(w, r, id, err)
			return
		}
		defer s.release(l)
	}
	in, err := s.detail(r.Context(), id, u.Role)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	api.JSON(w, http.StatusOK, in)
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	u, ok := s.user(w, r, access.Assistant)
	if !ok {
		return
	}
	id := r.PathValue("id")
	l, err := s.acquire(r.Context(), id)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	defer s.release(l)
	if err := l.delete(context.WithoutCancel(r.Context())); err != nil {
		s.fail(w, r, id, err)
		return
	}
	s.log.Info("game deleted", "session", id, "by", u.ID)
	w.WriteHeader(http.StatusNoContent)
}

// withLive runs f on the live session of the request's {id}.
func (s *Server) withLive(w http.ResponseWriter, r *http.Request, min access.Level, f func(l *live, u auth.User)) {
	u, ok := s.user(w, r, min)
	if !ok {
		return
	}
	id := r.PathValue("id")
	l, err := s.acquire(r.Context(), id)
	if err != nil {
		s.fail(w, r, id, err)
		return
	}
	defer s.release(l)
	f(l, u)
}

func (s *Server) config(l *live) Config {
	speeds := make(map[string]string, len(s.speeds))
	for k, d := range s.speeds {
		speeds[k] = d.String()
	}
	ap := l.autopilotState()
	return Config{Speed: ap.Speed, Autopilot: ap.Running, Speeds: speeds, PlayMode: l.session().Campaign().PlayMode}
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	s.withLive(w, r, 0, func(l *live, _ auth.User) {
		api.JSON(w, http.StatusOK, s.config(l))
	})
}

func (s *Server) putConfig(w http.ResponseWriter, r *http.Request) {
	var up ConfigUpdate
	s.withLive(w, r, access.Assistant, func(l *live, _ auth.User) {
		if !api.DecodeOrError(w, r, &up, maxBody) {
			return
		}
		if up.Speed != nil {
			if err := l.setSpeed(r.Context(), strings.TrimSpace(*up.Speed)); err != nil {
				s.fail(w, r, l.id, err)
				return
			}
		}
		if up.Autopilot != nil {
			if *up.Autopilot {
				if err := l.startAutopilot(r.Context(), ""); err != nil {
					s.fail(w, r, l.id, err)
					return
				}
			} else {
				l.stopAutopilot(StoppedByUser)
			}
		}
		api.JSON(w, http.StatusOK, s.config(l))
	})
}

func (s *Server) unknownSpeed(speed string) *Problem {
	names := make([]string, 0, len(s.speeds))
	for k := range s.speeds {
		names = append(names, k)
	}
	slices.Sort(names)
	return problem("gameapi.msg.unknown_speed", "Speed", clip(speed), "Speeds", strings.Join(names, ", "))
}

// intParam reads an optional non-negative integer query parameter.
func intParam(w http.ResponseWriter, r *http.Request, name string, def int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		api.Error(w, r, api.Invalid, "gameapi.bad_query", map[string]any{"Name": name, "Value": clip(v)})
		return 0, false
	}
	return n, true
}

// TurnsPage is the answer of GET /api/sessions/{id}/turns.
type TurnsPage struct {
	Branch string            `json:"branch"`
	Turn   int               `json:"turn"`
	Turns  []game.TurnRecord `json:"turns"`
}

func (s *Server) turns(w http.ResponseWriter, r *http.Request) {
	from, ok := intParam(w, r, "from", 1)
	if !ok {
		return
	}
	to, ok := intParam(w, r, "to", from+maxTurnsPage-1)
	if !ok {
		return
	}
	to = min(to, from+maxTurnsPage-1)
	s.withLive(w, r, 0, func(l *live, u auth.User) {
		gs := l.session()
		recs, err := gs.Turns(r.Context(), from, to)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		page := TurnsPage{Branch: gs.Branch(), Turn: gs.Turn(), Turns: l.project(recs, l.viewerOf(u))}
		if page.Turns == nil {
			page.Turns = []game.TurnRecord{}
		}
		api.JSON(w, http.StatusOK, page)
	})
}

// change runs a REST change of the game's position (restore, fork,
// switch) between turns, then shows every client where the game now is.
// Changes run to the end even if the client leaves, so that the game in
// memory and the store never disagree.
func (l *live) change(f func() error) error {
	l.op.Lock()
	if l.isDeleted() {
		l.op.Unlock()
		return errDeleted
	}
	err := f()
	if err == nil {
		l.refresh(&game.Awaiting{Kind: game.FreeForm})
	}
	l.op.Unlock()
	if err == nil {
		l.broadcastState()
	}
	return err
}

func (s *Server) restore(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Turn *int `json:"turn"`
	}
	s.withLive(w, r, access.Assistant, func(l *live, u auth.User) {
		role := u.Role
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		if req.Turn == nil {
			api.Error(w, r, api.Invalid, "gameapi.turn_required", nil)
			return
		}
		if err := l.change(func() error { return l.session().Restore(context.WithoutCancel(r.Context()), *req.Turn) }); err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		in, err := s.detail(r.Context(), l.id, role)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, in)
	})
}

func (s *Server) forks(w http.ResponseWriter, r *http.Request) {
	s.withLive(w, r, 0, func(l *live, _ auth.User) {
		brs, err := l.session().Branches(r.Context())
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, map[string]any{"forks": brs})
	})
}

var errExists = &hearth.Error{Code: hearth.Conflict, Message: "exists"}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	s.withLive(w, r, access.Assistant, func(l *live, _ auth.User) {
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		req.Name = strings.TrimSpace(req.Name)
		err := l.change(func() error {
			if _, err := s.o.Store.BranchByName(r.Context(), l.id, req.Name); err == nil {
				return errExists
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			_, err := l.session().ForkDescribed(context.WithoutCancel(r.Context()), req.Name, req.Description)
			return err
		})
		if err != nil {
			s.fail(w, r, l.id, err, api.Say{Is: errExists, ID: "gameapi.fork_exists", Data: map[string]any{"Name": clip(req.Name)}})
			return
		}
		brs, err := l.session().Branches(r.Context())
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		for _, b := range brs {
			if b.Name == req.Name {
				api.JSON(w, http.StatusCreated, b)
				return
			}
		}
		s.fail(w, r, l.id, fmt.Errorf("fork %q of %s is not among its branches", req.Name, l.id))
	})
}

// updateFork changes a fork's description or canonical mark; the game
// stays where it is, so nothing is broadcast.
func (s *Server) updateFork(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var req struct {
		Description *string `json:"description"`
		IsCanonical *bool   `json:"is_canonical"`
	}
	s.withLive(w, r, access.Assistant, func(l *live, _ auth.User) {
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		if req.Description == nil && req.IsCanonical == nil {
			api.Error(w, r, api.Invalid, "gameapi.fork_update_empty", nil)
			return
		}
		l.op.Lock()
		if l.isDeleted() {
			l.op.Unlock()
			s.fail(w, r, l.id, errDeleted)
			return
		}
		b, err := l.session().UpdateBranch(context.WithoutCancel(r.Context()), name, req.Description, req.IsCanonical)
		l.op.Unlock()
		if err != nil {
			s.fail(w, r, l.id, err, api.Say{Code: hearth.NotFound, ID: "gameapi.fork_not_found", Data: map[string]any{"Name": clip(name)}})
			return
		}
		api.JSON(w, http.StatusOK, b)
	})
}

func (s *Server) switchFork(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.withLive(w, r, access.Assistant, func(l *live, u auth.User) {
		role := u.Role
		if _, err := s.o.Store.BranchByName(r.Context(), l.id, name); err != nil {
			s.fail(w, r, l.id, err, api.Say{Is: store.ErrNotFound, ID: "gameapi.fork_not_found", Data: map[string]any{"Name": clip(name)}})
			return
		}
		if err := l.change(func() error { return l.session().Switch(context.WithoutCancel(r.Context()), name) }); err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		in, err := s.detail(r.Context(), l.id, role)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusOK, in)
	})
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	a, b := r.URL.Query().Get("a"), r.URL.Query().Get("b")
	if a == "" || b == "" {
		api.Error(w, r, api.Invalid, "gameapi.compare_needs", nil)
		return
	}
	s.withLive(w, r, 0, func(l *live, u auth.User) {
		cmp, missing, err := l.compare(r.Context(), a, b, l.viewerOf(u))
		switch {
		case missing != "":
			api.Error(w, r, api.NotFound, "gameapi.fork_not_found", map[string]any{"Name": clip(missing)})
		case err != nil:
			s.fail(w, r, l.id, err)
		default:
			api.JSON(w, http.StatusOK, cmp)
		}
	})
}

func (s *Server) transcript(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	ext, ctype := "", ""
	switch format {
	case "", "json":
		format, ext, ctype = "json", "json", "application/json"
	case "md", "markdown":
		format, ext, ctype = "markdown", "md", "text/markdown; charset=utf-8"
	default:
		api.Error(w, r, api.Invalid, "gameapi.bad_format", map[string]any{"Format": clip(format)})
		return
	}
	s.withLive(w, r, 0, func(l *live, u auth.User) {
		role := u.Role
		var buf bytes.Buffer
		var err error
		if level := viewLevel(role); level >= access.GM {
			err = l.session().Export(r.Context(), &buf, format)
		} else {
			err = l.playerTranscript(r.Context(), &buf, format, l.viewerOf(u))
		}
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		name := fmt.Sprintf("hearth-%s-%s.%s", l.id, l.session().Branch(), ext)
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		w.WriteHeader(http.StatusOK)
		w.Write(buf.Bytes()) //nolint:errcheck // the client left
	})
}
