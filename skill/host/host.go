package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Environment variables a granted script gets.
const (
	EnvAPI   = "HEARTH_SKILL_API"
	EnvToken = "HEARTH_SKILL_TOKEN"
)

// MaxBody bounds a request body.
const MaxBody = 64 << 10

// Memory is a recalled memory as skills see it.
type Memory struct {
	Turn      int     `json:"turn"`
	Summary   string  `json:"summary"`
	Kind      string  `json:"kind,omitempty"`
	Location  string  `json:"location,omitempty"`
	Relevance float64 `json:"relevance"`
}

// NewMemory is a memory a skill stores.
type NewMemory struct {
	Summary      string   `json:"summary"`
	Characters   []string `json:"characters,omitempty"`
	Significance int      `json:"significance"`
	Kind         string   `json:"kind,omitempty"`
}

// Store is what one grant reads and writes: one playthrough, as of its
// turn.
type Store interface {
	Recall(ctx context.Context, query string, limit int) ([]Memory, error)
	Remember(ctx context.Context, m NewMemory) error
	Reputation(faction string) (value int, ok bool)
	Perception(npc string) (value int, ok bool)
}

// Server serves the host API to granted scripts.
type Server struct {
	ln  net.Listener
	srv *http.Server
	url string

	mu     sync.Mutex
	grants map[string]grant
}

type grant struct {
	store   Store
	expires time.Time
}

// Start listens on a free port of 127.0.0.1.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the skill host API: %w", err)
	}
	s := &Server{ln: ln, url: "http://" + ln.Addr().String(), grants: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/memories/search", s.auth(s.search))
	mux.HandleFunc("POST /v1/memories", s.auth(s.remember))
	mux.HandleFunc("GET /v1/reputation/{faction}", s.auth(s.reputation))
	mux.HandleFunc("GET /v1/perception/{npc}", s.auth(s.perception))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the API's base URL.
func (s *Server) URL() string { return s.url }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Grant admits scripts to store for at most ttl, and returns the
// environment to give them and a function that revokes the grant.
func (s *Server) Grant(store Store, ttl time.Duration) (env []string, revoke func()) {
	var b [24]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	s.mu.Lock()
	s.grants[tok] = grant{store: store, expires: time.Now().Add(ttl)}
	s.mu.Unlock()
	return []string{EnvAPI + "=" + s.url, EnvToken + "=" + tok}, func() {
		s.mu.Lock()
		delete(s.grants, tok)
		s.mu.Unlock()
	}
}

type handler func(w http.ResponseWriter, r *http.Request, st Store)

func (s *Server) auth(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		g, found := s.grants[tok]
		s.mu.Unlock()
		if !ok || !found || time.Now().After(g.expires) {
			fail(w, http.StatusUnauthorized, "no valid token: scripts get one in "+EnvToken+" while their turn runs")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		h(w, r, g.store)
	}
}

func (s *Server) search(w http.ResponseWriter, r *http.Request, st Store) {
	var q struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if !decode(w, r, &q) {
		return
	}
	if q.Limit <= 0 || q.Limit > 50 {
		q.Limit = 5
	}
	ms, err := st.Recall(r.Context(), q.Query, q.Limit)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if ms == nil {
		ms = []Memory{}
	}
	reply(w, map[string]any{"memories": ms})
}

func (s *Server) remember(w http.ResponseWriter, r *http.Request, st Store) {
	var m NewMemory
	if !decode(w, r, &m) {
		return
	}
	if strings.TrimSpace(m.Summary) == "" {
		fail(w, http.StatusBadRequest, `a memory needs a "summary"`)
		return
	}
	if err := st.Remember(r.Context(), m); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	reply(w, map[string]any{"ok": true})
}

func (s *Server) reputation(w http.ResponseWriter, r *http.Request, st Store) {
	id := r.PathValue("faction")
	v, ok := st.Reputation(id)
	if !ok {
		fail(w, http.StatusNotFound, fmt.Sprintf("no faction %q", id))
		return
	}
	reply(w, map[string]any{"faction": id, "reputation": v, "tier": Tier(v)})
}

func (s *Server) perception(w http.ResponseWriter, r *http.Request, st Store) {
	id := r.PathValue("npc")
	v, ok := st.Perception(id)
	if !ok {
		fail(w, http.StatusNotFound, fmt.Sprintf("no character %q", id))
		return
	}
	reply(w, map[string]any{"npc": id, "perception": v, "tier": Tier(v)})
}

// Tier names an opinion from -100 to 100 (seed 001 §4.2.3).
func Tier(v int) string {
	switch {
	case v >= 90:
		return "devoted"
	case v >= 60:
		return "friendly"
	case v >= 30:
		return "warm"
	case v > -30:
		return "neutral"
	case v > -60:
		return "wary"
	case v > -90:
		return "hostile"
	}
	return "hated"
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", MaxBody))
	case err != nil && !errors.Is(err, io.EOF):
		fail(w, http.StatusBadRequest, "the body is not the JSON expected: "+err.Error())
	default:
		return true
	}
	return false
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
