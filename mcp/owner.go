package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/auth"
)

// The HTTP transports name a session by an id the client sends back on
// every request (the Mcp-Session-Id header, the sessionid query
// parameter), and the SDK hands any request carrying it to the session,
// whose tools then run as the user who opened it. Anyone who learns an id
// would act as its owner, so each session is bound to the user who opened
// it and the handlers refuse it to everyone else.

// sessionHeader is the streamable transport's session id header.
const sessionHeader = "Mcp-Session-Id"

// owners remembers, by session id, the user that opened each HTTP session.
// A session opened without a user (no auth middleware) belongs to "".
type owners struct {
	mu   sync.Mutex
	byID map[string]string
}

func newOwners() *owners { return &owners{byID: map[string]string{}} }

func (o *owners) set(id, user string) {
	o.mu.Lock()
	o.byID[id] = user
	o.mu.Unlock()
}

func (o *owners) drop(id string) {
	o.mu.Lock()
	delete(o.byID, id)
	o.mu.Unlock()
}

// owner returns the user that opened session id, if it is known.
func (o *owners) owner(id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	u, ok := o.byID[id]
	return u, ok
}

// keep drops the sessions live does not report, which the SDK closed on
// its own (idle timeout, failed initialize). The lock is held while live
// runs, so a session recorded before is already among them.
func (o *owners) keep(live func() []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := live()
	for id := range o.byID {
		if !slices.Contains(ids, id) {
			delete(o.byID, id)
		}
	}
}

func userID(ctx context.Context) string {
	u, _ := auth.UserFrom(ctx)
	return u.ID
}

// admit reports whether the request's user may use session id, answering
// the request itself when not: 404 for a session it does not know (closed,
// or never opened through this handler), 403 for another user's. The log
// names the user and never the id, which is as good as a password.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, o *owners, id, transport string) bool {
	owner, ok := o.owner(id)
	if !ok {
		http.Error(w, "session not found", http.StatusNotFound)
		return false
	}
	if user := userID(r.Context()); owner != user {
		s.log.WarnContext(r.Context(), "mcp session refused: it was opened by another user",
			"transport", transport, "user", user, "remote", r.RemoteAddr)
		http.Error(w, "this session belongs to another user; open your own with initialize", http.StatusForbidden)
		return false
	}
	return true
}

// bindStreamable wraps the streamable HTTP handler: a request naming a
// session must come from its owner, and the session a request opens is
// bound to its user.
func (s *Server) bindStreamable(next http.Handler) http.Handler {
	o := newOwners()
	live := func() []string {
		var ids []string
		for ss := range s.srv.Sessions() {
			if id := ss.ID(); id != "" {
				ids = append(ids, id)
			}
		}
		return ids
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionHeader); id != "" {
			if !s.admit(w, r, o, id, "streamable-http") {
				return
			}
			sw := &statusWriter{ResponseWriter: w}
			next.ServeHTTP(sw, r)
			if sw.code == http.StatusNotFound || r.Method == http.MethodDelete && sw.code < 300 {
				o.drop(id) // closed
			}
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r) // the SDK refuses it: no session
			return
		}
		o.keep(live)
		// The SDK names the new session in the response header; it is
		// recorded before the client can see it.
		user := userID(r.Context())
		next.ServeHTTP(&statusWriter{ResponseWriter: w, onHeader: func(h http.Header) {
			if id := h.Get(sessionHeader); id != "" {
				o.set(id, user)
			}
		}}, r)
	})
}

// sseEndpoint finds the session id in the SDK's first event on a new SSE
// stream, "event: endpoint\ndata: /mcp/sse?sessionid=ID".
var sseEndpoint = regexp.MustCompile(`(?m)^data: (\S*)$`)

// bindSSE wraps the HTTP+SSE handler. The SDK makes up the session id when
// the GET opens the stream and tells the client in the stream's first
// event; the id is read there, bound to the GET's user until the stream
// ends, and every POST to it must come from that user. An id that cannot
// be read is never bound, so its POSTs are refused: the failure is closed.
func (s *Server) bindSSE(next http.Handler) http.Handler {
	o := newOwners()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			if id := r.URL.Query().Get("sessionid"); id != "" && !s.admit(w, r, o, id, "sse") {
				return
			}
			next.ServeHTTP(w, r)
		case http.MethodGet:
			user := userID(r.Context())
			var id string
			sw := &statusWriter{ResponseWriter: w, onWrite: func(b []byte) {
				if id != "" {
					return
				}
				m := sseEndpoint.FindSubmatch(b)
				if m == nil {
					return
				}
				if u, err := url.Parse(string(m[1])); err == nil {
					id = u.Query().Get("sessionid")
				}
				if id != "" {
					o.set(id, user)
				} else {
					s.log.ErrorContext(r.Context(), "mcp sse: no session id in the endpoint event; the session cannot be used")
				}
			}}
			defer func() {
				if id != "" {
					o.drop(id)
				}
			}()
			next.ServeHTTP(sw, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// statusWriter records the status code and lets the binders see the
// response header and body before they leave. Flush and the rest pass
// through Unwrap, so streams still stream.
type statusWriter struct {
	http.ResponseWriter
	code     int
	onHeader func(http.Header)
	onWrite  func([]byte)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		if w.onHeader != nil {
			w.onHeader(w.Header())
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.onWrite != nil {
		w.onWrite(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets the SDK, which may check for http.Flusher directly, stream.
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// quietIDs drops session ids from the SDK's log records: an id lets its
// holder into the session, so it does not belong in logs.
type quietIDs struct{ slog.Handler }

func isSessionID(a slog.Attr) bool { return a.Key == "session_id" || a.Key == "sessionid" }

func (h quietIDs) Handle(ctx context.Context, r slog.Record) error {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = isSessionID(a)
		return !found
	})
	if found {
		clean := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool {
			if !isSessionID(a) {
				clean.AddAttrs(a)
			}
			return true
		})
		r = clean
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietIDs) WithAttrs(as []slog.Attr) slog.Handler {
	return quietIDs{h.Handler.WithAttrs(slices.DeleteFunc(slices.Clone(as), isSessionID))}
}

func (h quietIDs) WithGroup(name string) slog.Handler { return quietIDs{h.Handler.WithGroup(name)} }
