package sqliteindex

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

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
				ID:          fmt.Sprintf("core/notes-%d-%s.md#0", l, c),
				Corpus:      c,
				Pack:        "core",
				File:        fmt.Sprintf("notes-%d-%s.md", l, c),
				Section:     []string{"The Drowned Bell", "Word " + m},
				SourceType:  chunk.Prose,
				ContentType: "npc",
				EntityID:    "core:keeper",
				Refs:        []string{"core:bell"},
				Location:    "core:saltmere",
				Faction:     "wardens",
				Threads:     []string{"drowned-bell"},
				Tags:        []string{"bell", "coast"},
				Tier:        3,
				Access:      l,
				Text:        "The drowned bell lies beneath Saltmere harbour. The keeper knows the word " + m + " and hides it in the lantern room.",
				Turn:        7,
			})
		}
	}
	return docs
}

func marker(l access.Level, c chunk.Corpus) string { return fmt.Sprintf("zq%dx%s", int(l), c) }

func TestRoleIsolation(t *testing.T) {
	ctx := context.Background()
	docs := secretDocs()
	indexes := map[string]*Index{
		"no embedder":      openTest(t),
		"hashing embedder": openTest(t, WithEmbedder(embedding.NewHashing(64))),
	}
	for _, ix := range indexes {
		for _, d := range docs {
			if err := ix.Upsert(ctx, d.Pack, d.File, "h", []chunk.Chunk{d}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var gmText = map[chunk.Corpus]string{}
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

	searches := 0
	for ixName, ix := range indexes {
		for _, role := range []access.Level{0, access.Player, access.Trusted, access.Assistant, access.GM} {
			for fName, f := range filters {
				for _, qq := range queries {
					for _, explain := range []bool{false, true} {
						q := retrieve.Query{Text: qq.text, Signals: qq.signals, Filter: f, Role: role, Explain: explain, Limit: 20}
						res := search(t, ix, q)
						searches++
						var out strings.Builder
						if err := retrieve.Explain(&out, res); err != nil {
							t.Fatal(err)
						}
						where := fmt.Sprintf("%s, role %v, filter %q, query %.40q, explain %v", ixName, role, fName, q.FullText(), explain)
						for _, p := range append(append([]retrieve.Passage(nil), res.Passages...), res.Considered...) {
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
						// Controls, so the test can fail the other way: what
						// the role may see is found, and what it may not is
						// counted.
						named := qq.names != "" && f.Match(chunk.Chunk{Corpus: qq.names, Pack: "core", Location: "core:saltmere", Faction: "wardens",
							Tags: []string{"bell", "coast"}, Threads: []string{"drowned-bell"}, EntityID: "core:keeper", Refs: []string{"core:bell"}, ContentType: "npc"})
						matchable := fName != "matches none?" && (!qq.onlyGM || role == access.GM && named)
						if matchable && len(res.Passages) == 0 {
							t.Fatalf("%s: found nothing", where)
						}
						if role == access.GM && named {
							if !strings.Contains(dump, marker(access.GM, qq.names)) {
								t.Fatalf("%s: the GM does not find the GM-only chunk it names", where)
							}
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
	t.Logf("%d searches", searches)
}
