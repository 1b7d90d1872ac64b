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

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/mcp"
	"github.com/hearth-rpg/hearth/server"
)

type serveFlags struct {
	config      string
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
		Long: `Serve Hearth over HTTP for Foundry VTT, browsers and MCP clients:

  GET  /health, /metrics                 no key needed
  POST /api/chat                         the GM assistant, streamed as server-sent events
  POST /api/tool_result, /api/chat/continue
  GET|POST|PATCH|DELETE /api/documents   upload books (ingested in the background)
  POST /api/search                       search the books, as your role
  GET  /api/images[/ID[/data]], POST /api/images/ID/deliver
  GET|POST /api/sessions ...             games: checkpoints, forks, transcripts
  WS   /ws/game/SESSION                  play a game live, several clients at once
  /mcp (streamable HTTP), /mcp/sse       the Model Context Protocol

Every /api, /ws and /mcp request needs "Authorization: Bearer KEY"; create a
user and key with 'hearth user add NAME --role gm'. The key's user decides
what can be read; nothing in a request body raises it.

Configuration: built-in defaults, then hearth.toml in the working directory
(or --config FILE, TOML or YAML), then environment variables named
HEARTH__SECTION__KEY (HEARTH__SERVER__PORT=9000). --print-config shows the
result with secrets masked. Without a model configured, the assistant
answers offline by quoting your books.`,
		Example: `  hearth user add gm --role gm          # prints an API key once
  hearth serve                          # http://127.0.0.1:8080
  hearth serve --host 0.0.0.0 --port 9000 --config /etc/hearth/hearth.toml
  hearth serve --print-config
  curl -H "Authorization: Bearer $KEY" localhost:8080/api/search -d '{"query":"grappling"}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd.Context(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "configuration file (default ./hearth.toml when present)")
	fl.BoolVar(&f.printConfig, "print-config", false, "print the effective configuration, secrets masked, and exit")
	fl.StringVar(&f.host, "host", "", "listen on this address (overrides server.host)")
	fl.IntVar(&f.port, "port", -1, "listen on this port, 0 for any free one (overrides server.port)")
	fl.StringVar(&f.campaigns, "campaigns", "", "directory of campaigns games can be created from, besides the bundled ones (default DATA/campaigns)")
	return cmd
}

// loadConfig reads the layered configuration and applies the flags that
// override it.
func (g *globals) loadConfig(path string) (*config.Config, config.Source, error) {
	cfg, src, err := config.Load(path, os.Environ())
	if err != nil {
		return nil, src, usageError{g.fail("cli.serve.bad_config", nil, err)}
	}
	return cfg, src, nil
}

func serve(ctx context.Context, g *globals, f *serveFlags) error {
	cfg, src, err := g.loadConfig(f.config)
	if err != nil {
		return err
	}
	if f.host != "" {
		cfg.Server.Host = f.host
	}
	if f.port >= 0 {
		cfg.Server.Port = f.port
	}
	if err := cfg.Validate(); err != nil {
		return usageError{g.fail("cli.serve.invalid_config", map[string]any{"Source": fmt.Sprint(src)}, err)}
	}
	if f.printConfig {
		return cfg.Write(g.stdout)
	}
	log := slog.New(server.LogHandler(cfg.Log.Handler(g.stderr)))
	slog.SetDefault(log)

	b, err := g.openBackend(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.close()

	metrics := server.NewMetrics(b.chat.ActiveCount, b.games.Active)
	b.observe(metrics.ObserveLLM)
	mcpSrv, err := mcp.New(mcp.Options{Tools: b.toolbox.Tools(assistant.Caller{Role: access.GM}), Game: gameDoor{b.games},
		Version: versionString(), Logger: log})
	if err != nil {
		return err
	}
	srv, err := server.New(server.Options{
		Version: versionString(), Assistant: b.chat, Index: b.ix, Library: b.lib,
		Extractors: b.extractors, WorkDir: filepath.Join(b.dir, "work"),
		Authenticate: func(h http.Handler) http.Handler {
			return auth.Require(b.keys, auth.NewLimiter(float64(cfg.Limits.RateLimitRPM), cfg.Limits.RateLimitBurst), h)
		},
		Mount: func(mux *http.ServeMux) {
			b.games.Register(mux)
			if cfg.MCP.Enabled {
				mux.Handle(cfg.MCP.Path, mcpSrv.Handler())
				mux.Handle(cfg.MCP.SSEPath, mcpSrv.SSEHandler())
			}
		},
		Catalog: b.catalog, CORSOrigins: cfg.Server.CORSOrigins, MaxBodyBytes: cfg.Server.MaxBodyBytes,
		MaxUploadBytes: cfg.Limits.MaxDocumentSizeBytes, AssetsPath: cfg.FVTT.AssetsPath, PublicURL: cfg.Server.PublicURL,
		Metrics: metrics, Logger: log, TrustedProxies: cfg.Server.TrustedProxies,
	})
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Server.Host, strconv.Itoa(cfg.Server.Port)))
	if err != nil {
		return g.fail("cli.serve.listen_failed", map[string]any{"Host": cfg.Server.Host, "Port": cfg.Server.Port}, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	users, _ := b.keys.Users(ctx)
	fmt.Fprintln(g.stderr, g.t("cli.serve.serving", map[string]any{"Version": versionString(), "Addr": ln.Addr().String(), "Source": fmt.Sprint(src), "Dir": b.dir}))
	if len(users) == 0 {
		fmt.Fprintln(g.stderr, g.t("cli.serve.no_users", map[string]any{"Dir": b.dir}))
	}

	go b.cleanConversations(ctx, cfg.Assistant, log)
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
	return errors.Join(hs.Shutdown(sctx), srv.Shutdown(sctx), b.games.Close(sctx))
}
