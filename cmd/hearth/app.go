package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/lore"
)

// loadConfig reads the one layered configuration once per command:
// defaults, the file, HEARTH__ variables, then --data. Notices (an old
// file read from its old place) are printed once.
func (g *globals) loadConfig() (*config.Config, *config.Source, error) {
	if g.cfg != nil {
		return g.cfg, g.src, nil
	}
	cfg, src, err := config.Load(g.configFile, g.environ)
	if err != nil {
		return nil, nil, usageError{g.fail("cli.serve.bad_config", nil, err)}
	}
	if g.data != "" {
		dir, err := filepath.Abs(g.data)
		if err != nil {
			return nil, nil, err
		}
		cfg.Storage.DataDir = dir
		src.Set("storage.data_dir", "flag --data")
	}
	for _, n := range src.Notices {
		fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": n}))
	}
	g.cfg, g.src = cfg, &src
	return cfg, &src, nil
}

// dataDir is where the database lives: --data, storage.data_dir,
// $HEARTH_DATA, else the user data directory.
func (g *globals) dataDir() (string, error) {
	cfg, _, err := g.loadConfig()
	if err != nil {
		return "", err
	}
	if cfg.Storage.DataDir == "" {
		return "", fmt.Errorf("no home directory to keep data in; set HEARTH_DATA or --data")
	}
	return filepath.Abs(cfg.Storage.DataDir)
}

// openApp assembles Hearth from the configuration, talking to the user
// through stderr in their language.
func (g *globals) openApp(ctx context.Context, opts app.Options) (*app.App, error) {
	cfg, _, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	opts.Config = cfg
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Hooks = g.hooks(opts.IndexInBackground)
	a, err := app.Open(ctx, opts)
	if err != nil {
		return nil, g.fail("cli.data_dir_failed", nil, err)
	}
	return a, nil
}

// hooks print the App's warnings and indexing progress on stderr.
func (g *globals) hooks(background bool) app.Hooks {
	h := app.Hooks{
		Warn: func(id string, data map[string]any) { fmt.Fprintln(g.stderr, g.t(id, data)) },
		Indexed: func(rep lore.IndexReport, took time.Duration) {
			fmt.Fprintln(g.stderr, g.t("cli.pack.indexed", map[string]any{"Pack": rep.Pack, "Files": rep.Files, "Changed": rep.Indexed,
				"Unchanged": rep.Unchanged, "Removed": rep.Removed, "Chunks": rep.Chunks, "Took": took.Round(time.Millisecond).String()}))
		},
	}
	if background {
		// A live counter would scribble over the game: say once what goes
		// on; turn records and 'hearth context' tell how far it got.
		h.Indexed = nil
		h.Background = func(packs []string, files int) {
			fmt.Fprintln(g.stderr, g.t("cli.play.indexing_background", map[string]any{"Packs": strings.Join(packs, ", "), "Files": files}))
		}
		return h
	}
	if wrapWidth(g.stderr) > 0 { // a terminal: a live counter, erased when done
		var last time.Time
		h.Indexing = func(pack string, done, total int, file string) {
			if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
				last = now
				fmt.Fprintf(g.stderr, "\r%s\033[K", g.t("cli.pack.indexing", map[string]any{"Pack": pack, "Done": done, "Total": total, "File": file}))
			}
			if done == total {
				fmt.Fprint(g.stderr, "\r\033[K")
			}
		}
	}
	return h
}

// withDatabase runs fn with the data directory's database open once, every
// store in it over one handle.
func (g *globals) withDatabase(ctx context.Context, fn func(*database.DB) error, opts ...database.Option) error {
	dir, err := g.dataDir()
	if err != nil {
		return g.fail("cli.no_data_dir", nil, err)
	}
	cfg, _, err := g.loadConfig()
	if err != nil {
		return err
	}
	db, err := database.Open(ctx, dir, append([]database.Option{database.WithURL(string(cfg.Database.URL))}, opts...)...)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}
