package retrieve

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/chunk"
)

func TestBuildQuery(t *testing.T) {
	tests := []struct {
		name string
		s    Signals
		want string
	}{
		{"empty", Signals{}, ""},
		{
			"all parts, most specific first",
			Signals{
				Location: "Saltmere Lighthouse",
				Present:  []string{"Mara Voss", "Old Tam"},
				Threads:  []string{"The Drowned Bell", "smuggling"},
				Recent:   "The lantern went dark.",
				Input:    "I ask Mara about the bell",
			},
			"Saltmere Lighthouse\nMara Voss, Old Tam\nsmuggling, The Drowned Bell\nThe lantern went dark.\nI ask Mara about the bell",
		},
		{
			"lists sorted, deduplicated, blanks and extra spaces dropped",
			Signals{Present: []string{"  Old   Tam ", "mara voss", "", "Mara Voss", "old tam"}, Input: "  look\n around "},
			"Mara Voss, Old Tam\nlook around",
		},
	}
	for _, tt := range tests {
		if got := BuildQuery(tt.s); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	// Order of the lists does not matter.
	a := BuildQuery(Signals{Present: []string{"b", "a", "c"}, Threads: []string{"y", "x"}})
	b := BuildQuery(Signals{Present: []string{"c", "b", "a"}, Threads: []string{"x", "y"}})
	if a != b {
		t.Errorf("order changed the query: %q vs %q", a, b)
	}
	// A huge recap is clipped, at a rune boundary.
	long := BuildQuery(Signals{Location: "Keep", Recent: strings.Repeat("é", 5000)})
	if len(long) > len("Keep\n")+maxSignalBytes || !strings.HasPrefix(long, "Keep\n") || !strings.HasSuffix(long, "é") {
		t.Errorf("long recap: %d bytes, want ≤ %d ending in a whole rune", len(long), len("Keep\n")+maxSignalBytes)
	}
}

func TestQueryFullTextAndLimit(t *testing.T) {
	q := Query{Text: " bell ", Signals: &Signals{Location: "Saltmere"}}
	if got := q.FullText(); got != "bell\nSaltmere" {
		t.Errorf("FullText = %q", got)
	}
	if got := (Query{Signals: &Signals{Location: "Saltmere"}}).FullText(); got != "Saltmere" {
		t.Errorf("FullText with only signals = %q", got)
	}
	for _, tt := range []struct{ limit, want int }{{0, DefaultLimit}, {-3, DefaultLimit}, {5, 5}, {MaxLimit + 1, MaxLimit}} {
		if got := (Query{Limit: tt.limit}).EffectiveLimit(); got != tt.want {
			t.Errorf("Limit %d: EffectiveLimit = %d, want %d", tt.limit, got, tt.want)
		}
	}
}

func TestFilterMatch(t *testing.T) {
	c := chunk.Chunk{
		Pack: "core", ContentType: "npc", EntityID: "core:mara", Refs: []string{"core:tam", "core:bell"},
		Location: "core:saltmere", Faction: "wardens", Threads: []string{"drowned-bell"},
		Tags: []string{"lighthouse", "coast"},
	}
	history := chunk.Chunk{Corpus: chunk.History, Pack: "camp"}
	tests := []struct {
		name string
		f    Filter
		c    chunk.Chunk
		want bool
	}{
		{"zero filter", Filter{}, c, true},
		{"pack in", Filter{Packs: []string{"x", "core"}}, c, true},
		{"pack out", Filter{Packs: []string{"x"}}, c, false},
		{"blank pack allows all", Filter{Packs: []string{""}}, c, true},
		{"entity by id", Filter{EntityIDs: []string{"core:mara"}}, c, true},
		{"entity by ref", Filter{EntityIDs: []string{"core:bell"}}, c, true},
		{"entity absent", Filter{EntityIDs: []string{"core:nobody"}}, c, false},
		{"location equal", Filter{Location: "core:saltmere"}, c, true},
		{"location differs", Filter{Location: "core:harbour"}, c, false},
		{"location case counts", Filter{Location: "core:Saltmere"}, c, false},
		{"faction", Filter{Faction: "wardens"}, c, true},
		{"faction differs", Filter{Faction: "smugglers"}, c, false},
		{"thread", Filter{Threads: []string{"drowned-bell", "other"}}, c, true},
		{"thread absent", Filter{Threads: []string{"other"}}, c, false},
		{"content type", Filter{ContentTypes: []string{"npc"}}, c, true},
		{"content type absent", Filter{ContentTypes: []string{"spell"}}, c, false},
		{"tags any", Filter{Tags: []string{"coast", "forest"}}, c, true},
		{"tags any none", Filter{Tags: []string{"forest"}}, c, false},
		{"tags all", Filter{Tags: []string{"coast", "lighthouse"}, TagMatch: All}, c, true},
		{"tags all missing one", Filter{Tags: []string{"coast", "forest"}, TagMatch: All}, c, false},
		{"empty corpus is lore", Filter{Corpora: []chunk.Corpus{chunk.Lore}}, c, true},
		{"lore filter skips history", Filter{Corpora: []chunk.Corpus{chunk.Lore}}, history, false},
		{"history", Filter{Corpora: []chunk.Corpus{chunk.History}}, history, true},
		{"all set hold", Filter{Packs: []string{"core"}, Location: "core:saltmere", Tags: []string{"coast"}}, c, true},
		{"one set fails", Filter{Packs: []string{"core"}, Location: "core:saltmere", Faction: "x"}, c, false},
	}
	for _, tt := range tests {
		if got := tt.f.Match(tt.c); got != tt.want {
			t.Errorf("%s: Match = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !(Filter{Packs: []string{""}, Corpora: nil}).IsZero() || (Filter{Faction: "x"}).IsZero() {
		t.Error("IsZero wrong")
	}
}
