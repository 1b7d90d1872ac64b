package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/tokens"
)

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// byFile groups chunks by file.
func byFile(cs []chunk.Chunk) map[string][]chunk.Chunk {
	m := map[string][]chunk.Chunk{}
	for _, c := range cs {
		m[c.File] = append(m[c.File], c)
	}
	return m
}

func TestChunkFields(t *testing.T) {
	tok := counter(t)
	p := loadPack(t, bestiary)
	files := byFile(p.Chunks(tok))

	gob := files["creatures/goblin.md"]
	if len(gob) != 4 {
		t.Fatalf("goblin: %d chunks: %+v", len(gob), gob)
	}
	fm, secret, prose, tactics := gob[0], gob[1], gob[2], gob[3]
	want := chunk.Chunk{ID: "bestiary/creatures/goblin.md#0", Corpus: chunk.Lore, Pack: "bestiary", File: "creatures/goblin.md",
		SourceType: chunk.Frontmatter, ContentType: "creature", EntityType: "creature", EntityID: "bestiary:goblin",
		Refs: []string{"bestiary:goblins", "bestiary:scimitar"}, Tags: []string{"creature", "humanoid"}, Tier: TierAssertion, Access: access.Player,
		FileHash: fm.FileHash, Text: fm.Text, Tokens: fm.Tokens}
	if !reflect.DeepEqual(fm, want) {
		t.Errorf("frontmatter chunk\n got %+v\nwant %+v", fm, want)
	}
	if !strings.HasPrefix(fm.Text, "aliases: goblins\narmor_class: 15\nequipped: scimitar\nhit_points: 7\n") ||
		strings.Contains(fm.Text, "Hollow King") || strings.Contains(fm.Text, "entity_type") {
		t.Errorf("frontmatter text (readable key: value lines, no secret, no metadata):\n%s", fm.Text)
	}
	if secret.Access != access.GM || secret.Tier != TierAssertion || secret.Text != "secret: Goblins serve the Hollow King and report every stranger to him." ||
		!slices.Contains(secret.Tags, "secret") || secret.Ordinal != 1 {
		t.Errorf("secret chunk: %+v", secret)
	}
	if prose.SourceType != chunk.Prose || prose.Tier != TierEntityProse || !reflect.DeepEqual(prose.Section, []string{"Goblin"}) ||
		!reflect.DeepEqual(tactics.Section, []string{"Goblin", "Tactics"}) || tactics.ID != "bestiary/creatures/goblin.md#3" {
		t.Errorf("prose chunks: %+v\n%+v", prose, tactics)
	}

	combat := files["rules/Combat.md"]
	if len(combat) == 0 || combat[0].Tier != TierContext || combat[0].EntityID != "" || combat[0].ContentType != "rule" {
		t.Errorf("a rules chapter is context: %+v", combat)
	}
	var sections []string
	for _, c := range combat {
		sections = append(sections, strings.Join(c.Section, " › "))
	}
	if !slices.Equal(sections, []string{"Combat", "Combat › Actions › Dash", "Combat › Actions › Hide"}) {
		t.Errorf("sections %q", sections)
	}

	for file, access := range map[string]access.Level{
		"lore_hollow_king.md":    access.GM,     // visibility: gm_only
		"stats/hidden/fear.json": access.GM,     // a hidden stat
		"items/scimitar.json":    access.Player, // the manifest's default
	} {
		for _, c := range files[file] {
			if c.Access != access {
				t.Errorf("%s: access %v, want %v", file, c.Access, access)
			}
		}
	}
	if fear := files["stats/hidden/fear.json"]; fear[0].SourceType != chunk.Field || fear[0].Tier != TierAssertion {
		t.Errorf("a stat is fields: %+v", fear[0])
	}
	if f := files["faction_goblins.md"]; f[0].Faction != "bestiary:goblins" {
		t.Errorf("faction: %+v", f[0])
	}

	// A campaign: the player, locations, factions and threads.
	c := byFile(loadPack(t, saltmere).Chunks(tok))
	kestrel := c["character_kestrel.md"]
	if !kestrel[0].IsPlayer || kestrel[0].Tier != TierAssertion || kestrel[len(kestrel)-1].Tier != TierPlayer {
		t.Errorf("player character: %+v", kestrel)
	}
	maren := c["npc_maren.md"][0]
	if maren.Location != "the_lantern_of_saltmere:tavern" || maren.Faction != "the_lantern_of_saltmere:guild" || maren.IsPlayer {
		t.Errorf("maren: %+v", maren)
	}
	if rook := c["npc_rook.md"][0]; !slices.Equal(rook.Threads, []string{"the_lantern_of_saltmere:who_profits"}) {
		t.Errorf("rook's threads: %v", rook.Threads)
	}
	if quay := c["location_quay.md"][0]; quay.Location != "the_lantern_of_saltmere:quay" {
		t.Errorf("a location is its own location: %+v", quay)
	}
	for _, cs := range c {
		for _, ch := range cs {
			if ch.Tokens > chunk.MaxTokens || ch.Tokens == 0 || slices.Contains(ch.Refs, ch.EntityID) {
				t.Errorf("%s: %d tokens, refs %v", ch.ID, ch.Tokens, ch.Refs)
			}
		}
	}
}

func TestFileHash(t *testing.T) {
	tok := counter(t)
	body := "---\nentity_type: lore\n---\nThe same words.\n"
	files := packFiles()
	files["lore_a.md"], files["lore_b.md"] = body, body
	dir := writeCampaign(t, files)
	p := loadPack(t, dir)
	sum := sha256.Sum256([]byte(body))
	hashes := map[string]string{}
	for _, c := range p.Chunks(tok) {
		hashes[c.File] = c.FileHash
	}
	if hashes["lore_a.md"] != hex.EncodeToString(sum[:]) || hashes["lore_a.md"] != hashes["lore_b.md"] {
		t.Errorf("hashes %v, want sha256 of the bytes", hashes)
	}
	// Reloading gives the same; changing a file changes only its own.
	if err := os.WriteFile(filepath.Join(dir, "lore_b.md"), []byte(body+"More.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range loadPack(t, dir).Chunks(tok) {
		changed := c.FileHash != hashes[c.File]
		if changed != (c.File == "lore_b.md") {
			t.Errorf("%s: hash changed %v", c.File, changed)
		}
	}
}

// TestSRDPack chunks the D&D SRD 5.1 as a pack: every chunk within the
// cap, every heading kept.
func TestSRDPack(t *testing.T) {
	const src = "../../shared/testdata/srd51/md"
	if _, err := os.Stat(src); err != nil {
		t.Skip("the SRD 5.1 Markdown is not at " + src + " (the shared test data beside the repository)")
	}
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	manifest := "id: srd51\nname: SRD 5.1\nversion: 5.1.0\nlicense: CC-BY-4.0\n"
	if err := os.WriteFile(filepath.Join(dir, "pack.yml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadPack(t, dir)
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
	cs := p.Chunks(counter(t))
	headings := map[string]bool{}
	for _, c := range cs {
		if c.Tokens > chunk.MaxTokens {
			t.Errorf("%s: %d tokens", c.ID, c.Tokens)
		}
		if c.Pack != "srd51" || c.Tier != TierContext || c.Access != access.Player {
			t.Errorf("%s: %+v", c.ID, c)
		}
		for i := range c.Section {
			headings[strings.Join(c.Section[:i+1], " › ")] = true
		}
	}
	// Every heading line is in the text of a chunk of its file, and every
	// heading with text under it is the section of a chunk. A heading
	// closes those of its level and deeper (the SRD skips levels).
	texts := map[string]string{}
	for _, c := range cs {
		texts[c.File] += c.Text + "\n"
	}
	for _, f := range p.Files {
		var levels []int
		var stack []string
		check := func(body bool) {
			if len(stack) > 0 && body && !headings[strings.Join(stack, " › ")] {
				t.Errorf("%s: heading %q is in no chunk's section", f.Path, strings.Join(stack, " › "))
			}
		}
		body := false
		for _, l := range strings.Split(f.Body, "\n") {
			level, title, ok := heading(l)
			if !ok {
				body = body || strings.TrimSpace(l) != ""
				continue
			}
			if !strings.Contains(texts[f.Path], strings.TrimSpace(l)) {
				t.Errorf("%s: heading line %q is in no chunk", f.Path, l)
			}
			check(body)
			for len(levels) > 0 && levels[len(levels)-1] >= level {
				levels, stack = levels[:len(levels)-1], stack[:len(stack)-1]
			}
			levels, stack, body = append(levels, level), append(stack, title), false
		}
		check(body)
	}
	t.Logf("%d files, %d chunks", len(p.Files), len(cs))
}

// heading reads an ATX heading outside code (the SRD has no fences).
func heading(l string) (int, string, bool) {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	if n == 0 || n > 6 || len(l) == n || l[n] != ' ' {
		return 0, "", false
	}
	return n, strings.TrimSpace(l[n:]), true
}

func TestChunksDeterministic(t *testing.T) {
	// Chunks is safe to call twice and gives the same chunks.
	tok := counter(t)
	p := loadPack(t, bestiary)
	all := p.Chunks(tok)
	if !reflect.DeepEqual(all, p.Chunks(tok)) {
		t.Error("Chunks is not deterministic")
	}
	// ChunksOf cuts some files exactly as Chunks cuts them.
	some := p.ChunksOf(tok, func(path string) bool { return path == "creatures/goblin.md" })
	if want := byFile(all)["creatures/goblin.md"]; len(some) == 0 || !reflect.DeepEqual(some, want) {
		t.Errorf("ChunksOf: %d chunks, want %d", len(some), len(want))
	}
	if _, err := LoadPack(context.Background(), "testdata/packs/nowhere"); err == nil {
		t.Error("loaded a missing pack")
	}
}
