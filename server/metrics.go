package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/hearth-rpg/hearth/llm"
)

// Metrics are the server's Prometheus metrics, on a registry of their own
// (no global state: two servers in one process do not mix counts).
type Metrics struct {
	Registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	llmTime   *prometheus.HistogramVec
	llmFirst  *prometheus.HistogramVec
	llmTokens *prometheus.CounterVec
	llmErrors *prometheus.CounterVec
	toolCalls *prometheus.CounterVec
}

// NewMetrics registers the metrics. activeChats and activeGames report the
// current number of chats and live game sessions (either may be nil).
func NewMetrics(activeChats, activeGames func() int) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_http_requests_total", Help: "HTTP requests by endpoint, method and status code.",
		}, []string{"endpoint", "method", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hearth_http_request_duration_seconds", Help: "HTTP request durations by endpoint (streams: until the stream ends).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"endpoint"}),
		llmTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hearth_llm_request_duration_seconds", Help: "Model call durations by provider, model and operation.",
			Buckets: prometheus.ExponentialBuckets(0.01, 3, 10),
		}, []string{"provider", "model", "op"}),
		llmFirst: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hearth_llm_first_token_seconds", Help: "Time to a streamed call's first chunk.",
			Buckets: prometheus.ExponentialBuckets(0.01, 3, 10),
		}, []string{"provider", "model"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_llm_tokens_total", Help: "Tokens by provider, model and kind (prompt, completion, cached).",
		}, []string{"provider", "model", "kind"}),
		llmErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_llm_errors_total", Help: "Failed model calls by provider and model.",
		}, []string{"provider", "model"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_tool_calls_total", Help: "Assistant tool calls by tool and where they ran (internal, external).",
		}, []string{"tool", "where"}),
	}
	m.Registry.MustRegister(m.requests, m.durations, m.llmTime, m.llmFirst, m.llmTokens, m.llmErrors, m.toolCalls,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if activeChats != nil {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hearth_active_chats", Help: "Assistant requests in progress.",
		}, func() float64 { return float64(activeChats()) }))
	}
	if activeGames != nil {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hearth_active_sessions", Help: "Game sessions with connected clients or a running autopilot.",
		}, func() float64 { return float64(activeGames()) }))
	}
	return m
}

// ObserveDatabase reports the database: hearth_database_info with its
// backend, and for a pooled one (PostgreSQL) the pool's connections
// (total, idle, in use, ceiling) and acquisitions (count, total wait,
// ones that found no idle connection, ones cancelled), read when scraped.
func (m *Metrics) ObserveDatabase(db Database) {
	if db == nil {
		return
	}
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hearth_database_info", Help: "The database backend (always 1).",
		ConstLabels: prometheus.Labels{"backend": db.Backend()},
	}, func() float64 { return 1 }))
	p, ok := db.(DatabasePool)
	if !ok || p.PoolStats() == nil {
		return
	}
	stat := func(k string) func() float64 { return func() float64 { return p.PoolStats()[k] } }
	for _, g := range []struct{ key, help string }{
		{"total_conns", "PostgreSQL pool connections open."},
		{"idle_conns", "PostgreSQL pool connections idle."},
		{"acquired_conns", "PostgreSQL pool connections in use."},
		{"max_conns", "PostgreSQL pool size limit."},
	} {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hearth_db_pool_" + g.key, Help: g.help}, stat(g.key)))
	}
	for _, c := range []struct{ key, name, help string }{
		{"acquire_count", "acquires_total", "PostgreSQL pool connection acquisitions."},
		{"acquire_duration_seconds", "acquire_seconds_total", "Time spent acquiring PostgreSQL pool connections."},
		{"empty_acquire_count", "empty_acquires_total", "Acquisitions that waited because no connection was idle."},
		{"canceled_acquire_count", "canceled_acquires_total", "Acquisitions cancelled before a connection came."},
	} {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "hearth_db_pool_" + c.name, Help: c.help}, stat(c.key)))
	}
}

// ObserveLLM records one model call; give it to llm.WithObserver.
func (m *Metrics) ObserveLLM(c llm.Call) {
	m.llmTime.WithLabelValues(c.Provider, c.Model, c.Op).Observe(c.Duration.Seconds())
	if c.FirstChunk > 0 {
		m.llmFirst.WithLabelValues(c.Provider, c.Model).Observe(c.FirstChunk.Seconds())
	}
	if c.Err != nil {
		m.llmErrors.WithLabelValues(c.Provider, c.Model).Inc()
	}
	m.llmTokens.WithLabelValues(c.Provider, c.Model, "prompt").Add(float64(c.Usage.PromptTokens))
	m.llmTokens.WithLabelValues(c.Provider, c.Model, "completion").Add(float64(c.Usage.CompletionTokens))
	if c.Usage.CachedTokens > 0 {
		m.llmTokens.WithLabelValues(c.Provider, c.Model, "cached").Add(float64(c.Usage.CachedTokens))
	}
}

func (m *Metrics) observeRequest(endpoint, method string, code int, d time.Duration) {
	m.requests.WithLabelValues(endpoint, method, strconv.Itoa(code)).Inc()
	m.durations.WithLabelValues(endpoint).Observe(d.Seconds())
}

func (m *Metrics) toolCall(tool, where string) {
	m.toolCalls.WithLabelValues(tool, where).Inc()
}
