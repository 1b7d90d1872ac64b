package app

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/tokens"
)

// ErrUnknownCampaign is wrapped by Campaign's error for a name that is
// neither bundled nor in DATA/campaigns.
var ErrUnknownCampaign = fmt.Errorf("unknown campaign")

// LoadCampaign loads the campaign in directory dir, else the built-in
// campaign of that name ("saltmere"), or the default campaign when dir is
// empty; bound to the packs whose entities it uses (FindPack).
func LoadCampaign(ctx context.Context, dir string) (*campaign.Campaign, error) {
	var c *campaign.Campaign
	var err error
	_, statErr := os.Stat(dir)
	switch {
	case dir == "":
		c, err = campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	case statErr == nil:
		c, err = campaign.Load(ctx, dir)
	case bundled(dir):
		c, err = campaign.LoadFS(ctx, hearth.Campaigns, dir)
	case ValidName(dir) && bundled("campaigns/"+dir):
		c, err = campaign.LoadFS(ctx, hearth.Campaigns, "campaigns/"+dir)
	default:
		return nil, hearth.Errorf(hearth.NotFound, "there is no directory %s, nor a built-in campaign of that name (built in: %s)",
			dir, strings.Join(BundledCampaigns(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if err := bindPacks(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// bundled reports whether dir is a campaign built into Hearth
// ("campaigns/saltmere").
func bundled(dir string) bool {
	_, err := fs.Stat(hearth.Campaigns, dir)
	return err == nil
}

// BundledCampaigns lists the names of the campaigns built into Hearth.
func BundledCampaigns() []string {
	ents, _ := fs.ReadDir(hearth.Campaigns, "campaigns")
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// bindPacks binds a campaign just loaded to the packs whose entities it
// uses, so that its games start with them.
func bindPacks(ctx context.Context, c *campaign.Campaign) error {
	if !c.UsesPackEntities() {
		return nil
	}
	packs := make([]*campaign.Pack, 0, len(c.Meta.Packs))
	for _, r := range c.Meta.Packs {
		p, err := FindPack(ctx, c.Dir, r.ID)
		if err != nil {
			return fmt.Errorf("campaign %s: %w", c.Meta.Title, err)
		}
		packs = append(packs, p)
	}
	if err := c.BindPacks(packs...); err != nil {
		return fmt.Errorf("campaign %s: %w", c.Meta.Title, err)
	}
	return nil
}

// ErrPackNotFound is wrapped by FindPack's error for a pack that is
// neither beside the campaign nor built in.
var ErrPackNotFound = &hearth.Error{Code: hearth.NotFound, Message: "pack not found"}

// packArchives are the archive names FindPack looks for beside a
// campaign, in order, after a directory: the forms LoadPack reads.
var packArchives = []string{".tar.gz", ".tgz", ".campaign.gz", ".zip"}

// FindPack loads the pack id that the campaign in campaignDir plays with
// (campaign.yml's packs): the directory of that name beside the
// campaign's own (my-setting beside my-campaign), else an archive of it
// there (my-setting.tar.gz, .tgz, .campaign.gz or .zip), else the pack of
// that id built into Hearth. A campaign built into Hearth plays with
// built-in packs only.
func FindPack(ctx context.Context, campaignDir, id string) (*campaign.Pack, error) {
	if !ValidName(id) {
		return nil, fmt.Errorf("%w: %q is not a pack id", ErrPackNotFound, id)
	}
	var beside string
	if st, err := os.Stat(campaignDir); err == nil && st.IsDir() {
		if abs, err := filepath.Abs(campaignDir); err == nil {
			campaignDir = abs // for the error, which names the directory
		}
		beside = filepath.Join(filepath.Dir(filepath.Clean(campaignDir)), id)
		if st, err := os.Stat(beside); err == nil && st.IsDir() {
			return campaign.LoadPack(ctx, beside)
		}
		for _, ext := range packArchives {
			if st, err := os.Stat(beside + ext); err == nil && st.Mode().IsRegular() {
				return campaign.LoadPack(ctx, beside+ext)
			}
		}
	}
	if slices.Contains(BundledPacks(), id) {
		return campaign.LoadPackFS(ctx, hearth.Packs, "packs/"+id)
	}
	if beside == "" {
		return nil, fmt.Errorf("%w: %q is not built into Hearth (built in: %s)", ErrPackNotFound, id, strings.Join(BundledPacks(), ", "))
	}
	return nil, fmt.Errorf("%w: no directory %s (nor an archive of it) beside the campaign, and %q is not built into Hearth (built in: %s); put the pack there",
		ErrPackNotFound, beside, id, strings.Join(BundledPacks(), ", "))
}

// Campaign finds a campaign by name: a bundled campaign by its directory
// name ("saltmere"; empty is the default one), or a directory in
// DATA/campaigns. Names are never paths, so a client cannot make Hearth
// read elsewhere.
func (a *App) Campaign(ctx context.Context, name string) (*campaign.Campaign, error) {
	if name == "" {
		name = path.Base(hearth.DefaultCampaign)
	}
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: %q is not a campaign name (letters, digits, - and _)", ErrUnknownCampaign, name)
	}
	var c *campaign.Campaign
	var err error
	dir := filepath.Join(a.dir, "campaigns", name)
	if _, ferr := fs.Stat(hearth.Campaigns, "campaigns/"+name); ferr == nil {
		c, err = campaign.LoadFS(ctx, hearth.Campaigns, "campaigns/"+name)
	} else if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
		c, err = campaign.Load(ctx, dir)
	} else {
		return nil, fmt.Errorf("%w: no campaign %q (bundled, or in %s)", ErrUnknownCampaign, name, filepath.Join(a.dir, "campaigns"))
	}
	if err != nil {
		return nil, err
	}
	if err := bindPacks(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// ValidName reports whether s can name a pack or campaign: no path
// separators, not . or ..
func ValidName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\`) && s != "." && s != ".."
}

// NewGame starts a game of c with the dice seed (0: random), prepared as
// Prepare does.
func (a *App) NewGame(ctx context.Context, c *campaign.Campaign, seed uint64, opts game.Options) (*game.Session, error) {
	s, err := game.New(ctx, a.games, c, seed, a.gameOptions(opts))
	if err != nil {
		return nil, err
	}
	if err := a.Prepare(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenGame resumes the saved game id, prepared as Prepare does.
func (a *App) OpenGame(ctx context.Context, id string, opts game.Options) (*game.Session, error) {
	s, err := game.Open(ctx, a.games, id, a.gameOptions(opts))
	if err != nil {
		return nil, err
	}
	if err := a.Prepare(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// LatestGame is the most recently played game of the campaign with the
// given slug, or "" when there is none.
func (a *App) LatestGame(ctx context.Context, campaignSlug string) (string, error) {
	ss, err := a.games.Sessions(ctx)
	if err != nil {
		return "", err
	}
	for _, x := range ss {
		if x.Campaign == campaignSlug {
			return x.ID, nil
		}
	}
	return "", nil
}

func (a *App) gameOptions(o game.Options) game.Options {
	if o.Logger == nil {
		o.Logger = a.log
	}
	return o
}

// Prepare gives a game everything the configuration asks for: lore from
// the shared index and the campaign's plot beats, narrative memory,
// choices for a choice-based campaign, and the turn pipeline — the skills
// pipeline, or the model game master when a narrator model is configured
// and reachable (else the game plays offline). Lore that cannot be had is
// warned about, never fatal.
func (a *App) Prepare(ctx context.Context, s *game.Session) error {
	if k, beats, err := a.lore(ctx, s); err != nil {
		a.warn("cli.play.no_lore", map[string]any{"Err": err.Error()})
	} else if k != nil {
		s.UseLore(ctx, k)
		s.UseBeats(beats)
		a.warmSceneLore(s, k)
	}
	s.UseMemories(a.memories)
	// Party members whose controllers name a model play with it; the
	// others with the offline agent.
	s.UseAgents(a.PartyAgent)
	if s.Campaign().PlayMode == "choices" {
		s.UseChoices(a.choiceMaker())
	}
	mode := cmpOr(a.cfg.Models.Pipeline, s.Campaign().Pipeline)
	if mode == "skills" {
		sp, err := a.skillsPipeline(ctx, campaignDir(s))
		if err != nil {
			return err
		}
		s.UsePipeline(sp)
		return nil
	}
	var docs modelgm.Documents
	if c, err := a.campaignOf(ctx, s); err == nil {
		docs = modelgm.NewCampaignDocs(c)
	}
	pl, err := a.ModelPipeline(ctx, mode, s.Campaign().Prompts, docs)
	if err != nil {
		return err
	}
	if pl != nil {
		s.UsePipeline(pl)
		if p, err := a.gameProvider(ctx, "narrator"); err == nil {
			// The DM's model lists the adventure modules it knows.
			s.UseModuleFinder(modelgm.ModuleFinder{Role: modelgm.Role{Provider: p, Model: a.Role("narrator").Model}})
		}
		if a.online("summariser") {
			if p, err := a.gameProvider(ctx, "summariser"); err == nil {
				s.UseMemorySummariser(modelgm.MemorySummariser{Role: modelgm.Role{Provider: p, Model: a.Role("summariser").Model}})
				s.UseElementExtractor(modelgm.ElementExtractor{Role: modelgm.Role{Provider: p, Model: a.Role("summariser").Model}})
			}
		}
	}
	return nil
}

// campaignOf loads the campaign a game was made from, when it is still
// where it was and still the same campaign.
func (a *App) campaignOf(ctx context.Context, s *game.Session) (*campaign.Campaign, error) {
	c, err := LoadCampaign(ctx, s.CampaignPath())
	if err != nil {
		return nil, err
	}
	if rules.Slug(c.Meta.Title) != s.Campaign().Slug() {
		return nil, fmt.Errorf("the campaign at %s is not the game's any more", s.CampaignPath())
	}
	return c, nil
}

// warmSceneLore asks for the scene lore of each of the game's locations
// in a goroutine the App stops on Close, once the index is built, so that
// the index keeps the results (sqliteindex keeps them while the index is
// unchanged) and the turn that first enters a scene reads them instead of
// ranking lore by full text (4–8 ms of CPU a query set). It asks with the
// world as it stands, the player moved to each location: the scene's
// characters, discoverables and open threads as the player would find
// them if nothing changes first; a scene entered after a change asks its
// own, other, queries as before. What the turns get is unchanged: a kept
// result is the one the query gives.
func (a *App) warmSceneLore(s *game.Session, k *lore.Keeper) {
	w, err := s.World().Clone() // before play begins: no turn is changing it
	if err != nil || w.Characters[w.Player] == nil {
		return
	}
	pc := w.Characters[w.Player]
	locs := make([]string, 0, len(w.Locations))
	for id := range w.Locations {
		locs = append(locs, id)
	}
	slices.Sort(locs)
	ctx := a.bg
	a.bgWait.Go(func() {
		if k.Building != nil && k.Building.Wait(ctx) != nil {
			return
		}
		n := 0
		for _, loc := range locs {
			if ctx.Err() != nil {
				return
			}
			pc.Location, w.Scene.Location = loc, loc
			c, err := k.Scene(ctx, w)
			if err != nil {
				a.log.Debug("warm scene lore", "location", loc, "err", err)
				return
			}
			if c.Pending == "" {
				n++
			}
		}
		if h := a.opts.Hooks.SceneLoreWarmed; h != nil {
			h(n)
		}
	})
}

type campaignLore struct {
	keeper *lore.Keeper
	beats  []game.Beat
}

// lore indexes a game's campaign and the packs it plays with (only what
// changed since last time), once per App, and returns a keeper over the
// shared index and the campaign's plot beats.
func (a *App) lore(ctx context.Context, s *game.Session) (*lore.Keeper, []game.Beat, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	slug := s.Campaign().Slug()
	if cl, ok := a.keepers[slug]; ok {
		return cl.keeper, cl.beats, nil
	}
	cp, err := CampaignPack(ctx, s.CampaignPath())
	if err != nil {
		return nil, nil, err
	}
	if cp.Manifest.ID != slug {
		return nil, nil, nil // the campaign's directory holds another campaign now
	}
	packs := []*campaign.Pack{cp}
	for _, r := range cp.Content.Meta.Packs {
		p, err := FindPack(ctx, s.CampaignPath(), r.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("pack %s of the campaign: %w", r.ID, err)
		}
		packs = append(packs, p)
	}
	k := &lore.Keeper{Index: a.index, Campaign: cp.Manifest.ID}
	beats, errs := game.BeatsOf(cp.Beats)
	for _, err := range errs {
		a.warn("cli.warning", map[string]any{"Warning": err.Error()})
	}
	var stale []*campaign.Pack
	for _, p := range packs {
		if a.opts.IndexInBackground {
			// Only finding what changed is done before play; a pack up
			// to date costs one query.
			n, err := lore.Stale(ctx, a.index, p)
			if err != nil {
				return nil, nil, err
			}
			if n > 0 {
				stale = append(stale, p)
			}
		} else if _, err := a.IndexPack(ctx, p, false); err != nil {
			return nil, nil, err
		}
		k.Packs = append(k.Packs, p.Manifest.ID)
		for _, lb := range p.Lorebooks {
			k.Books = append(k.Books, lore.Book{Book: lb.Book, Access: lb.Access})
		}
	}
	if len(stale) > 0 {
		k.Building = a.indexInBackground(stale)
	}
	a.keepers[slug] = &campaignLore{keeper: k, beats: beats}
	return k, beats, nil
}

// indexInBackground builds the index of packs in a goroutine that Close
// stops. Each file is written whole with its hash, so a build stopped
// part-way resumes where it stopped the next time.
func (a *App) indexInBackground(packs []*campaign.Pack) *lore.Building {
	total := 0
	ids := make([]string, len(packs))
	for i, p := range packs {
		total += len(p.Files)
		ids[i] = p.Manifest.ID
	}
	b := lore.NewBuilding(total)
	if h := a.opts.Hooks.Background; h != nil {
		h(ids, total)
	}
	ctx := a.bg
	a.bgWait.Go(func() {
		err := a.buildIndex(ctx, packs, b)
		b.Finish(err)
		if err != nil && ctx.Err() == nil {
			a.warn("cli.play.no_lore", map[string]any{"Err": err.Error()})
		}
	})
	return b
}

func (a *App) buildIndex(ctx context.Context, packs []*campaign.Pack, b *lore.Building) error {
	tok, err := tokens.CL100K()
	if err != nil {
		return err
	}
	total, offset := 0, 0
	for _, p := range packs {
		total += len(p.Files)
	}
	for _, p := range packs {
		start := time.Now()
		rep, err := lore.IndexPack(ctx, a.index, p, tok, func(done, _ int, _ string) {
			b.Progress(offset + done)
			if hold := a.opts.IndexHold; hold != nil {
				hold(ctx, offset+done, total)
			}
		})
		if err != nil {
			return err
		}
		a.log.Info("pack indexed in the background", "pack", p.Manifest.ID, "files", rep.Files, "indexed", rep.Indexed,
			"removed", rep.Removed, "chunks", rep.Chunks, "took", time.Since(start))
		offset += len(p.Files)
	}
	return nil
}

// IndexPack brings p's chunks in the index up to date, reporting progress
// through Hooks; reported reports the result even when nothing changed.
func (a *App) IndexPack(ctx context.Context, p *campaign.Pack, reported bool) (lore.IndexReport, error) {
	tok, err := tokens.CL100K()
	if err != nil {
		return lore.IndexReport{}, err
	}
	start := time.Now()
	var progress lore.Progress
	if h := a.opts.Hooks.Indexing; h != nil {
		progress = func(done, total int, file string) { h(p.Manifest.ID, done, total, file) }
	}
	rep, err := lore.IndexPack(ctx, a.index, p, tok, progress)
	if err != nil {
		return rep, err
	}
	if h := a.opts.Hooks.Indexed; h != nil && (reported || rep.Indexed > 0 || rep.Removed > 0) {
		h(rep, time.Since(start))
	}
	return rep, nil
}

// IndexBundled indexes the bundled packs with the given ids (all of them
// when none are given) when they are missing from the index or out of
// date.
func (a *App) IndexBundled(ctx context.Context, ids ...string) error {
	for _, id := range BundledPacks() {
		if len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		p, err := LoadPack(ctx, id)
		if err != nil {
			return fmt.Errorf("the bundled pack %s: %w", id, err)
		}
		if _, err := a.IndexPack(ctx, p, false); err != nil {
			return err
		}
	}
	return nil
}

// CampaignPack loads the campaign at dir (the bundled default when
// empty) as a pack, for indexing its lore.
func CampaignPack(ctx context.Context, dir string) (*campaign.Pack, error) {
	if dir == "" {
		dir = hearth.DefaultCampaign
	}
	if _, err := os.Stat(dir); err != nil {
		if _, ferr := fs.Stat(hearth.Campaigns, dir); ferr == nil {
			return campaign.LoadPackFS(ctx, hearth.Campaigns, dir)
		}
	}
	return campaign.LoadPack(ctx, dir)
}

// BundledPacks lists the ids of the packs built into Hearth.
func BundledPacks() []string {
	ents, _ := fs.ReadDir(hearth.Packs, "packs")
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// ErrNoPack is wrapped by LoadPack's error for an argument that is neither
// a path nor a bundled pack or campaign.
var ErrNoPack = fmt.Errorf("no such pack")

// LoadPack loads a pack from a path or, failing that, a bundled pack or
// campaign by id.
func LoadPack(ctx context.Context, arg string) (*campaign.Pack, error) {
	if _, err := os.Stat(arg); err == nil {
		return campaign.LoadPack(ctx, arg)
	}
	if slices.Contains(BundledPacks(), arg) {
		return campaign.LoadPackFS(ctx, hearth.Packs, "packs/"+arg)
	}
	if _, err := fs.Stat(hearth.Campaigns, "campaigns/"+arg); err == nil {
		return campaign.LoadPackFS(ctx, hearth.Campaigns, "campaigns/"+arg)
	}
	return nil, fmt.Errorf("%w: %q", ErrNoPack, arg)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
