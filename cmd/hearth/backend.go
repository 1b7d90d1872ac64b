package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/content"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/gm"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/llm"
	nsqlite "github.com/hearth-rpg/hearth/narrative/sqlite"
	rsqlite "github.com/hearth-rpg/hearth/retrieve/sqlite"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

// backend is everything the network doors (serve, mcp) share: the stores
// in the data directory, the assistant and its tools, the live games.
type backend struct {
	cfg        *config.Config
	dir        string
	db         *sqlite.DB
	ix         *rsqlite.Index
	lib        *library.Library
	convs      *assistant.Conversations
	keys       *auth.Keyring
	memories   *nsqlite.DB
	chat       *assistant.Assistant
	toolbox    *assistant.Toolbox
	games      *gameapi.Server
	extractors *ingest.Registry
	catalog    *i18n.Catalog
	log        *slog.Logger

	observer atomic.Pointer[func(llm.Call)]
	closers  []func()

	mu      sync.Mutex
	keepers map[string]*campaignLore // by campaign slug
}

type campaignLore struct {
	keeper game.Lorekeeper
	beats  []game.Beat
}

func (g *globals) openBackend(ctx context.Context, cfg *config.Config, log *slog.Logger) (_ *backend, err error) {
	b := &backend{cfg: cfg, log: log, keepers: map[string]*campaignLore{}}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	b.dir = cfg.Storage.DataDir
	if b.dir == "" {
		if b.dir, err = g.dataDir(); err != nil {
			return nil, g.fail("cli.serve.no_data_dir", nil, err)
		}
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, g.fail("cli.data_dir_failed", nil, err)
	}
	g.data = b.dir // the helpers shared with play read it
	path := filepath.Join(b.dir, sqlite.FileName)
	if b.db, err = sqlite.Open(ctx, b.dir); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.db.Close() })
	if b.ix, err = rsqlite.Open(ctx, path); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.ix.Close() })
	if err := g.ensureBundled(ctx, b.ix, nil); err != nil {
		return nil, err
	}
	if b.lib, err = library.Open(ctx, path, b.ix); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.lib.Close() })
	if b.convs, err = assistant.OpenConversations(ctx, path); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.convs.Close() })
	if b.keys, err = auth.Open(ctx, path); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.keys.Close() })
	if b.memories, err = nsqlite.Open(ctx, path); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() { b.memories.Close() })
	if b.catalog, err = i18n.Load(); err != nil {
		return nil, err
	}
	var closeExtractors func()
	b.extractors, closeExtractors = extractors()
	b.closers = append(b.closers, closeExtractors)

	provider, model, err := b.assistantModel(ctx)
	if err != nil {
		return nil, err
	}
	b.toolbox = &assistant.Toolbox{Search: b.ix, Documents: b.lib, Traveller: b.traveller()}
	a := cfg.Assistant
	b.chat, err = assistant.New(assistant.Options{Provider: provider, Model: model, Toolbox: b.toolbox, Conversations: b.convs,
		System: a.System, Logger: log, Agent: agent.Config{PauseAfterCalls: a.ToolCallPauseThreshold,
			MaxConsecutiveInternal: a.MaxConsecutiveInternal, PauseAfter: a.TimePauseThreshold,
			HardTimeout: a.HardTimeout, ExternalToolTimeout: a.ExternalToolTimeout}})
	if err != nil {
		return nil, err
	}
	b.games = gameapi.New(gameapi.Options{Store: b.db, Campaign: g.resolveCampaign, Prepare: b.prepare(g), Logger: log,
		OriginPatterns: originHosts(cfg.Server.CORSOrigins)})
	return b, nil
}

func (b *backend) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
	b.closers = nil
}

// observe sends every model call to fn (the metrics).
func (b *backend) observe(fn func(llm.Call)) { b.observer.Store(&fn) }

// assistantModel builds the assistant's provider from the assistant role;
// offline, the librarian answers by quoting the books.
func (b *backend) assistantModel(ctx context.Context) (llm.Provider, string, error) {
	r, _ := b.cfg.Models.Role("assistant")
	if r.Provider == "" || r.Provider == "offline" {
		return assistant.Librarian{}, "librarian", nil
	}
	p, err := roleOf(r).provider(ctx, b.cfg.Models.Timeout)
	if err != nil {
		return nil, "", fmt.Errorf("assistant model: %w", err)
	}
	return llm.WithObserver(p, func(c llm.Call) {
		if fn := b.observer.Load(); fn != nil {
			(*fn)(c)
		}
	}), r.Model, nil
}

// roleOf converts a role of the server configuration to the CLI's.
func roleOf(r config.Role) roleConfig {
	return roleConfig{Provider: r.Provider, Model: r.Model, BaseURL: r.BaseURL, APIKeyEnv: r.APIKeyEnv,
		APIKeyFile: r.APIKeyFile, APIKey: string(r.APIKey)}
}

// modelsOf converts the server configuration's models to the CLI's.
func modelsOf(m config.Models) modelConfig {
	mc := modelConfig{Roles: map[string]roleConfig{}, Pipeline: m.Pipeline, Prompts: m.Prompts, Pins: m.PromptVersions,
		Budget: m.ContextBudget, Timeout: m.Timeout}
	for _, name := range roleNames {
		if r, ok := m.Role(name); ok {
			mc.Roles[name] = roleOf(r)
		}
	}
	return mc
}

// resolveCampaign finds a campaign a client names: a bundled campaign by
// its directory name, or a directory in DATA/campaigns. Names are never
// paths, so a client cannot make the server read elsewhere.
func (g *globals) resolveCampaign(ctx context.Context, name string) (*content.Campaign, error) {
	if name == "" {
		name = filepath.Base(hearth.DefaultCampaign)
	}
	if !validName(name) {
		return nil, fmt.Errorf("%w: %q is not a campaign name (letters, digits, - and _)", gameapi.ErrUnknownCampaign, name)
	}
	if _, err := fs.Stat(hearth.Campaigns, filepath.Join("campaigns", name)); err == nil {
		return content.LoadFS(ctx, hearth.Campaigns, filepath.ToSlash(filepath.Join("campaigns", name)))
	}
	dir := filepath.Join(g.data, "campaigns", name)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return content.Load(ctx, dir)
	}
	return nil, fmt.Errorf("%w: no campaign %q (bundled, or in %s)", gameapi.ErrUnknownCampaign, name, filepath.Join(g.data, "campaigns"))
}

// prepare attaches to a game opened for play what `hearth play` attaches:
// lore from the shared index, plot beats, narrative memory, choices, and a
// model pipeline when a narrator is configured.
func (b *backend) prepare(g *globals) func(ctx context.Context, s *game.Session) error {
	mc := modelsOf(b.cfg.Models)
	return func(ctx context.Context, s *game.Session) error {
		if k, beats, err := b.lore(ctx, g, s); err != nil {
			b.log.WarnContext(ctx, "playing without indexed lore", "session", s.ID(), "err", err)
		} else if k != nil {
			s.UseLore(ctx, k)
			s.UseBeats(beats)
		}
		s.UseMemories(b.memories)
		if s.Campaign().PlayMode == "choices" {
			s.UseChoices(g.choiceMaker())
		}
		var docs gm.Documents
		if c, err := g.resolveCampaign(ctx, filepath.Base(s.CampaignPath())); err == nil && rules.Slug(c.Meta.Title) == s.Campaign().Slug() {
			docs = gm.NewCampaignDocs(c)
		}
		pl, err := mc.pipeline(ctx, s.Campaign().Pipeline, s.Campaign().Prompts, docs, nil, false, nil)
		if err != nil {
			return err
		}
		if pl != nil {
			s.UsePipeline(pl)
		}
		return nil
	}
}

// lore indexes a session's campaign once per server and returns a keeper
// over the shared index.
func (b *backend) lore(ctx context.Context, g *globals, s *game.Session) (game.Lorekeeper, []game.Beat, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	slug := s.Campaign().Slug()
	if cl, ok := b.keepers[slug]; ok {
		return cl.keeper, cl.beats, nil
	}
	cp, err := campaignPack(ctx, s.CampaignPath())
	if err != nil {
		return nil, nil, err
	}
	if cp.Manifest.ID != slug {
		return nil, nil, nil
	}
	k, beats, err := g.keeperOn(ctx, b.ix, cp)
	if err != nil {
		return nil, nil, err
	}
	b.keepers[slug] = &campaignLore{keeper: k, beats: beats}
	return k, beats, nil
}

// cleanConversations applies the conversation retention policy now and
// every interval until ctx ends.
func (b *backend) cleanConversations(ctx context.Context, a config.Assistant, log *slog.Logger) {
	t := time.NewTicker(a.CleanupInterval)
	defer t.Stop()
	for {
		n, err := b.convs.Cleanup(ctx, time.Now(), a.ConversationTTL, a.MaxPerUser)
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			log.Warn("conversation cleanup failed", "err", err)
		case n > 0:
			log.Info("conversations cleaned up", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// originHosts turns the CORS origins (https://foundry.example.com:30000)
// into the host patterns the WebSocket origin check takes.
func originHosts(origins []string) []string {
	var out []string
	for _, o := range origins {
		if o == "*" {
			return []string{"*"}
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			out = append(out, u.Host)
		} else {
			out = append(out, o)
		}
	}
	return out
}
