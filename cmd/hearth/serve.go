package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/foundry"
	"github.com/hearth-rpg/hearth/mcp"
	"github.com/hearth-rpg/hearth/server"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/web"
)

type serveFlags struct {
	printConfig bool
	host        string
	port        int
	campaigns   string
}

func newServe(g *globals) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: g.t("cli.short.serve", nil),
		Long: `Serve Hearth to browsers, API clients and MCP clients:

  GET  /                                 Hearth in the browser: sign in, games, play (no key to load)
  GET  /health, /metrics                 no key needed
  GET  /foundry/module.json, .zip        the Foundry VTT module Hearth Seneschal: paste
                                         http://HOST:PORT/foundry/module.json into Foundry's
                                         Install Module (no key needed; its URLs use
                                         server.public_url, else the request's host)
  POST /api/chat                         the GM assistant, streamed as server-sent events
  POST /api/tool_result, /api/chat/continue
  GET|POST|PATCH|DELETE /api/documents   upload books (ingested in the background)
  POST /api/search                       search the books, as your role
  GET  /api/images[/ID[/data]], POST /api/images/ID/deliver
  GET  /api/campaigns                    campaigns games can be created from (assistant, GM)
  GET|POST /api/sessions ...             games: checkpoints, forks, transcripts
  WS   /ws/game/SESSION                  play a game live, several clients at once
  POST|GET|DELETE /api/session           sign a browser in with a key (session cookie), out
  POST /api/ws-ticket                    a single-use ticket for /ws/game/SESSION?ticket=T
  /mcp (streamable HTTP), /mcp/sse       the Model Context Protocol

Every /api, /ws and /mcp request needs "Authorization: Bearer KEY"; create a
user and key with 'hearth user add NAME --role gm'. A browser signs in once
with POST /api/session and then sends the session cookie instead; its
state-changing requests carry the X-CSRF-Token it was given. The key's user
decides what can be read; nothing in a request body raises it. Each key may
make limits.rate_limit_rpm requests a minute that make a model work (chat,
search, uploads, image generation) and limits.api_rpm requests of any kind.

Configuration: built-in defaults, then the configuration file (--config FILE,
else ~/.config/hearth/config.toml; TOML or YAML), then environment variables
named HEARTH__SECTION__KEY (HEARTH__SERVER__PORT=9000), then flags.
--print-config (or 'hearth config show') shows the result with secrets
masked. Without a model configured, the assistant answers offline by quoting
your books.`,
		Example: `  hearth user add gm --role gm          # prints an API key once
  hearth serve                          # http://127.0.0.1:8080
  hearth serve --host 0.0.0.0 --port 9000 --config /etc/hearth/config.toml
  hearth serve --print-config
  curl -H "Authorization: Bearer $KEY" localhost:8080/api/search -d '{"query":"grappling"}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd.Context(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.printConfig, "print-config", false, "print the effective configuration, secrets masked, and exit")
	fl.StringVar(&f.host, "host", "", "listen on this address (overrides server.host)")
	fl.IntVar(&f.port, "port", -1, "listen on this port, 0 for any free one (overrides server.port)")
	fl.StringVar(&f.campaigns, "campaigns", "", "directory of campaigns games can be created from, besides the bundled ones (default DATA/campaigns)")
	return cmd
}

func serve(ctx context.Context, g *globals, f *serveFlags) error {
	cfg, src, err := g.loadConfig()
	if err != nil {
		return err
	}
	if f.host != "" {
		cfg.Server.Host = f.host
		src.Set("server.host", "flag --host")
	}
	if f.port >= 0 {
		cfg.Server.Port = f.port
		src.Set("server.port", "flag --port")
	}
	if err := cfg.Validate(); err != nil {
		return usageError{g.fail("cli.serve.invalid_config", map[string]any{"Source": fmt.Sprint(*src)}, err)}
	}
	if f.printConfig {
		return cfg.Show(g.stdout, *src)
	}
	log := slog.New(server.LogHandler(cfg.Log.Handler(g.stderr)))
	slog.SetDefault(log)

	d, err := openDoors(ctx, g, log)
	if err != nil {
		return err
	}
	defer d.close()

	metrics := server.NewMetrics(d.chat.ActiveCount, d.games.Active)
	metrics.ObserveDatabase(d.app.Database())
	d.observe(metrics.ObserveLLM)
	mcpSrv, err := mcp.New(mcp.Options{Tools: d.toolbox.Tools(assistant.Caller{Role: access.GM}), Game: gameDoor{d.games},
		Version: versionString(), Logger: log})
	if err != nil {
		return err
	}
	sessions, err := d.keys.Sessions(auth.SessionOptions{Idle: cfg.Server.SessionIdle, Max: cfg.Server.SessionMax, Logger: log})
	if err != nil {
		return err
	}
	ui, err := web.New()
	if err != nil {
		return err
	}
	keys := server.Auth{Keys: d.keys, Sessions: sessions, Log: log}
	var claims server.Claims // nil unless shared: a nil *pglive.Hub is not a nil Claims
	var chats server.ChatRelay
	if d.hub != nil {
		claims, chats = d.hub, d.hub
	}
	srv, err := server.New(server.Options{
		Claims: claims, ClaimPoll: cfg.Database.LeasePoll, Chats: chats,
		Version: versionString(), Assistant: d.chat, Index: d.app.Index(), Library: d.lib, Characters: d.chars,
		Extractors: d.app.Extractors(), WorkDir: filepath.Join(d.app.DataDir(), "work"), Database: d.app.Database(),
		// Every request spends the large API budget; those that make a
		// model work spend the model budget too.
		Authenticate: authenticator(keys, cfg.Limits.APIRPM, max(cfg.Limits.APIRPM/10, 1)),
		ModelLimit:   auth.NewLimiter(float64(cfg.Limits.RateLimitRPM), cfg.Limits.RateLimitBurst),
		ModelRoutes:  gameapi.ModelRoutes,
		Sessions:     sessions,
		Users:        d.keys,
		ModelRoles:   modelRoles(d),
		// MCP agents and tool results have their own budgets (one per
		// route), so their many small requests leave the chat budget alone.
		AuthenticateAt: budgets(keys, cfg),
		Mount: func(mux *http.ServeMux) {
			d.games.Register(mux)
			if cfg.MCP.Enabled {
				mux.Handle(cfg.MCP.Path, mcpSrv.Handler())
				mux.Handle(cfg.MCP.SSEPath, mcpSrv.SSEHandler())
			}
		},
		// The web UI's shell and the Foundry module (manifest and zip) hold
		// no data: no key needed.
		Public: func(mux *http.ServeMux) {
			ui.Register(mux)
			foundry.Register(mux, cfg.Server.PublicURL)
		},
		Catalog: d.catalog, CORSOrigins: cfg.Server.CORSOrigins, MaxBodyBytes: cfg.Server.MaxBodyBytes,
		MaxUploadBytes: cfg.Limits.MaxDocumentSizeBytes, AssetsPath: cfg.FVTT.AssetsPath, PublicURL: cfg.Server.PublicURL,
		Metrics: metrics, Logger: log, TrustedProxies: cfg.Server.TrustedProxies,
		BeforeStage: servePause(os.Getenv(servePauseEnv)),
	})
	if err != nil {
		return err
	}
	// Uploads a killed or stopped server was ingesting go on from their
	// checkpoints.
	if err := srv.Resume(ctx); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Server.Host, strconv.Itoa(cfg.Server.Port)))
	if err != nil {
		return g.fail("cli.serve.listen_failed", map[string]any{"Host": cfg.Server.Host, "Port": cfg.Server.Port}, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	users, _ := d.keys.Users(ctx)
	fmt.Fprintln(g.stderr, g.t("cli.serve.serving", map[string]any{"Version": versionString(), "Addr": ln.Addr().String(), "Source": fmt.Sprint(*src), "Dir": dataWhere(d.app)}))
	if len(users) == 0 {
		fmt.Fprintln(g.stderr, g.t("cli.serve.no_users", map[string]any{"Dir": d.app.DataDir()}))
	}

	go d.cleanConversations(ctx, cfg.Assistant, log)
	go cleanSessions(ctx, sessions, log)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return g.fail("cli.serve.failed", nil, err)
	case <-ctx.Done():
	}
	// Stop taking requests, then let chats, ingests and turns in flight
	// save what they have before the stores close.
	fmt.Fprintln(g.stderr, g.t("cli.serve.shutting_down", nil))
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout)
	defer cancel()
	return errors.Join(hs.Shutdown(sctx), srv.Shutdown(sctx), d.games.Close(sctx))
}

// servePauseEnv is a test hook: with HEARTH_SERVE_INGEST_PAUSE_BEFORE=STAGE,
// hearth serve holds every upload's ingest as that stage starts (its
// job-status route then names the stage) until the server stops, so a
// test can kill it there.
const servePauseEnv = "HEARTH_SERVE_INGEST_PAUSE_BEFORE"

func servePause(stage string) func(ctx context.Context, job, s string) error {
	if stage == "" {
		return nil
	}
	return func(ctx context.Context, job, s string) error {
		if s != stage {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(10 * time.Minute):
			return fmt.Errorf("%s=%s: paused too long", servePauseEnv, stage)
		}
	}
}

// modelRoles are the configured model of each role, for the GM's
// settings page; an assistant without a model answers as the librarian.
func modelRoles(d *doors) []server.ModelRole {
	var out []server.ModelRole
	for _, name := range config.RoleNames() {
		r := d.app.Role(name)
		if r.Provider == "" {
			continue // vision, when not set up
		}
		out = append(out, server.ModelRole{Role: name, Provider: r.Provider, Model: r.Model})
	}
	return out
}

// authenticator requires an API key (or a session cookie or ticket, as a
// sets), within perMinute requests a minute and burst at once per key.
func authenticator(a server.Auth, perMinute, burst int) func(http.Handler) http.Handler {
	a.Limit = auth.NewLimiter(float64(perMinute), burst)
	return a.Require
}

// budgets are the routes with rate budgets of their own: the MCP endpoints
// (one budget for both) and tool results, each allowing a tenth of its
// minute at once.
func budgets(a server.Auth, cfg *config.Config) map[string]func(http.Handler) http.Handler {
	results := authenticator(a, cfg.Limits.ToolResultRPM, max(cfg.Limits.ToolResultRPM/10, 1))
	at := map[string]func(http.Handler) http.Handler{"/api/tool_result": results}
	if cfg.MCP.Enabled {
		agents := authenticator(a, cfg.Limits.MCPRPM, max(cfg.Limits.MCPRPM/10, 1))
		at[cfg.MCP.Path], at[cfg.MCP.SSEPath] = agents, agents
	}
	return at
}

// cleanSessions deletes expired browser sessions now and every hour until
// ctx ends; sessions are refused once expired whether deleted or not.
func cleanSessions(ctx context.Context, ss *auth.Sessions, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		n, err := ss.Cleanup(ctx)
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			log.Warn("session cleanup failed", "err", err)
		case n > 0:
			log.Info("expired sessions deleted", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dataWhere names where the data lives: the data directory, and the
// PostgreSQL database (host:port/name, no password) when the stores are
// there.
func dataWhere(a *app.App) string {
	if db := a.Database(); db.Backend() == database.Postgres {
		return a.DataDir() + ", PostgreSQL at " + db.Where()
	}
	return a.DataDir()
}
