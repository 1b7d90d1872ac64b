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

	memo sceneMemo
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
// scene begins; the result is stored with the turn that began it. When
// the index can say its results for these exact queries are fixed
// (keptIndex), the scene is prepared once per index state and handed out
// again on the next entry into the scene as it stands.
func (k *Keeper) Scene(ctx context.Context, w *world.State) (*Cache, error) {
	loc := w.Scene.Location
	if loc == "" && w.Characters[w.Player] != nil {
		loc = w.Characters[w.Player].Location
	}
	c := &Cache{Scene: w.Scene.Number, Location: loc}
	if c.Pending = k.Building.Pending(); c.Pending != "" {
		return c, nil
	}
	plan := k.scenePlan(w, loc)
	kept, _ := k.Index.(keptIndex)
	var key string
	var gen string
	if kept != nil {
		var err error
		if gen, err = kept.Generation(ctx); err != nil {
			kept = nil // prepare it afresh; the searches report the error
		} else if key = memoKey(c, plan); key != "" {
			if hit := k.memo.get(gen, key); hit != nil {
				return hit, nil
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range plan {
		ps, err := k.search(ctx, c, seen, p.section, p.q)
		if err != nil {
			return nil, err
		}
		switch p.section {
		case "atmosphere":
			c.Atmosphere = ps
		case "npc_briefings":
			c.NPCBriefings = append(c.NPCBriefings, Briefing{Character: p.character, Name: p.name, Passages: ps})
		case "discoverable":
			c.Discoverable = ps
		case "thread_connections":
			c.ThreadConnections = ps
		}
	}
	if kept != nil && key != "" && kept.Kept(gen, plan.queries()) {
		k.memo.put(gen, key, c)
	}
	return c, nil
}

// planned is one search of a scene's lore: its section, the character
// briefed (npc_briefings), and the query as the index receives it.
type planned struct {
	section, character, name string
	q                        retrieve.Query
}

type scenePlan []planned

func (p scenePlan) queries() []retrieve.Query {
	qs := make([]retrieve.Query, len(p))
	for i := range p {
		qs[i] = p[i].q
	}
	return qs
}

// scenePlan lists the searches Scene runs for w at loc, in order: the
// atmosphere, a briefing per character present, what can be discovered,
// and the open threads.
func (k *Keeper) scenePlan(w *world.State, loc string) scenePlan {
	b := k.budget()
	name, about := loc, ""
	if l := w.Locations[loc]; l != nil {
		name, about = l.Name, l.Description
	}
	plan := scenePlan{{section: "atmosphere", q: sectionQuery(retrieve.Query{
		Signals: &retrieve.Signals{Location: name, Input: about},
		Filter:  retrieve.Filter{Packs: k.Packs, EntityIDs: []string{k.ns(loc)}},
		Budget:  b.Atmosphere,
	})}}
	for _, id := range Present(w) {
		plan = append(plan, k.briefPlan(w, id))
	}
	if ids, text := discoverables(w, loc); len(ids) > 0 {
		for i := range ids {
			ids[i] = k.ns(ids[i])
		}
		plan = append(plan, planned{section: "discoverable", q: sectionQuery(retrieve.Query{
			Text:   text,
			Filter: retrieve.Filter{Packs: k.Packs, EntityIDs: ids},
			Budget: b.Discoverable,
		})})
	}
	// Threads are found by what they are about: their titles, not their ids.
	if titles := openThreads(w); len(titles) > 0 {
		plan = append(plan, planned{section: "thread_connections", q: sectionQuery(retrieve.Query{
			Signals: &retrieve.Signals{Location: name, Threads: titles},
			Filter:  retrieve.Filter{Packs: k.Packs},
			Budget:  b.Threads,
		})})
	}
	return plan
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
	p := k.briefPlan(w, id)
	ps, err := k.search(ctx, c, seen, p.section, p.q)
	if err != nil {
		return err
	}
	c.NPCBriefings = append(c.NPCBriefings, Briefing{Character: p.character, Name: p.name, Passages: ps})
	return nil
}

// briefPlan is the search for the briefing on character id.
func (k *Keeper) briefPlan(w *world.State, id string) planned {
	ch := w.Characters[id]
	name := id
	if ch != nil && ch.Name != "" {
		name = ch.Name
	}
	return planned{section: "npc_briefings", character: id, name: name, q: sectionQuery(retrieve.Query{
		Signals: &retrieve.Signals{Present: []string{name}},
		Filter:  retrieve.Filter{Packs: k.Packs, EntityIDs: []string{k.ns(id)}},
		Budget:  k.budget().Briefing,
	})}
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
	return k.search(ctx, c, seen, name, sectionQuery(q))
}

// sectionQuery is q as a section asks it: as the GM, explained, and with
// its signals written out as text when it has none.
func sectionQuery(q retrieve.Query) retrieve.Query {
	q.Role = access.GM
	q.Explain = true
	if q.Text == "" && q.Signals != nil {
		q.Text = retrieve.BuildQuery(*q.Signals)
	}
	return q
}

// search runs a section's query (made by sectionQuery), keeping the
// passages not already seen and noting the cuts in c.
func (k *Keeper) search(ctx context.Context, c *Cache, seen map[string]bool, name string, q retrieve.Query) ([]Passage, error) {
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
