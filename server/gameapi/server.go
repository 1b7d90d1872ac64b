package gameapi

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"path"
	"regexp"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/store"
)

// ErrUnknownCampaign is what Options.Campaign wraps when no campaign or pack
// has the name asked for (a 404, not a broken campaign).
var ErrUnknownCampaign = &hearth.Error{Code: hearth.NotFound, Message: "unknown campaign"}

// DefaultSpeeds are the autopilot's pauses between turns.
var DefaultSpeeds = map[string]time.Duration{"slow": 8 * time.Second, "normal": 3 * time.Second, "fast": time.Second}

// DefaultSpeed is the autopilot's speed until one is chosen.
const DefaultSpeed = "normal"

// Options configure a Server. Store is required.
type Options struct {
	Store store.Store
	// Campaign resolves a campaign or pack name to a loaded campaign,
	// wrapping ErrUnknownCampaign when there is none. Nil serves the
	// campaigns built into the binary, by directory name ("saltmere").
	Campaign func(ctx context.Context, name string) (*campaign.Campaign, error)
	// Campaigns names the campaigns Campaign can load, for GET
	// /api/campaigns. Nil lists the campaigns built into the binary.
	Campaigns func(ctx context.Context) ([]string, error)
	// CampaignFiles opens a campaign's files, for serving its assets
	// (wrapping ErrUnknownCampaign when there is none); an io.Closer is
	// closed after use. Nil serves the campaigns built into the binary.
	CampaignFiles func(ctx context.Context, name string) (fs.FS, error)
	// Prepare attaches lore, a pipeline, memories … to a session when it
	// is opened for play. Nil plays with the offline game master.
	Prepare func(ctx context.Context, s *game.Session) error
	// Speeds are the autopilot's speeds; they replace DefaultSpeeds' entries
	// of the same name and may add more.
	Speeds map[string]time.Duration
	Logger *slog.Logger

	// SendQueue is how many messages wait for a slow client before it is
	// disconnected (default 256).
	SendQueue int
	// PingInterval is how often a connection is pinged (default 30s);
	// WriteTimeout bounds each write and ping (default 10s).
	PingInterval, WriteTimeout time.Duration
	// TurnTimeout bounds one turn (default 5 minutes).
	TurnTimeout time.Duration
	// Linger keeps a session open this long after its last client, request
	// or turn (default 30s; negative closes it at once), so that requests
	// in a row do not reopen it each time.
	Linger time.Duration
	// Images draws scene illustrations; nil answers the generate routes
	// with 503 "image generation is off". ImageStore keeps them with the
	// game; nil turns every image route off. ImageSize is the size asked
	// for ("1024x1024"; empty: the provider's default).
	Images     imagegen.Provider
	ImageStore imagegen.Store
	ImageSize  string

	// Characters is the character library a new game's party may be
	// drawn from (CreateRequest.Party); nil refuses such a party. Users
	// names the users a human controller may name; nil takes any name.
	// Models lists the models a party member's agent may play with and
	// the provider they are reached through; nil knows only the offline
	// agent.
	Characters chargen.Store
	Users      func(ctx context.Context) ([]string, error)
	Models     func(ctx context.Context) (provider string, models []string, err error)

	// OriginPatterns are other origins allowed to open the WebSocket, as
	// websocket.AcceptOptions takes them; the same origin always may.
	OriginPatterns []string

	// Cluster shares the games with other servers on the same database;
	// nil is Solo, a server alone. LeasePoll is how often a server looks
	// for games whose owner stopped (default 2s); it must be well under
	// the cluster's lease time.
	Cluster   Cluster
	LeasePoll time.Duration
}

// Server serves the live game API. Create it with New, mount it with
// Register, and stop it with Close.
type Server struct {
	o      Options
	log    *slog.Logger
	speeds map[string]time.Duration

	base   context.Context // turns run in it, not in a request's
	cancel context.CancelFunc

	mu      sync.Mutex
	closing bool
	live    map[string]*live
	imaging map[string]bool // games with an image being generated

	work  sync.WaitGroup // session workers, each finishing its turn
	conns sync.WaitGroup // client writers

	cluster Cluster
	shared  bool           // Options.Cluster was given: other servers may own games
	mux     *http.ServeMux // the routes, unwrapped, for requests other servers forward
	catOnce sync.Once
	cat     *i18n.Catalog
}

// New returns a server over o.Store.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Campaign == nil {
		o.Campaign = bundledCampaign
	}
	if o.Campaigns == nil {
		o.Campaigns = bundledCampaigns
	}
	if o.CampaignFiles == nil {
		o.CampaignFiles = bundledCampaignFiles
	}
	if o.SendQueue <= 0 {
		o.SendQueue = 256
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.TurnTimeout <= 0 {
		o.TurnTimeout = 5 * time.Minute
	}
	if o.Linger == 0 {
		o.Linger = 30 * time.Second
	}
	speeds := maps.Clone(DefaultSpeeds)
	for k, d := range o.Speeds {
		if d > 0 {
			speeds[k] = d
		}
	}
	if o.LeasePoll <= 0 {
		o.LeasePoll = 2 * time.Second
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{o: o, log: o.Logger, speeds: speeds, base: base, cancel: cancel,
		live: map[string]*live{}, imaging: map[string]bool{}, cluster: o.Cluster, shared: o.Cluster != nil, mux: http.NewServeMux()}
	s.register(s.mux, func(h http.HandlerFunc) http.HandlerFunc { return h })
	if !s.shared {
		s.cluster = Solo{}
	} else {
		s.cluster.Serve(s.onEvent, s.onCall, s.owns, s.follows)
		go s.coordinate()
	}
	return s
}

var campaignName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func bundledCampaign(ctx context.Context, name string) (*campaign.Campaign, error) {
	if !campaignName.MatchString(name) {
		return nil, fmt.Errorf("campaign %q: %w", name, ErrUnknownCampaign)
	}
	dir := path.Join("campaigns", name)
	if _, err := fs.Stat(hearth.Campaigns, dir); err != nil {
		return nil, fmt.Errorf("campaign %q: %w", name, ErrUnknownCampaign)
	}
	return campaign.LoadFS(ctx, hearth.Campaigns, dir)
}

// ModelRoutes are the routes Register mounts that make a model work (the
// image generator), for a caller that budgets them apart; game turns
// call the model over the WebSocket.
var ModelRoutes = []string{
	"POST /api/sessions/{id}/images/generate-current",
	"POST /api/sessions/{id}/images/generate-best",
	"POST /api/sessions/{id}/images/generate-turn/{turn}",
}

// Register mounts the REST API under /api/sessions (and the campaigns
// games are made from at /api/campaigns) and the WebSocket at
// /ws/game/{session_id}. The caller wraps mux in auth middleware that puts
// an auth.User on every request's context.
func (s *Server) Register(mux *http.ServeMux) { s.register(mux, s.routed) }

// register mounts the routes on mux, each handler wrapped (routed for
// the caller's mux, as it is for the mux forwarded requests are served
// by).
func (s *Server) register(mux *http.ServeMux, wrap func(http.HandlerFunc) http.HandlerFunc) {
	mux.HandleFunc("GET /api/campaigns", wrap(s.listCampaigns))
	mux.HandleFunc("GET /api/campaigns/{name}/assets/{path...}", wrap(s.campaignAsset))
	mux.HandleFunc("GET /api/sessions", wrap(s.listSessions))
	mux.HandleFunc("POST /api/sessions", wrap(s.createSession))
	mux.HandleFunc("GET /api/sessions/{id}", wrap(s.getSession))
	mux.HandleFunc("DELETE /api/sessions/{id}", wrap(s.deleteSession))
	mux.HandleFunc("GET /api/sessions/{id}/config", wrap(s.getConfig))
	mux.HandleFunc("PUT /api/sessions/{id}/config", wrap(s.putConfig))
	mux.HandleFunc("GET /api/sessions/{id}/turns", wrap(s.turns))
	mux.HandleFunc("POST /api/sessions/{id}/turns/{n}/flag", wrap(s.flagTurn))
	mux.HandleFunc("POST /api/sessions/{id}/restore", wrap(s.restore))
	mux.HandleFunc("GET /api/sessions/{id}/forks", wrap(s.forks))
	mux.HandleFunc("POST /api/sessions/{id}/forks", wrap(s.fork))
	mux.HandleFunc("POST /api/sessions/{id}/forks/{name}/switch", wrap(s.switchFork))
	mux.HandleFunc("PUT /api/sessions/{id}/forks/{name}", wrap(s.updateFork))
	mux.HandleFunc("GET /api/sessions/{id}/compare", wrap(s.compare))
	mux.HandleFunc("GET /api/sessions/{id}/transcript", wrap(s.transcript))
	mux.HandleFunc("GET /api/sessions/{id}/callbacks", wrap(s.callbacks))
	mux.HandleFunc("GET /api/sessions/{id}/modules", wrap(s.listModules))
	mux.HandleFunc("POST /api/sessions/{id}/module", wrap(s.chooseModule))
	mux.HandleFunc("PUT /api/sessions/{id}/party/{character}/controller", wrap(s.putController))
	mux.HandleFunc("POST /api/sessions/{id}/images/generate-current", wrap(s.generateCurrent))
	mux.HandleFunc("POST /api/sessions/{id}/images/generate-best", wrap(s.generateBest))
	mux.HandleFunc("POST /api/sessions/{id}/images/generate-turn/{turn}", wrap(s.generateTurn))
	mux.HandleFunc("GET /api/sessions/{id}/images", wrap(s.images))
	mux.HandleFunc("GET /api/sessions/{id}/images/{image_id}/download", wrap(s.downloadImage))
	mux.HandleFunc("GET /api/sessions/{id}/images/download-all", wrap(s.downloadAll))
	mux.HandleFunc("GET /api/sessions/images/summary", wrap(s.imageSummary))
	mux.HandleFunc("GET /ws/game/{session_id}", wrap(s.socket))
}

// Close stops every autopilot, lets turns in flight finish until ctx ends
// (then cancels them: a cancelled turn commits nothing, a committed one is
// kept), and disconnects every client. The server refuses work after.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	lives := make([]*live, 0, len(s.live))
	for _, l := range s.live {
		lives = append(lives, l)
	}
	s.mu.Unlock()
	for _, l := range lives {
		l.stopAutopilot(StoppedShutdown)
		l.quitNow()
	}
	var err error
	if !wait(ctx, &s.work) {
		err = fmt.Errorf("close the game API: turns still running: %w", ctx.Err())
		s.cancel()
		s.work.Wait() // cancelled turns return at once
	}
	s.cancel()
	for _, l := range lives {
		l.kickAll(websocketGoingAway, "server shutting down")
	}
	if !wait(ctx, &s.conns) && err == nil {
		err = fmt.Errorf("close the game API: connections still open: %w", ctx.Err())
	}
	return err
}

func wait(ctx context.Context, wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

var errClosing = &Problem{ID: "gameapi.shutting_down", Code: hearth.Unavailable}

// acquire returns the live session id, opening it from the store when no
// one has it open; release it when done.
func (s *Server) acquire(ctx context.Context, id string) (*live, error) {
	for {
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			return nil, errClosing
		}
		l := s.live[id]
		if l != nil && l.quitting {
			s.mu.Unlock()
			select { // the old one is going; wait and open anew
			case <-l.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if l != nil {
			l.refs++
			s.mu.Unlock()
			<-l.ready
			if l.err != nil || l.isDeleted() {
				s.release(l)
				if l.err != nil {
					return nil, l.err
				}
				return nil, fmt.Errorf("game %s: %w", id, store.ErrNotFound)
			}
			return l, nil
		}
		l = newLive(s, id)
		s.live[id] = l
		s.work.Add(1)
		s.mu.Unlock()
		l.err = l.open(s.base)
		close(l.ready)
		if l.err != nil {
			s.mu.Lock()
			delete(s.live, id)
			s.mu.Unlock()
			s.work.Done()
			close(l.done)
			return nil, l.err
		}
		go l.run()
		return l, nil
	}
}

// release drops a reference; after the last one the session lingers for
// Options.Linger, then unloads.
func (s *Server) release(l *live) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l.refs--
	if l.refs > 0 || l.quitting {
		return
	}
	if s.o.Linger < 0 {
		l.quitting = true
		close(l.quit)
		return
	}
	l.idle++
	idle := l.idle
	time.AfterFunc(s.o.Linger, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.refs == 0 && l.idle == idle && !l.quitting {
			l.quitting = true
			close(l.quit)
		}
	})
}

// speedPreference is the game preference the autopilot's speed is kept
// under, so a game resumes at the speed it was left at.
const speedPreference = "autopilot_speed"

// knownSpeed returns speed if it is one of the server's speeds (a stored
// one may have been removed from the configuration since), else
// DefaultSpeed.
func (s *Server) knownSpeed(speed string) string {
	if _, ok := s.speeds[speed]; ok {
		return speed
	}
	return DefaultSpeed
}

// viewLevel is the view a role gets: assistants see what the GM sees.
func viewLevel(role access.Level) access.Level {
	switch {
	case role >= access.Assistant:
		return access.GM
	case role >= access.Trusted:
		return access.Trusted
	}
	return access.Player
}

// user returns the caller, answering 401 or 403 itself when there is none
// or its role is below min.
func (s *Server) user(w http.ResponseWriter, r *http.Request, min access.Level) (auth.User, bool) {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		api.Error(w, r, api.Unauthorized, "gameapi.unauthenticated", nil)
		return u, false
	}
	if u.Role < min {
		api.Error(w, r, api.Forbidden, "gameapi.forbidden", map[string]any{"Role": u.Role.String(), "Need": min.String()})
		return u, false
	}
	return u, true
}
