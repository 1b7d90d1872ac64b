package indextest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// lore is a small campaign: rules, a town, a keeper and a monster, a few
// paragraphs each, as a pack would hold them.
var lore = map[string][]string{
	"rules/combat.md": {
		"Grappling. When you want to grab a creature or wrestle with it, you can use the Attack action to make a special melee attack, a grapple. The target must be no more than one size larger than you. Make a Strength (Athletics) check contested by the target's Strength (Athletics) or Dexterity (Acrobatics) check. A grappled creature's speed becomes 0.",
		"Opportunity attacks. You can make an opportunity attack when a hostile creature that you can see moves out of your reach. To make the opportunity attack, you use your reaction to make one melee attack against the provoking creature.",
		"Cover. Walls, trees, creatures and other obstacles can provide cover during combat. A target with half cover has a +2 bonus to AC and Dexterity saving throws; three-quarters cover gives +5.",
	},
	"rules/resting.md": {
		"Short rest. A short rest is a period of downtime, at least one hour long, during which a character does nothing more strenuous than eating, drinking, reading and tending to wounds. A character can spend Hit Dice at the end of a short rest.",
		"Long rest. A long rest is a period of extended downtime, at least eight hours long, during which a character sleeps or performs light activity. At the end of a long rest, a character regains all lost hit points.",
	},
	"places/saltmere.md": {
		"Saltmere is a fishing town built around a crescent harbour on the grey coast. Its lighthouse has stood dark since the great storm, and the fishing boats come home by lantern.",
		"The Drowned Bell is the harbour tavern. It serves smoked eel, black bread and cheap brandy smuggled past the wardens who watch the quay.",
	},
	"npcs/mara.md": {
		"Mara Venn keeps the old lighthouse alone. She lost her brother to the storm, trims the wicks each dusk, and distrusts the wardens.",
	},
	"monsters/basilisk.md": {
		"Basilisk. A reptile whose gaze turns flesh to stone. A creature that meets its eyes must succeed on a Constitution saving throw or begin to petrify, and is fully petrified if it fails again.",
	},
}

// loreFiles returns the campaign's files in name order, or reversed.
func loreFiles(reverse bool) []string {
	var files []string
	for f := range lore {
		files = append(files, f)
	}
	slices.Sort(files)
	if reverse {
		slices.Reverse(files)
	}
	return files
}

func fillLore(t *testing.T, ix retrieve.Index, reverse bool) {
	t.Helper()
	for _, f := range loreFiles(reverse) {
		var cs []chunk.Chunk
		for i, text := range lore[f] {
			cs = append(cs, chunk.Chunk{Ordinal: i, Text: text, SourceType: chunk.Prose})
		}
		upsert(t, ix, "camp", f, cs...)
	}
}

// questions and the passage that answers each.
var questions = []struct{ q, want string }{
	{"how does grappling work", "camp/rules/combat.md#0"},
	{"attack when an enemy moves out of reach", "camp/rules/combat.md#1"},
	{"half cover bonus to AC", "camp/rules/combat.md#2"},
	{"regain hit points after sleeping eight hours", "camp/rules/resting.md#1"},
	{"spend hit dice during a short rest", "camp/rules/resting.md#0"},
	{"who keeps the lighthouse", "camp/npcs/mara.md#0"},
	{"where can I buy brandy", "camp/places/saltmere.md#1"},
	{"turned to stone by its gaze", "camp/monsters/basilisk.md#0"},
}

func testRanking(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	for _, o := range []Options{{}, {Embedder: embedding.NewHashing(256)}} {
		ix := open(t, o)
		fillLore(t, ix, false)
		for _, qa := range questions {
			r := search(t, ix, retrieve.Query{Text: qa.q, Limit: 3})
			if len(r.Passages) == 0 || r.Passages[0].Chunk.ID != qa.want {
				t.Errorf("embedder %v: %q found %v, want %s first", o.Embedder != nil, qa.q, idsOf(r.Passages), qa.want)
				continue
			}
			sig := r.Passages[0].Trace.Signals
			if len(sig) == 0 || sig[0].Kind != retrieve.FullText || sig[0].Rank != 1 || sig[0].Score <= 0 {
				t.Errorf("embedder %v: %q: signals %+v, want full text #1 with a positive score", o.Embedder != nil, qa.q, sig)
			}
			for i := 1; i < len(r.Passages); i++ {
				if r.Passages[i].Score > r.Passages[i-1].Score {
					t.Errorf("%q: passages out of score order: %v", qa.q, r.Passages)
				}
			}
		}
		// Stemming: a form of the word the text does not use.
		if r := search(t, ix, retrieve.Query{Text: "petrifying", Limit: 1}); len(r.Passages) != 1 || r.Passages[0].Chunk.ID != "camp/monsters/basilisk.md#0" {
			t.Errorf("stemmed query found %v", idsOf(r.Passages))
		}
		// Structured scene signals build the query.
		r := search(t, ix, retrieve.Query{Signals: &retrieve.Signals{Location: "Saltmere", Present: []string{"Mara Venn"}, Input: "I ask about the lighthouse"}, Limit: 3})
		if len(r.Passages) == 0 || r.Passages[0].Chunk.ID != "camp/npcs/mara.md#0" {
			t.Errorf("signals found %v, want Mara first", idsOf(r.Passages))
		}
	}
}

// filterDocs are chunks with metadata spread so each filter field
// separates them differently. Every text mentions the harbour.
func filterDocs() []chunk.Chunk {
	return []chunk.Chunk{
		{ID: "a", Pack: "core", File: "npcs.md", Ordinal: 0, ContentType: "npc", EntityID: "core:mara", Refs: []string{"core:tam"},
			Location: "core:saltmere", Faction: "wardens", Threads: []string{"bell"}, Tags: []string{"coast", "npc-tag"}, Tier: 2,
			Text: "Mara keeps the harbour light."},
		{ID: "b", Pack: "core", File: "places.md", Ordinal: 0, ContentType: "location", EntityID: "core:saltmere",
			Location: "core:saltmere", Tags: []string{"coast"}, Tier: 1,
			Text: "Saltmere is a fishing town around a harbour."},
		{ID: "c", Pack: "extra", File: "npcs.md", Ordinal: 0, ContentType: "npc", EntityID: "extra:vex", Refs: []string{"core:mara"},
			Faction: "smugglers", Threads: []string{"bell", "heist"}, Tags: []string{"crime"}, Tier: 3,
			Text: "Vex smuggles brandy through the harbour."},
		{ID: "d", Pack: "extra", File: "rules.md", Ordinal: 0, ContentType: "rules", Tags: []string{"rules", "coast", "crime"},
			Text: "Smuggling checks at the harbour use Stealth."},
		{ID: "e", Corpus: chunk.History, Pack: "camp", File: "turns.md", Ordinal: 0, ContentType: "event", Refs: []string{"core:mara"},
			Location: "core:saltmere", Threads: []string{"heist"}, Tier: 5, Turn: 12,
			Text: "Turn 12: the party met Mara at the harbour."},
	}
}

func testFilters(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	docs := filterDocs()
	indexes := map[string]retrieve.Index{"no embedder": open(t, Options{}), "hashing embedder": open(t, Options{Embedder: embedding.NewHashing(64)})}
	for _, ix := range indexes {
		for _, d := range docs {
			upsert(t, ix, d.Pack, d.File, d)
		}
	}
	tests := []struct {
		name string
		f    retrieve.Filter
		want string // sorted ids
	}{
		{"none", retrieve.Filter{}, "a b c d e"},
		{"one pack", retrieve.Filter{Packs: []string{"core"}}, "a b"},
		{"two packs", retrieve.Filter{Packs: []string{"core", "extra"}}, "a b c d"},
		{"pack excluded", retrieve.Filter{ExcludePacks: []string{"core"}}, "c d e"},
		{"pack included and excluded", retrieve.Filter{Packs: []string{"core", "extra"}, ExcludePacks: []string{"extra"}}, "a b"},
		{"entity as id or ref", retrieve.Filter{EntityIDs: []string{"core:mara"}}, "a c e"},
		{"entity as ref only", retrieve.Filter{EntityIDs: []string{"core:tam"}}, "a"},
		{"location", retrieve.Filter{Location: "core:saltmere"}, "a b e"},
		{"faction", retrieve.Filter{Faction: "smugglers"}, "c"},
		{"thread", retrieve.Filter{Threads: []string{"bell"}}, "a c"},
		{"threads", retrieve.Filter{Threads: []string{"heist", "nope"}}, "c e"},
		{"content types", retrieve.Filter{ContentTypes: []string{"npc", "rules"}}, "a c d"},
		{"tags any", retrieve.Filter{Tags: []string{"crime", "npc-tag"}}, "a c d"},
		{"tags all", retrieve.Filter{Tags: []string{"coast", "crime"}, TagMatch: retrieve.All}, "d"},
		{"tags all, one tag", retrieve.Filter{Tags: []string{"coast"}, TagMatch: retrieve.All}, "a b d"},
		{"tags all, repeated", retrieve.Filter{Tags: []string{"coast", "coast", ""}, TagMatch: retrieve.All}, "a b d"},
		{"history corpus", retrieve.Filter{Corpora: []chunk.Corpus{chunk.History}}, "e"},
		{"lore corpus", retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}, "a b c d"},
		{"empty corpus means lore", retrieve.Filter{Corpora: []chunk.Corpus{""}}, "a b c d"},
		{"combined", retrieve.Filter{Packs: []string{"core"}, Location: "core:saltmere", Tags: []string{"coast"}}, "a b"},
		{"nothing", retrieve.Filter{Faction: "nobody"}, ""},
		{"blank values allow all", retrieve.Filter{Packs: []string{""}, Tags: []string{""}}, "a b c d e"},
	}
	for ixName, ix := range indexes {
		for _, tt := range tests {
			// The reference semantics agree with the table.
			var ref []string
			for _, d := range docs {
				if tt.f.Match(d) {
					ref = append(ref, d.ID)
				}
			}
			if got := strings.Join(ref, " "); got != tt.want {
				t.Errorf("%s: Filter.Match selects %q, want %q", tt.name, got, tt.want)
			}
			for _, text := range []string{"", "harbour"} {
				r := search(t, ix, retrieve.Query{Text: text, Filter: tt.f, Role: access.GM, Limit: 50})
				if got := sortedIDs(r.Passages); got != tt.want {
					t.Errorf("%s, %s, text %q: got %q, want %q", ixName, tt.name, text, got, tt.want)
				}
			}
		}
	}
}

func testMetadataOrder(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{})
	for _, d := range filterDocs() {
		upsert(t, ix, d.Pack, d.File, d)
	}
	// Two more chunks of one file, to check file order within a tier.
	upsert(t, ix, "core", "more.md", chunk.Chunk{ID: "m1", Ordinal: 1, Tier: 1, Text: "second"}, chunk.Chunk{ID: "m0", Ordinal: 0, Tier: 1, Text: "first"})
	r := search(t, ix, retrieve.Query{Role: access.GM, Limit: 50, Explain: true})
	// Tier 1 (b, then m0 and m1 in file order), 2, 3, 5, and unset last.
	if got, want := strings.Join(idsOf(r.Passages), " "), "m0 m1 b a c e d"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	for _, p := range r.Passages {
		if len(p.Trace.Signals) != 1 || p.Trace.Signals[0].Kind != retrieve.Metadata {
			t.Errorf("%s: signals %+v, want one metadata signal", p.Chunk.ID, p.Trace.Signals)
		}
	}
	// Only stopwords and operators: no words to search, so the same order.
	r2 := search(t, ix, retrieve.Query{Text: "AND OR the of", Role: access.GM, Limit: 50})
	if got := strings.Join(idsOf(r2.Passages), " "); got != "m0 m1 b a c e d" {
		t.Errorf("stopword-only query: order %q", got)
	}
}

func testVector(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{Embedder: embedding.NewHashing(256)})
	upsert(t, ix, "core", "npcs.md",
		chunk.Chunk{Ordinal: 0, Text: "The necromancer raises skeletons in the crypt."},
		chunk.Chunk{Ordinal: 1, Text: "The baker sells bread at dawn."})
	// Misspelt: no full-text match, but the character trigrams are close.
	r := search(t, ix, retrieve.Query{Text: "necromancr skeletns", Explain: true})
	if len(r.Passages) == 0 || r.Passages[0].Chunk.ID != "core/npcs.md#0" {
		t.Fatalf("got %v, want the necromancer first", idsOf(r.Passages))
	}
	sig := r.Passages[0].Trace.Signals
	if len(sig) != 1 || sig[0].Kind != retrieve.Vector || sig[0].Rank != 1 || sig[0].Score <= 0 {
		t.Errorf("signals %+v, want the vector ranking alone", sig)
	}
	// A word both find: fused from both rankings, full text first.
	r = search(t, ix, retrieve.Query{Text: "necromancer crypt"})
	if sig := r.Passages[0].Trace.Signals; len(sig) != 2 || sig[0].Kind != retrieve.FullText || sig[1].Kind != retrieve.Vector || r.Passages[0].Trace.Fused <= 0 {
		t.Errorf("trace %+v, want full text and vector fused", r.Passages[0].Trace)
	}
	// Without an embedder the misspelling finds nothing.
	plain := open(t, Options{})
	upsert(t, plain, "core", "npcs.md", chunk.Chunk{Ordinal: 0, Text: "The necromancer raises skeletons in the crypt."})
	if r := search(t, plain, retrieve.Query{Text: "necromancr skeletns"}); len(r.Passages) != 0 {
		t.Errorf("without vectors a misspelling found %v", idsOf(r.Passages))
	}
}

func testBudget(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{})
	upsert(t, ix, "core", "wyvern.md",
		chunk.Chunk{Ordinal: 0, Text: "The wyvern roosts on the cliff.", Tokens: 40},
		chunk.Chunk{Ordinal: 1, Text: "The wyvern's sting is poisonous. " + strings.Repeat("It hunts goats. ", 10), Tokens: 100},
		chunk.Chunk{Ordinal: 2, Text: "A wyvern egg fetches a fortune.", Tokens: 30})
	// The same text again in another file: a duplicate.
	upsert(t, ix, "extra", "copy.md", chunk.Chunk{Text: "the wyvern roosts on  the cliff.", Tokens: 40})
	r := search(t, ix, retrieve.Query{Text: "wyvern", Budget: 80, Explain: true})
	if r.Tokens > 80 {
		t.Errorf("kept %d tokens over a budget of 80", r.Tokens)
	}
	cuts := map[retrieve.Reason]int{}
	for _, p := range r.Considered {
		cuts[p.Trace.Cut]++
	}
	if cuts[retrieve.Kept] != 2 || cuts[retrieve.CutDuplicate] != 1 || cuts[retrieve.CutBudget] != 1 {
		t.Errorf("cuts %v, want 2 kept, 1 duplicate, 1 budget; considered %v", cuts, idsOf(r.Considered))
	}
	if len(r.Passages) != 2 || r.Tokens != 70 {
		t.Errorf("kept %v (%d tokens), want the two short chunks (70)", idsOf(r.Passages), r.Tokens)
	}
	// No budget: everything but the duplicate; limit 1: the best only.
	if r := search(t, ix, retrieve.Query{Text: "wyvern"}); len(r.Passages) != 3 || r.Considered != nil {
		t.Errorf("no budget: kept %v, considered %v", idsOf(r.Passages), r.Considered)
	}
	if r := search(t, ix, retrieve.Query{Text: "wyvern", Limit: 1, Explain: true}); len(r.Passages) != 1 || len(r.Considered) != 4 {
		t.Errorf("limit 1: kept %v of %v", idsOf(r.Passages), idsOf(r.Considered))
	}
}

func testExplain(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	ix := open(t, Options{})
	upsert(t, ix, "core", "bell.md",
		chunk.Chunk{Ordinal: 0, Section: []string{"Bell"}, Text: "The bell tolls at midnight.", Tokens: 50},
		chunk.Chunk{Ordinal: 1, Section: []string{"Bell"}, Text: "The bell was cast in bronze.", Tokens: 50},
		chunk.Chunk{Ordinal: 2, Section: []string{"Secret"}, Text: "The bell hides a map.", Access: access.GM, Tokens: 5})
	r := search(t, ix, retrieve.Query{Text: "bell", Budget: 60, Explain: true})
	if len(r.Considered) != 2 || r.Withheld != 1 {
		t.Errorf("considered %v, withheld %d; want the two player chunks and one withheld", idsOf(r.Considered), r.Withheld)
	}
	for _, p := range r.Considered {
		if len(p.Trace.Signals) == 0 || p.Trace.Fused <= 0 {
			t.Errorf("%s: no trace: %+v", p.Chunk.ID, p.Trace)
		}
	}
	var out strings.Builder
	if err := retrieve.Explain(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"core/bell.md#", "bell.md", "Bell", "fulltext #1", "kept", "cut: budget", "1 more matched but were cut: role"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "map") || strings.Contains(out.String(), "Secret") {
		t.Errorf("explanation shows the withheld chunk:\n%s", out.String())
	}
	// Without Explain: no list of examined passages, nothing counted.
	if r := search(t, ix, retrieve.Query{Text: "bell"}); r.Considered != nil || r.Withheld != 0 || len(r.Passages) != 2 {
		t.Errorf("without explain: %+v", r)
	}
	// The GM reads the secret too, and nothing is withheld.
	if r := search(t, ix, retrieve.Query{Text: "bell map", Role: access.GM, Explain: true}); r.Withheld != 0 || len(r.Passages) == 0 || r.Passages[0].Chunk.Section[0] != "Secret" {
		t.Errorf("GM: %v, withheld %d", idsOf(r.Passages), r.Withheld)
	}
}

// testDeterministic indexes the same lore in two orders and asks the same
// questions twice of each: the results must not differ.
func testDeterministic(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	var results [][]retrieve.Result
	for _, reverse := range []bool{false, true} {
		ix := open(t, Options{Embedder: embedding.NewHashing(64)})
		fillLore(t, ix, reverse)
		var rs []retrieve.Result
		for i, qa := range questions {
			q := retrieve.Query{Text: qa.q + " the lighthouse storm", Explain: true, Limit: 1 + i%4, Budget: 400}
			a, b := search(t, ix, q), search(t, ix, q)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: two runs differ:\n%+v\n%+v", q.Text, a, b)
			}
			rs = append(rs, a)
		}
		results = append(results, rs)
	}
	for i := range results[0] {
		if !reflect.DeepEqual(results[0][i], results[1][i]) {
			t.Errorf("%q: the result depends on the order the files were indexed in:\n%v\n%v", questions[i].q,
				idsOf(results[0][i].Considered), idsOf(results[1][i].Considered))
		}
	}
}

// secretDocs returns one chunk per corpus and access level. All share
// their prose and every filterable field, so every filter variant and
// every query matches all of them; each holds a unique marker word that
// only a reader of its level may ever see.
func secretDocs() []chunk.Chunk {
	var docs []chunk.Chunk
	for _, c := range []chunk.Corpus{chunk.Lore, chunk.History} {
		for _, l := range []access.Level{access.Player, access.Trusted, access.Assistant, access.GM} {
			m := marker(l, c)
			docs = append(docs, chunk.Chunk{
				ID: fmt.Sprintf("core/notes-%d-%s.md#0", l, c), Corpus: c, Pack: "core", File: fmt.Sprintf("notes-%d-%s.md", l, c),
				Section: []string{"The Drowned Bell", "Word " + m}, SourceType: chunk.Prose, ContentType: "npc",
				EntityID: "core:keeper", Refs: []string{"core:bell"}, Location: "core:saltmere", Faction: "wardens",
				Threads: []string{"drowned-bell"}, Tags: []string{"bell", "coast"}, Tier: 3, Access: l, Turn: 7,
				Text: "The drowned bell lies beneath Saltmere harbour. The keeper knows the word " + m + " and hides it in the lantern room.",
			})
		}
	}
	return docs
}

func marker(l access.Level, c chunk.Corpus) string { return fmt.Sprintf("zq%dx%s", int(l), c) }

// checkRole fails when a result, or its explanation, holds anything of a
// chunk role may not see.
func checkRole(t *testing.T, where string, role access.Level, docs []chunk.Chunk, res retrieve.Result) {
	t.Helper()
	var out strings.Builder
	if err := retrieve.Explain(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(slices.Clone(res.Passages), res.Considered...) {
		if !role.CanSee(p.Chunk.Access) {
			t.Fatalf("%s: chunk %s (access %v) in the result", where, p.Chunk.ID, p.Chunk.Access)
		}
	}
	dump := fmt.Sprintf("%#v", res) + out.String()
	for _, d := range docs {
		if role.CanSee(d.Access) {
			continue
		}
		for _, leak := range []string{marker(d.Access, d.Corpus), d.ID, d.File} {
			if strings.Contains(dump, leak) {
				t.Fatalf("%s: %q of a %v chunk appears in the result or its explanation:\n%s", where, leak, d.Access, out.String())
			}
		}
	}
}

func testRoleIsolation(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	docs := secretDocs()
	indexes := map[string]retrieve.Index{"no embedder": open(t, Options{}), "hashing embedder": open(t, Options{Embedder: embedding.NewHashing(64)})}
	for _, ix := range indexes {
		for _, d := range docs {
			upsert(t, ix, d.Pack, d.File, d)
		}
	}
	gmText := map[chunk.Corpus]string{}
	for _, d := range docs {
		if d.Access == access.GM {
			gmText[d.Corpus] = d.Text
		}
	}
	filters := map[string]retrieve.Filter{
		"none":          {},
		"pack":          {Packs: []string{"core"}},
		"location":      {Location: "core:saltmere"},
		"faction":       {Faction: "wardens"},
		"tags any":      {Tags: []string{"bell", "forest"}},
		"tags all":      {Tags: []string{"bell", "coast"}, TagMatch: retrieve.All},
		"threads":       {Threads: []string{"drowned-bell"}},
		"entity id":     {EntityIDs: []string{"core:keeper"}},
		"entity ref":    {EntityIDs: []string{"core:bell"}},
		"content type":  {ContentTypes: []string{"npc"}},
		"corpus lore":   {Corpora: []chunk.Corpus{chunk.Lore}},
		"corpus hist":   {Corpora: []chunk.Corpus{chunk.History}},
		"all at once":   {Packs: []string{"core"}, Location: "core:saltmere", Faction: "wardens", Tags: []string{"coast"}, Threads: []string{"drowned-bell"}, EntityIDs: []string{"core:bell"}, ContentTypes: []string{"npc"}, Corpora: []chunk.Corpus{chunk.Lore, chunk.History}},
		"matches none?": {Packs: []string{"core"}, Tags: []string{"bell", "forest"}, TagMatch: retrieve.All},
	}
	type query struct {
		text    string
		signals *retrieve.Signals
		names   chunk.Corpus // the corpus whose GM chunk the query names, if any
		onlyGM  bool         // its words are in the GM chunk alone
	}
	var queries []query
	for _, c := range []chunk.Corpus{chunk.Lore, chunk.History} {
		queries = append(queries,
			query{text: gmText[c], names: c},                          // the GM-only text, word for word
			query{text: marker(access.GM, c), names: c, onlyGM: true}, // just its secret word
			query{signals: &retrieve.Signals{Location: "Saltmere", Input: gmText[c]}, names: c},
		)
	}
	queries = append(queries, query{}) // no text: filter matches by precedence

	for ixName, ix := range indexes {
		for _, role := range []access.Level{0, access.Player, access.Trusted, access.Assistant, access.GM} {
			for fName, f := range filters {
				for _, qq := range queries {
					for _, explain := range []bool{false, true} {
						q := retrieve.Query{Text: qq.text, Signals: qq.signals, Filter: f, Role: role, Explain: explain, Limit: 20}
						res := search(t, ix, q)
						where := fmt.Sprintf("%s, role %v, filter %q, query %.40q, explain %v", ixName, role, fName, q.FullText(), explain)
						checkRole(t, where, role, docs, res)
						// Controls, so the test can fail the other way: what
						// the role may see is found, and what it may not is
						// counted.
						named := qq.names != "" && f.Match(chunk.Chunk{Corpus: qq.names, Pack: "core", Location: "core:saltmere", Faction: "wardens",
							Tags: []string{"bell", "coast"}, Threads: []string{"drowned-bell"}, EntityID: "core:keeper", Refs: []string{"core:bell"}, ContentType: "npc"})
						matchable := fName != "matches none?" && (!qq.onlyGM || role == access.GM && named)
						if matchable && len(res.Passages) == 0 {
							t.Fatalf("%s: found nothing", where)
						}
						if role == access.GM && named && !strings.Contains(fmt.Sprintf("%#v", res), marker(access.GM, qq.names)) {
							t.Fatalf("%s: the GM does not find the GM-only chunk it names", where)
						}
						if explain && role.CanSee(access.GM) && res.Withheld != 0 {
							t.Fatalf("%s: Withheld = %d for the GM", where, res.Withheld)
						}
						if explain && !role.CanSee(access.GM) && fName == "none" && res.Withheld == 0 {
							t.Fatalf("%s: Withheld = 0, want the hidden matches counted", where)
						}
					}
				}
			}
		}
	}
}

// testHostileQueries sends text full of full-text syntax: nothing fails,
// operators are searched as words, and no syntax reaches a chunk above
// the reader's role.
func testHostileQueries(t *testing.T, open func(*testing.T, Options) retrieve.Index) {
	docs := secretDocs()
	ix := open(t, Options{Embedder: embedding.NewHashing(32)})
	for _, d := range docs {
		upsert(t, ix, d.Pack, d.File, d)
	}
	upsert(t, ix, "core", "gate.md", chunk.Chunk{Text: "The near gate and the star tower; NEAR the AND gate."})
	gm := marker(access.GM, chunk.Lore)
	texts := []string{
		`"`, `""`, `"unclosed`, `NEAR(`, `NEAR(gate tower, 2)`, `*`, `gate*`, `-`, `-gate`, `AND OR`, `AND`, `NOT gate`,
		`gate OR`, `(`, `)`, `text:gate`, `{heading text}: gate`, `^gate`, `'`, `;DROP TABLE lore_chunks;--`,
		"\x00", "gate\x00tower", "ｇａｔｅ", "日本語の塔", "🔥🐉", "Ünïcödé façade", "a\u0301", strings.Repeat("gate ", 3000),
		strings.Repeat("x", 300), "\xff\xfe",
		// Reaching for the GM's chunk through syntax.
		gm, `"` + gm + `"`, gm + "*", "zq4*", "zq*", `text:` + gm, `{text heading}: ` + gm, `NEAR(` + gm + ` lantern)`,
		gm + ` OR bell`, `bell NOT ` + gm, `access:4`, `access: gm_only`, `* OR zq4xlore`, `"zq4xlore" AND "keeper"`,
		`' OR 1=1 --`, `") OR access >= 0 --`,
	}
	for _, text := range texts {
		for _, role := range []access.Level{access.Player, access.Trusted, access.Assistant} {
			for _, explain := range []bool{false, true} {
				res, err := ix.Search(ctx, retrieve.Query{Text: text, Explain: explain, Role: role, Limit: 50})
				if err != nil {
					t.Errorf("Search(%.30q): %v", text, err)
					continue
				}
				checkRole(t, fmt.Sprintf("role %v, query %.40q", role, text), role, docs, res)
			}
		}
	}
	if r := search(t, ix, retrieve.Query{Text: `NEAR(gate`}); len(r.Passages) != 1 || r.Passages[0].Chunk.ID != "core/gate.md#0" {
		t.Errorf("operator words are searched as words: got %v", idsOf(r.Passages))
	}
	// Control: the GM finds the marker the others may not.
	if r := search(t, ix, retrieve.Query{Text: `"` + gm + `"`, Role: access.GM}); len(r.Passages) == 0 || r.Passages[0].Chunk.Access != access.GM {
		t.Errorf("the GM does not find its own chunk: %v", idsOf(r.Passages))
	}
}
