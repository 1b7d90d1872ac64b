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
	"strings"
	"sync/atomic"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/pglive"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

// doors are what the network doors (serve, mcp) put over the App: the
// assistant and its tools, the live games, the keys.
type doors struct {
	app      *app.App
	lib      *library.Library
	keys     *auth.Keyring
	convs    assistant.Conversations
	chars    chargen.Store
	toolbox  *assistant.Toolbox
	chat     *assistant.Assistant
	games    *gameapi.Server
	hub      *pglive.Hub // PostgreSQL: the games and jobs shared with other servers
	catalog  *i18n.Catalog
	observer atomic.Pointer[func(llm.Call)]
}

func openDoors(ctx context.Context, g *globals, log *slog.Logger) (_ *doors, err error) {
	a, err := g.openApp(ctx, app.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	d := &doors{app: a}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if err := a.IndexBundled(ctx); err != nil {
		return nil, err
	}
	if d.lib, err = a.Library(ctx); err != nil {
		return nil, err
	}
	if d.keys, err = a.Keys(ctx); err != nil {
		return nil, err
	}
	if d.convs, err = a.Conversations(ctx); err != nil {
		return nil, err
	}
	if d.chars, err = a.Characters(ctx); err != nil {
		return nil, err
	}
	if d.catalog, err = i18n.Load(); err != nil {
		return nil, err
	}
	if d.toolbox, err = a.Toolbox(ctx); err != nil {
		return nil, err
	}
	if d.chat, err = a.Assistant(ctx, d.toolbox, func(c llm.Call) {
		if fn := d.observer.Load(); fn != nil {
			(*fn)(c)
		}
	}); err != nil {
		return nil, err
	}
	images, err := a.Images(ctx)
	if err != nil {
		return nil, err
	}
	draw, err := a.ImageProvider(ctx)
	if err != nil {
		return nil, fmt.Errorf("[images]: %w", err)
	}
	gopts := gameapi.Options{Store: a.Store(), Campaign: d.campaign, Campaigns: d.campaigns, CampaignFiles: d.campaignFiles, Prepare: a.Prepare, Logger: log,
		Images: draw, ImageStore: images, ImageSize: a.Config().Images.Size,
		Characters: d.chars, Users: d.userNames, Models: d.partyModels,
		OriginPatterns: originHosts(a.Config().Server.CORSOrigins)}
	if pg := a.Database().Postgres(); pg != nil {
		// Every process on one PostgreSQL database shares its games and
		// ingest jobs with the others: one lease per game or job.
		dc := a.Config().Database
		if d.hub, err = pglive.New(ctx, pg, string(dc.URL), pglive.Options{TTL: dc.LeaseTTL, Poll: dc.LeasePoll, Log: log}); err != nil {
			return nil, err
		}
		gopts.Cluster, gopts.LeasePoll = d.hub, dc.LeasePoll
	}
	d.games = gameapi.New(gopts)
	return d, nil
}

// close stops sharing (handing this process's leases over) and closes
// the stores.
func (d *doors) close() {
	if d.hub != nil {
		if err := d.hub.Close(); err != nil {
			d.app.Logger().Warn("hand this server's games and jobs over", "err", err)
		}
	}
	d.app.Close()
}

// campaign resolves a campaign name for the game API.
func (d *doors) campaign(ctx context.Context, name string) (*campaign.Campaign, error) {
	c, err := d.app.Campaign(ctx, name)
	if errors.Is(err, app.ErrUnknownCampaign) {
		return nil, fmt.Errorf("%w: %w", gameapi.ErrUnknownCampaign, err)
	}
	return c, err
}

// campaignFiles opens a campaign's files for serving its assets: a
// bundled campaign's, else DATA/campaigns/NAME confined to itself.
func (d *doors) campaignFiles(ctx context.Context, name string) (fs.FS, error) {
	if !app.ValidName(name) {
		return nil, fmt.Errorf("%w: %q", gameapi.ErrUnknownCampaign, name)
	}
	if _, err := fs.Stat(hearth.Campaigns, "campaigns/"+name); err == nil {
		return fs.Sub(hearth.Campaigns, "campaigns/"+name)
	}
	f, err := gameapi.DirFiles(filepath.Join(d.app.DataDir(), "campaigns", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q", gameapi.ErrUnknownCampaign, name)
	}
	return f, err
}

// campaigns names the campaigns d.campaign loads: the bundled ones and
// each directory in DATA/campaigns but the packs kept there for the
// campaigns beside them to play with (a pack.yml and no campaign.yml).
func (d *doors) campaigns(ctx context.Context) ([]string, error) {
	ents, err := fs.ReadDir(hearth.Campaigns, "campaigns")
	if err != nil {
		return nil, err
	}
	own, err := os.ReadDir(filepath.Join(d.app.DataDir(), "campaigns"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var names []string
	for _, e := range append(ents, own...) {
		if e.IsDir() && app.ValidName(e.Name()) && !strings.HasPrefix(e.Name(), ".") && !d.onlyPack(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// onlyPack reports whether DATA/campaigns/name holds a pack that is not
// a campaign.
func (d *doors) onlyPack(name string) bool {
	dir := filepath.Join(d.app.DataDir(), "campaigns", name)
	has := func(f string) bool {
		_, err := os.Stat(filepath.Join(dir, f))
		return err == nil
	}
	return has("pack.yml") && !has("campaign.yml") && !has("scenario.yml")
}

// userNames names the users a party member may be given to.
func (d *doors) userNames(ctx context.Context) ([]string, error) {
	us, err := d.keys.Users(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.Name
	}
	return names, nil
}

// partyModels are the models a party member's agent may play with: those
// of the assistant's provider, as GET /api/models lists them; the party
// agent reaches them with the server and key of the role that uses that
// provider (app.MemberRole).
func (d *doors) partyModels(ctx context.Context) (string, []string, error) {
	ms, err := d.chat.Models(ctx)
	if err != nil {
		return "", nil, err
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return d.chat.Provider().Name(), names, nil
}

// observe sends every model call of the assistant to fn (the metrics).
func (d *doors) observe(fn func(llm.Call)) { d.observer.Store(&fn) }

// cleanConversations applies the conversation retention policy now and
// every interval until ctx ends.
func (d *doors) cleanConversations(ctx context.Context, a config.Assistant, log *slog.Logger) {
	t := time.NewTicker(a.CleanupInterval)
	defer t.Stop()
	for {
		n, err := d.convs.Cleanup(ctx, time.Now(), a.ConversationTTL, a.MaxPerUser)
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
