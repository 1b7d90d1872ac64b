package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/store"
)

// Options configures Open. The zero value works: the built-in defaults,
// the default data directory, offline play.
type Options struct {
	// Config is the configuration (config.Load); nil means the defaults
	// with the default data directory.
	Config *config.Config
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// Hooks report warnings and progress to the user.
	Hooks Hooks
	// SkillsDir is where skills are found; empty: ./skills when it exists
	// (a checkout), else DATA/skills.
	SkillsDir string
	// Record, when set, receives every model call of the games' pipelines
	// as a cassette (llm/cassette).
	Record Recorder
	// Replay, when set, answers every model call of the games' pipelines
	// (a cassette.Player): each role plays with a model, whatever the
	// configuration says, and no server is asked whether it is up.
	Replay llm.Provider
	// Plan runs the planner pass in the multipass pipeline.
	Plan bool
	// NoSubagents plays agentic turns with one game master holding every
	// tool instead of routing them to subagents.
	NoSubagents bool
	// Synchronous NORMAL trades durability against power loss for speed
	// (scratch copies); the default is FULL.
	SynchronousNormal bool
	// IndexInBackground lets a game start before its packs are indexed:
	// the index is built by a goroutine the App stops on Close, and lore
	// until then is empty and says why. Without it the first game of a
	// fresh data directory waits for the whole index.
	IndexInBackground bool
	// IndexHold, when set, is called as the background build reaches each
	// file (done of total) and may block until ctx ends: a test hook to
	// hold the build part-way.
	IndexHold func(ctx context.Context, done, total int)
}

// Hooks are how an App talks to the person using it. Every field is
// optional.
type Hooks struct {
	// Warn reports something that makes play poorer without stopping it
	// (lore that cannot be indexed, a model that cannot be reached). ID is
	// a message id of the i18n catalogs ("cli.play.no_lore"); Data fills
	// it.
	Warn func(id string, data map[string]any)
	// Indexing reports progress while a pack is indexed.
	Indexing func(pack string, done, total int, file string)
	// Indexed reports a pack brought up to date (only when something
	// changed, unless the caller indexes on purpose).
	Indexed func(rep lore.IndexReport, took time.Duration)
	// Background reports an index build started in the background
	// (Options.IndexInBackground): the packs and their files in all.
	Background func(packs []string, files int)
	// SceneLoreWarmed reports that the lore of a game's locations was
	// ranked in the background (Prepare): scenes entered from then on read
	// it. Locations is how many were ranked.
	SceneLoreWarmed func(locations int)
}

// App is a running Hearth over one data directory. It is safe for
// concurrent use.
type App struct {
	cfg  *config.Config
	opts Options
	log  *slog.Logger
	dir  string

	db       *database.DB
	games    store.Store
	index    retrieve.Index
	memories narrative.Store

	mu      sync.Mutex
	closers []func() error
	keepers map[string]*campaignLore // by campaign slug

	// bg is the lifetime of background index builds; Close cancels it
	// and waits for them before the database closes.
	bg       context.Context
	bgCancel context.CancelFunc
	bgWait   sync.WaitGroup
}

// Open opens the data directory's database once, with every store in
// it, and brings its schema up to date. What needs a model or a network is built when first used.
func Open(ctx context.Context, opts Options) (_ *App, err error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if cfg.Storage.DataDir == "" {
		dir, _, derr := config.DefaultDataDir(os.Environ())
		if derr != nil {
			return nil, derr
		}
		c := *cfg
		c.Storage.DataDir = dir
		cfg = &c
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &App{cfg: cfg, opts: opts, log: log, keepers: map[string]*campaignLore{}}
	if a.dir, err = filepath.Abs(cfg.Storage.DataDir); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory %s: %w", a.dir, err)
	}
	dopts := []database.Option{database.WithURL(string(cfg.Database.URL)), database.WithLogger(log)}
	if opts.SynchronousNormal {
		dopts = append(dopts, database.WithSynchronousNormal())
	}
	if a.db, err = database.Open(ctx, a.dir, dopts...); err != nil {
		return nil, err
	}
	a.closers = append(a.closers, a.db.Close)
	a.bg, a.bgCancel = context.WithCancel(context.WithoutCancel(ctx))
	a.closers = append(a.closers, func() error {
		a.bgCancel()
		a.bgWait.Wait()
		return nil
	})
	a.games, a.index, a.memories = a.db.Games, a.db.Index, a.db.Memories
	return a, nil
}

// Close closes everything the App opened, in reverse order.
func (a *App) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

// onClose runs fn when the App closes.
func (a *App) onClose(fn func() error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closers = append(a.closers, fn)
}

// Config is the configuration the App runs with.
func (a *App) Config() *config.Config { return a.cfg }

// Logger is the App's logger.
func (a *App) Logger() *slog.Logger { return a.log }

// DataDir is the data directory.
func (a *App) DataDir() string { return a.dir }

// DatabasePath is the SQLite database file in the data directory; ""
// when the stores live in PostgreSQL (see Database).
func (a *App) DatabasePath() string { return a.db.Path() }

// Database is the open storage: its backend, where it is, a ping.
func (a *App) Database() *database.DB { return a.db }

// Store is where games are kept.
func (a *App) Store() store.Store { return a.games }

// Index is the lore and rules search index.
func (a *App) Index() retrieve.Index { return a.index }

// Memories is the narrative memory store.
func (a *App) Memories() narrative.Store { return a.memories }

// Library is the documents library.
func (a *App) Library(context.Context) (*library.Library, error) { return a.db.Library, nil }

// Conversations are the GM assistant's saved conversations.
func (a *App) Conversations(context.Context) (assistant.Conversations, error) {
	return a.db.Conversations, nil
}

// Characters is the character library.
func (a *App) Characters(context.Context) (chargen.Store, error) { return a.db.Characters, nil }

// Keys are the users and their API keys.
func (a *App) Keys(context.Context) (*auth.Keyring, error) { return a.db.Keys, nil }

// warn reports through Hooks.Warn, or logs.
func (a *App) warn(id string, data map[string]any) {
	if a.opts.Hooks.Warn != nil {
		a.opts.Hooks.Warn(id, data)
		return
	}
	args := make([]any, 0, 2*len(data))
	for k, v := range data {
		args = append(args, k, v)
	}
	a.log.Warn(id, args...)
}
