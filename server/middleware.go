package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"time"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/api"
)

// RequestID returns the id of the request ctx belongs to.
func RequestID(ctx context.Context) string { return api.RequestID(ctx) }

// LogHandler wraps a slog handler so every record logged with a request's
// context carries its request_id.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(as)}
}
func (h logHandler) WithGroup(name string) slog.Handler { return logHandler{h.Handler.WithGroup(name)} }

// validRequestID accepts a client's id only if it is short and plain, so
// logs cannot be forged through it.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusWriter remembers the status code. It passes Flush and the rest
// through Unwrap, so http.ResponseController works for streams.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets libraries that check for http.Flusher directly stream too.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// observe is the outermost middleware: request id, recovery, access log
// and metrics.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-ID")
		if !validRequestID(id) {
			id = rand.Text()[:16]
		}
		w.Header().Set("X-Request-ID", id)
		ctx := api.WithRequestID(r.Context(), id)
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(ctx, "handler panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.code == 0 {
					api.InternalError(sw, r)
				}
			}
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			d := time.Since(start)
			s.metrics.observeRequest(s.endpoint(r), r.Method, code, d)
			attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", code), slog.Duration("duration", d), slog.String("remote", r.RemoteAddr)}
			if c := auth.ClientFrom(ctx); c != "" { // behind a trusted proxy
				attrs = append(attrs, slog.String("client", c))
			}
			s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// cors answers preflight requests and marks responses for the configured
// origins (the Foundry VTT origin). Preflights carry no credentials, so
// this runs before authentication.
func (s *Server) cors(next http.Handler) http.Handler {
	if len(s.o.CORSOrigins) == 0 {
		return next
	}
	any := slices.Contains(s.o.CORSOrigins, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (any || slices.Contains(s.o.CORSOrigins, origin)) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "X-Conversation-ID, X-Request-ID, Retry-After, Content-Language")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept-Language, X-Request-ID, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
