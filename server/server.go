package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Defaults for Options left zero.
const (
	DefaultMaxBody   = 1 << 20
	DefaultMaxUpload = 100 << 20
)

// Options configure a Server. Assistant, Index and Library are required;
// the rest is optional.
type Options struct {
	Version   string
	Assistant *assistant.Assistant
	Index     retrieve.Index
	Library   *library.Library

	// Extractors read uploaded files; WorkDir holds ingest checkpoints and
	// uploads in progress. Without Extractors uploads are refused.
	Extractors *ingest.Registry
	WorkDir    string
	Checker    pipeline.Checker
	// BeforeStage, a test hook, runs as each stage of an upload's ingest
	// starts; an error fails the job.
	BeforeStage func(ctx context.Context, job, stage string) error
	// Claims shares the ingest jobs with other servers on the same
	// database (they must share WorkDir too): a job runs where its claim
	// is held, and one whose server stopped renewing it is taken up by
	// another within ClaimPoll (default 2s). Nil runs every job here.
	Claims    Claims
	ClaimPoll time.Duration
	// Chats forwards a chat's tool result, continue or cancel that
	// reaches this server to the one sharing the database that runs the
	// chat, and answers those forwarded here. Nil: every chat is here.
	Chats ChatRelay
	// KeepAlive is how often a chat's stream gets a comment line, which
	// keeps proxies from closing a stream that waits on a slow model or a
	// client's tool; 15 s if zero.
	KeepAlive time.Duration

	// Authenticate wraps every route but /health and /metrics; it puts
	// the caller's auth.User on the request context or answers 401/429
	// itself.
	Authenticate func(http.Handler) http.Handler
	// AuthenticateAt replaces Authenticate for requests to the exact paths
	// it names, so that a route can have a rate budget of its own: MCP
	// clients and tool results make many small requests that must not
	// spend the chat budget. Each must authenticate as Authenticate does.
	AuthenticateAt map[string]func(http.Handler) http.Handler
	// ModelLimit is the per-key budget of the routes that make a model
	// work (chat, continue, search, uploads, new characters, and
	// ModelRoutes), spent on top of Authenticate's: a browser page makes
	// many cheap requests a view, a model call costs money and time.
	// Nil: no such budget.
	ModelLimit *auth.Limiter
	// ModelRoutes are patterns of mounted routes, exactly as Mount
	// registers them, that spend ModelLimit. New fails on one that is not
	// registered, so a renamed route cannot slip out of the budget.
	ModelRoutes []string

	// Characters is the character library; without it the character
	// routes answer 503. Storyteller writes a new character's backstory;
	// nil means chargen.Templates (offline).
	Characters  chargen.Store
	Storyteller chargen.Storyteller
	// Sessions, when set, serves browser sign-in (POST, GET and DELETE
	// /api/session) and WebSocket tickets (POST /api/ws-ticket), and every
	// state-changing request made with the session cookie must carry its
	// CSRF token. Authenticate must then accept the cookie and tickets too
	// (Auth with the same Sessions).
	Sessions *auth.Sessions

	// Users, when set, serves the GM's user and key routes (/api/users,
	// /api/keys); without it they answer 503.
	Users Users
	// ModelRoles are the configured model of each role, which GET
	// /api/models/roles shows the GM.
	ModelRoles []ModelRole

	// Mount adds routes of other doors (the game API, MCP) to the
	// authenticated mux.
	Mount func(mux *http.ServeMux)
	// Public adds routes that need no key, such as the web UI's shell and
	// assets (which hold no data), beside /health.
	Public func(mux *http.ServeMux)

	Catalog        *i18n.Catalog
	CORSOrigins    []string
	MaxBodyBytes   int64
	MaxUploadBytes int64
	// PublicURL is the base URL clients reach the server at; when set,
	// links the API hands out (image data) are absolute on it.
	PublicURL string
	// AssetsPath is the Foundry VTT assets directory for direct image
	// delivery; empty means shuttle mode.
	AssetsPath string
	// TrustedProxies are the CIDRs (or addresses) of reverse proxies whose
	// X-Forwarded-For names the client, for the wrong-secret throttle.
	TrustedProxies []string

	// Database, when set, is reported by /health: its backend, and
	// whether it answers (503 when not, so a load balancer stops sending).
	Database Database

	Metrics *Metrics
	Logger  *slog.Logger
	Now     func() time.Time
}

// Database is the storage as /health sees it.
type Database interface {
	Backend() string // "sqlite" or "postgres"
	Ping(ctx context.Context) error
}

// DatabasePool is a Database with a connection pool (PostgreSQL), whose
// state /health and the metrics report: connection counts and
// acquisitions by name (total_conns, idle_conns, acquired_conns,
// max_conns, acquire_count, acquire_duration_seconds, …); nil when
// there is no pool.
type DatabasePool interface {
	PoolStats() map[string]float64
}

// healthPing bounds /health's database check, so a load balancer's probe
// gets its 503 while a server that vanished is still being dialled.
const healthPing = 5 * time.Second

// Server is the HTTP API.
type Server struct {
	o       Options
	log     *slog.Logger
	metrics *Metrics
	start   time.Time
	jobs    *jobs
	proxies []netip.Prefix
	handler http.Handler
	// modelTests holds the one connection test that may run at a time.
	modelTests chan struct{}
	root       *http.ServeMux
	mux        *http.ServeMux
	model      map[string]bool // patterns that spend ModelLimit
}

// modelRoutes are the server's own routes that make a model work: the
// assistant's runs, query embeddings, ingest (embeddings, image
// descriptions) and character backstories.
var modelRoutes = []string{
	"POST /api/chat",
	"POST /api/chat/continue",
	"POST /api/search",
	"POST /api/documents",
	"POST /api/characters",
	"POST /api/models/test",
}

// New builds a server.
func New(o Options) (*Server, error) {
	if o.Assistant == nil || o.Index == nil || o.Library == nil {
		return nil, errors.New("server: Assistant, Index and Library are required")
	}
	if o.Authenticate == nil {
		return nil, errors.New("server: Authenticate is required; every API route needs a user")
	}
	for path, a := range o.AuthenticateAt {
		if a == nil {
			return nil, fmt.Errorf("server: AuthenticateAt[%q] is nil; every API route needs a user", path)
		}
	}
	if o.Catalog == nil {
		c, err := i18n.Load()
		if err != nil {
			return nil, err
		}
		o.Catalog = c
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBody
	}
	if o.MaxUploadBytes <= 0 {
		o.MaxUploadBytes = DefaultMaxUpload
	}
	if o.Version == "" {
		o.Version = hearth.Version().String()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = keepAlive
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics(o.Assistant.ActiveCount, nil)
	}
	proxies, err := parseProxies(o.TrustedProxies)
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, log: o.Logger, metrics: o.Metrics, start: o.Now(), proxies: proxies}
	s.jobs = newJobs()
	s.modelTests = make(chan struct{}, 1)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/models", s.models)
	mux.HandleFunc("GET /api/models/roles", s.modelRoles)
	mux.HandleFunc("POST /api/models/test", s.modelTest)
	mux.HandleFunc("GET /api/users", s.listUsers)
	mux.HandleFunc("POST /api/users", s.createUser)
	mux.HandleFunc("POST /api/users/{name}/keys", s.createKey)
	mux.HandleFunc("DELETE /api/keys/{id}", s.revokeKey)
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/tool_result", s.toolResult)
	mux.HandleFunc("POST /api/chat/continue", s.continueChat)
	mux.HandleFunc("GET /api/conversations", s.listConversations)
	mux.HandleFunc("GET /api/conversations/{id}", s.getConversation)
	mux.HandleFunc("DELETE /api/conversations/{id}", s.deleteConversation)
	mux.HandleFunc("POST /api/search", s.search)
	mux.HandleFunc("POST /api/documents", s.uploadDocument)
	mux.HandleFunc("GET /api/documents", s.listDocuments)
	mux.HandleFunc("GET /api/documents/{id}", s.getDocument)
	mux.HandleFunc("PATCH /api/documents/{id}", s.patchDocument)
	mux.HandleFunc("DELETE /api/documents/{id}", s.deleteDocument)
	mux.HandleFunc("GET /api/documents/{id}/pages/{page}", s.getPage)
	mux.HandleFunc("GET /api/images", s.listImages)
	mux.HandleFunc("GET /api/images/{id}", s.getImage)
	mux.HandleFunc("GET /api/images/{id}/data", s.imageData)
	mux.HandleFunc("POST /api/images/{id}/deliver", s.deliverImage)
	mux.HandleFunc("GET /api/characters/options", s.characterOptions)
	mux.HandleFunc("POST /api/characters", s.createCharacter)
	mux.HandleFunc("POST /api/characters/preview", s.previewCharacter)
	mux.HandleFunc("GET /api/characters", s.listCharacters)
	mux.HandleFunc("GET /api/characters/{id}", s.getCharacter)
	mux.HandleFunc("DELETE /api/characters/{id}", s.deleteCharacter)
	mux.HandleFunc("GET /api/session", s.getSession)
	mux.HandleFunc("DELETE /api/session", s.signOut)
	mux.HandleFunc("POST /api/ws-ticket", s.wsTicket)
	mux.HandleFunc("/api/", s.notFound)
	if o.Mount != nil {
		o.Mount(mux)
	}
	s.model = map[string]bool{}
	for _, p := range append(slices.Clone(modelRoutes), o.ModelRoutes...) {
		if !registered(mux, p) {
			return nil, fmt.Errorf("server: model route %q is not registered", p)
		}
		s.model[p] = true
	}

	root := http.NewServeMux()
	root.HandleFunc("GET /health", s.health)
	root.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	// Signing in is what a browser does before it has anything to
	// authenticate with.
	root.HandleFunc("POST /api/session", s.signIn)
	if o.Public != nil {
		o.Public(root)
	}
	root.Handle("/", authenticate(o, s.csrf(s.meter(mux))))
	s.root, s.mux = root, mux
	s.serveRelay()
	s.handler = s.scheme(s.clientAddress(s.observe(i18n.Middleware(o.Catalog)(s.cors(root)))))
	return s, nil
}

// authenticate wraps mux in Authenticate, or in AuthenticateAt's entry
// for the request's path. Every path goes through one of them.
func authenticate(o Options, mux http.Handler) http.Handler {
	all := o.Authenticate(mux)
	if len(o.AuthenticateAt) == 0 {
		return all
	}
	at := make(map[string]http.Handler, len(o.AuthenticateAt))
	for path, a := range o.AuthenticateAt {
		at[path] = a(mux)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := at[r.URL.Path]; ok {
			h.ServeHTTP(w, r)
			return
		}
		all.ServeHTTP(w, r)
	})
}

// meter spends the caller's model budget on the routes in s.model; it
// runs after authentication (the budget is the key's) and the CSRF check
// (a forged request spends nothing).
func (s *Server) meter(mux *http.ServeMux) http.Handler {
	if s.o.ModelLimit == nil {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p := mux.Handler(r); s.model[p] {
			if ok, wait := s.o.ModelLimit.Allow(budgetFrom(r.Context())); !ok {
				tooMany(w, r, "auth.rate_limited", wait)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// registered reports whether pattern is one mux has: a request made from
// it, wildcards filled in, is routed to exactly that pattern.
func registered(mux *http.ServeMux, pattern string) bool {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = http.MethodGet, pattern
	}
	path = wildcard.ReplaceAllString(path, "x")
	r, err := http.NewRequest(method, path, nil)
	if err != nil {
		return false
	}
	_, p := mux.Handler(r)
	return p == pattern
}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Shutdown cancels the active chats and ingests and waits for them to save
// what they have, until ctx ends. The ingests resume at the next start
// (Resume).
func (s *Server) Shutdown(ctx context.Context) error {
	s.jobs.stopScan()
	s.jobs.cancelAll(errShutdown)
	err := s.o.Assistant.Shutdown(ctx)
	return errors.Join(err, s.jobs.wait(ctx))
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	body := map[string]any{
		"status": "healthy", "version": s.o.Version, "build": hearth.Version(),
		"uptime_seconds": int64(s.o.Now().Sub(s.start).Seconds()),
	}
	code := http.StatusOK
	if db := s.o.Database; db != nil {
		st := map[string]any{"backend": db.Backend(), "ok": true}
		if p, ok := db.(DatabasePool); ok {
			if ps := p.PoolStats(); ps != nil {
				pool := map[string]any{}
				for k, v := range ps {
					if k == "acquire_duration_seconds" {
						pool[k] = v
					} else {
						pool[k] = int64(v)
					}
				}
				st["pool"] = pool
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), healthPing)
		defer cancel()
		if err := db.Ping(ctx); err != nil {
			// The cause goes to the log: it names the database's host.
			s.log.Warn("health: the database does not answer", "backend", db.Backend(), "err", err)
			st["ok"], body["status"], code = false, "unhealthy", http.StatusServiceUnavailable
		}
		body["database"] = st
	}
	api.JSON(w, code, body)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	api.Error(w, r, api.NotFound, "api.no_route", map[string]any{"Method": r.Method, "Path": r.URL.Path})
}

// endpoint names the route a request matches, for metrics: the pattern,
// never the raw path, so label values stay few.
func (s *Server) endpoint(r *http.Request) string {
	_, p := s.root.Handler(r)
	if p == "/" {
		_, p = s.mux.Handler(r)
	}
	if p == "" {
		return "unmatched"
	}
	return p
}
