package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/content"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/lore"
	nsqlite "github.com/hearth-rpg/hearth/narrative/sqlite"
	rsqlite "github.com/hearth-rpg/hearth/retrieve/sqlite"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

// campaignPack loads the campaign at dir (the bundled one when empty) as
// a pack, for indexing its lore.
func campaignPack(ctx context.Context, dir string) (*content.Pack, error) {
	if dir == "" {
		dir = hearth.DefaultCampaign
	}
	if _, err := os.Stat(dir); err != nil {
		if _, ferr := fs.Stat(hearth.Campaigns, dir); ferr == nil {
			return content.LoadPackFS(ctx, hearth.Campaigns, dir)
		}
	}
	return content.LoadPack(ctx, dir)
}

// lorekeeper indexes the campaign and the packs it plays with (only what
// changed since last time) and returns a keeper over the index, the
// campaign's plot beats, and a function to close the index. Lore is an enrichment: when it cannot be had,
// lorekeeper says why in one line and the game plays without it.
func (g *globals) lorekeeper(ctx context.Context, campaignDir, campaignSlug string) (*lore.Keeper, []game.Beat, func()) {
	none := func() {}
	warn := func(err error) (*lore.Keeper, []game.Beat, func()) {
		fmt.Fprintln(g.stderr, g.t("cli.play.no_lore", map[string]any{"Err": err.Error()}))
		return nil, nil, none
	}
	cp, err := campaignPack(ctx, campaignDir)
	if err != nil {
		return warn(err)
	}
	if cp.Manifest.ID != campaignSlug {
		return nil, nil, none // a session of another campaign
	}
	dir, err := g.dataDir()
	if err != nil {
		return warn(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return warn(err)
	}
	ix, err := rsqlite.Open(ctx, filepath.Join(dir, sqlite.FileName))
	if err != nil {
		return warn(err)
	}
	k, beats, err := g.keeperOn(ctx, ix, cp)
	if err != nil {
		ix.Close()
		return warn(err)
	}
	return k, beats, func() { ix.Close() }
}

// keeperOn indexes a campaign pack and the packs it plays with into ix
// (only what changed) and returns a keeper over ix and the campaign's
// plot beats.
func (g *globals) keeperOn(ctx context.Context, ix *rsqlite.Index, cp *content.Pack) (*lore.Keeper, []game.Beat, error) {
	packs := []*content.Pack{cp}
	for _, r := range cp.Content.Meta.Packs {
		p, err := g.loadPack(ctx, r.ID)
		if err != nil {
			return nil, nil, g.fail("cli.play.campaign_pack_failed", map[string]any{"Pack": r.ID}, err)
		}
		packs = append(packs, p)
	}
	k := &lore.Keeper{Index: ix, Campaign: cp.Manifest.ID}
	beats, errs := game.BeatsOf(cp.Beats)
	for _, err := range errs {
		fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": err.Error()}))
	}

	for _, p := range packs {
		if _, err := g.index(ctx, ix, p, false); err != nil {
			return nil, nil, err
		}
		k.Packs = append(k.Packs, p.Manifest.ID)
		for _, lb := range p.Lorebooks {
			k.Books = append(k.Books, lore.Book{Book: lb.Book, Access: lb.Access})
		}
	}
	return k, beats, nil
}

// memories opens the narrative memory store in the data directory's
// database; without it the game plays on and says why.
func (g *globals) memories(ctx context.Context) (*nsqlite.DB, func()) {
	dir, err := g.dataDir()
	if err == nil {
		var m *nsqlite.DB
		if m, err = nsqlite.Open(ctx, filepath.Join(dir, sqlite.FileName)); err == nil {
			return m, func() { m.Close() }
		}
	}
	fmt.Fprintln(g.stderr, g.t("cli.play.no_memory", map[string]any{"Err": err.Error()}))
	return nil, func() {}
}
