package lore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/world"
)

// Searcher is the part of a retrieve.Index the keeper reads.
type Searcher interface {
	Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error)
}

// Budget caps each part of the prepared lore, in cl100k tokens. Seed 004
// suggests 2–4K tokens of lore per scene.
type Budget struct {
	Atmosphere   int
	Briefing     int // per character
	Discoverable int
	Threads      int
	Campaign     int // the lore an episode begins with
}

// DefaultBudget spends about 3K tokens on a scene with two characters.
var DefaultBudget = Budget{Atmosphere: 700, Briefing: 500, Discoverable: 400, Threads: 500, Campaign: 1200}

// Keeper prepares lore from an index for one campaign.
type Keeper struct {
	Index Searcher
	// Campaign is the campaign's pack id; world ids are namespaced with it
	// ("saltmere:maren") to find their lore.
	Campaign string
	// Packs are the packs searched: the campaign's and those it uses.
	Packs  []string
	Budget Budget
	// Books are keyword lorebooks activated every turn.
	Books []Book
	// Building, when set, is an index build still under way: scene lore
	// is then empty and says so (Cache.Pending), keyword lore still works.
	Building *Building
}

func (k *Keeper) budget() Budget {
	b := k.Budget
	d := DefaultBudget
	if b.Atmosphere <= 0 {
		b.Atmosphere = d.Atmosphere
	}
	if b.Briefing <= 0 {
		b.Briefing = d.Briefing
	}
	if b.Discoverable <= 0 {
		b.Discoverable = d.Discoverable
	}
	if b.Threads <= 0 {
		b.Threads = d.Threads
	}
	if b.Campaign <= 0 {
		b.Campaign = d.Campaign
	}
	return b
}

func (k *Keeper) ns(id string) string {
	if id == "" || strings.Contains(id, ":") || k.Campaign == "" {
		return id
	}
	return k.Campaign + ":" + id
}

// Scene materialises the lore of the scene w is in. It is called when a
// scene begins; the result is stored with the turn that began it.
func (k *Keeper) Scene(ctx context.Context, w *world.State) (*Cache, error) {
	loc := w.Scene.Location
	if loc == "" && w.Characters[w.Player] != nil {
		loc = w.Characters[w.Player].Location
	}
	c := &Cache{Scene: w.Scene.Number, Location: loc}
	if c.Pending = k.Building.Pending(); c.Pending != "" {
		return c, nil
	}
	b := k.budget()
	seen := map[string]bool{}
	name, about := loc, ""
	if l := w.Locations[loc]; l != nil {
		name, about = l.Name, l.Description
	}
	var err error
	c.Atmosphere, err = k.section(ctx, c, seen, "atmosphere", retrieve.Query{
		Signals: &retrieve.Signals{Location: name, Input: about},
		Filter:  retrieve.Filter{Packs: k.Packs, EntityIDs: []string{k.ns(loc)}},
		Budget:  b.Atmosphere,
	})
	if err != nil {
		return nil, err
	}
	for _, id := range Present(w) {
		if err := k.brief(ctx, w, c, seen, id); err != nil {
			return nil, err
		}
	}
	if ids, text := discoverables(w, loc); len(ids) > 0 {
		for i := range ids {
			ids[i] = k.ns(ids[i])
		}
		c.Discoverable, err = k.section(ctx, c, seen, "discoverable", retrieve.Query{
			Text:   text,
			Filter: retrieve.Filter{Packs: k.Packs, EntityIDs: ids},
			Budget: b.Discoverable,
		})
		if err != nil {
			return nil, err
		}
	}
	// Threads are found by what they are about: their titles, not their ids.
	if titles := openThreads(w); len(titles) > 0 {
		c.ThreadConnections, err = k.section(ctx, c, seen, "thread_connections", retrieve.Query{
			Signals: &retrieve.Signals{Location: name, Threads: titles},
			Filter:  retrieve.Filter{Packs: k.Packs},
			Budget:  b.Threads,
		})
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Join adds briefings for characters that entered the scene after it was
// prepared (seed 004's mid-scene NPC introduction) and reports whether it
// added any. Only the new characters' lore is fetched.
func (k *Keeper) Join(ctx context.Context, w *world.State, c *Cache) (bool, error) {
	if c.Pending != "" {
		return false, nil // the whole scene is prepared again once the index is ready
	}
	seen := map[string]bool{}
	for _, ps := range [][]Passage{c.Atmosphere, c.Discoverable, c.ThreadConnections} {
		for _, p := range ps {
			seen[p.ID] = true
		}
	}
	for _, br := range c.NPCBriefings {
		for _, p := range br.Passages {
			seen[p.ID] = true
		}
	}
	added := false
	for _, id := range Present(w) {
		if c.Briefed(id) {
			continue
		}
		if err := k.brief(ctx, w, c, seen, id); err != nil {
			return added, err
		}
		added = true
	}
	return added, nil
}

func (k *Keeper) brief(ctx context.Context, w *world.State, c *Cache, seen map[string]bool, id string) error {
	ch := w.Characters[id]
	name := id
	if ch != nil && ch.Name != "" {
		name = ch.Name
	}
	ps, err := k.section(ctx, c, seen, "npc_briefings", retrieve.Query{
		Signals: &retrieve.Signals{Present: []string{name}},
		Filter:  retrieve.Filter{Packs: k.Packs, EntityIDs: []string{k.ns(id)}},
		Budget:  k.budget().Briefing,
	})
	if err != nil {
		return err
	}
	c.NPCBriefings = append(c.NPCBriefings, Briefing{Character: id, Name: name, Passages: ps})
	return nil
}

// Campaign returns the campaign-level lore an episode begins with:
// setting, factions and world lore, best first.
func (k *Keeper) CampaignLore(ctx context.Context, w *world.State, about string) ([]Passage, []Cut, error) {
	if k.Building.Pending() != "" {
		return nil, nil, nil
	}
	c := &Cache{}
	var factions []string
	for _, f := range sortedKeys(w.Factions) {
		factions = append(factions, w.Factions[f].Name)
	}
	ps, err := k.section(ctx, c, map[string]bool{}, "campaign", retrieve.Query{
		Signals: &retrieve.Signals{Threads: factions, Input: about},
		Filter:  retrieve.Filter{Packs: []string{k.Campaign}, ContentTypes: []string{"lore", "world", "faction", "setting"}},
		Budget:  k.budget().Campaign,
	})
	return ps, c.Cuts, err
}

// section runs one query as the GM (the cache keeps access levels and is
// projected per reader) and keeps passages not already in the cache.
func (k *Keeper) section(ctx context.Context, c *Cache, seen map[string]bool, name string, q retrieve.Query) ([]Passage, error) {
	q.Role = access.GM
	q.Explain = true
	if q.Text == "" && q.Signals != nil {
		q.Text = retrieve.BuildQuery(*q.Signals)
	}
	res, err := k.Index.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %s lore: %w", name, err)
	}
	var out []Passage
	for _, p := range res.Passages {
		if seen[p.Chunk.ID] {
			continue
		}
		seen[p.Chunk.ID] = true
		out = append(out, passage(p))
	}
	for _, p := range res.Considered {
		if p.Trace.Cut != "" {
			c.Cuts = append(c.Cuts, Cut{ID: p.Chunk.ID, Section: name, Reason: string(p.Trace.Cut), Why: why(p.Trace)})
		}
	}
	return out, nil
}

func passage(p retrieve.Passage) Passage {
	src := p.Chunk.File
	if h := p.Chunk.Heading(); h != "" {
		src += " › " + h
	}
	return Passage{ID: p.Chunk.ID, Source: src, Text: p.Chunk.Text, Tokens: p.Chunk.Tokens, Access: p.Chunk.Access, Score: p.Score, Why: why(p.Trace)}
}

func why(t retrieve.Trace) string {
	var parts []string
	for _, s := range t.Signals {
		parts = append(parts, fmt.Sprintf("%s#%d", s.Kind, s.Rank))
	}
	return strings.Join(parts, " ")
}

// Present lists the characters in the player's location other than the
// player, in id order.
func Present(w *world.State) []string {
	pc := w.Characters[w.Player]
	if pc == nil {
		return nil
	}
	var out []string
	for _, id := range sortedKeys(w.Characters) {
		ch := w.Characters[id]
		if id != w.Player && ch.Location == pc.Location && ch.Location != "" {
			out = append(out, id)
		}
	}
	return out
}

func discoverables(w *world.State, loc string) ([]string, string) {
	l := w.Locations[loc]
	if l == nil {
		return nil, ""
	}
	var ids, text []string
	for _, id := range sortedKeys(l.Items) {
		ids = append(ids, id)
		if it := w.Items[id]; it != nil {
			text = append(text, it.Name)
		}
	}
	for _, d := range l.Discoverables {
		if d.Item != "" {
			ids = append(ids, d.Item)
		}
		text = append(text, d.Text)
	}
	if len(ids) == 0 {
		ids = []string{loc}
	}
	return ids, strings.Join(text, " ")
}

// openThreads lists the titles of open threads and active quests.
func openThreads(w *world.State) (titles []string) {
	for _, id := range sortedKeys(w.Threads) {
		t := w.Threads[id]
		if t.Status == "" || t.Status == "open" {
			titles = append(titles, t.Title)
		}
	}
	for _, id := range sortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Status == "active" || q.Status == "" {
			titles = append(titles, q.Name)
		}
	}
	return titles
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
