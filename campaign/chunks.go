package campaign

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/tokens"
	"github.com/hearth-rpg/hearth/world"
)

// Precedence tiers of pack chunks (seed 001 §5.3.1, "Context Precedence
// Hierarchy"). The seed's tiers 5 and 6 (runtime data, memory of past
// sessions) come from play, never from a pack.
const (
	// TierAssertion: frontmatter, and the fields of structured files
	// (stats, items, plot beats, YAML entities): the author's hard
	// constraints, "absolute".
	TierAssertion = 1
	// TierPlayer: the prose of the player character's file, the live
	// player identity, "immediate".
	TierPlayer = 2
	// TierEntityProse: prose about the entity its file defines (an NPC, a
	// location, a lore entry), "authoritative".
	TierEntityProse = 3
	// TierContext: prose of a file that defines no entity (a rules
	// chapter, a setting essay), background for any scene, "contextual".
	TierContext = 4
)

// secretKey reports whether a frontmatter key holds GM-only text.
func secretKey(k string) bool {
	return k == "secret" || k == "secrets" || k == "gm_notes" || k == "gm_only" ||
		strings.HasPrefix(k, "secret_") || strings.HasSuffix(k, "_secret")
}

// metaKeys are frontmatter keys that say what a file is rather than what
// its entity is; they are chunk metadata, not chunk text.
var metaKeys = []string{"access", "visibility", "entity_type", "entity_id", "content_type", "tags", "generated", "provenance", "overrides"}

// Chunks cuts the pack into retrieval chunks (seed 001 §6.2.15, phase 3):
// for each text file, its frontmatter as a chunk of its own (tier 1,
// "key: value" lines) and its prose by heading and paragraph (Markdown)
// or paragraph (text); for each structured file, its field groups. GM-only
// text (secret: keys, hidden stats, files with access or visibility
// gm_only) is in chunks of its own, marked gm_only. Every chunk is at most
// chunk.MaxTokens; ids, references, locations and factions are namespaced
// (pack:entity). The order is by file, then position in the file.
func (p *Pack) Chunks(tok *tokens.Counter) []chunk.Chunk {
	return p.ChunksOf(tok, nil)
}

// ChunksOf is Chunks for the files whose path keep accepts (all when keep
// is nil): an index brought up to date re-chunks only the files whose
// hash changed. A file's chunks do not depend on which others are cut.
func (p *Pack) ChunksOf(tok *tokens.Counter, keep func(path string) bool) []chunk.Chunk {
	dict := p.dictionary()
	var files []File
	for _, f := range p.Files {
		if keep == nil || keep(f.Path) {
			files = append(files, f)
		}
	}
	out := make([][]chunk.Chunk, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, min(runtime.GOMAXPROCS(0), len(files))) {
		wg.Go(func() {
			for i := range next {
				out[i] = p.fileChunks(files[i], tok, dict)
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return slices.Concat(out...)
}

// fileChunks cuts one file.
func (p *Pack) fileChunks(f File, tok *tokens.Counter, dict *dictionary) []chunk.Chunk {
	base := p.chunkBase(f)
	var out []chunk.Chunk
	add := func(pieces []chunk.Piece, src chunk.SourceType, tier int, level access.Level, extraTags ...string) {
		for _, pc := range pieces {
			c := base
			c.ID = p.Manifest.ID + "/" + f.Path + "#" + strconv.Itoa(len(out))
			c.Ordinal = len(out)
			c.Section = pc.Section
			c.SourceType, c.Tier, c.Access = src, tier, level
			c.Text, c.Tokens = pc.Text, pc.Tokens
			c.Refs = dict.refs(pc.Text, c.EntityID)
			if len(extraTags) > 0 {
				c.Tags = sortedSet(append(slices.Clone(c.Tags), extraTags...))
			}
			out = append(out, c)
		}
	}
	open, secret := map[string]any{}, map[string]any{}
	for k, v := range f.Frontmatter.Values {
		switch {
		case slices.Contains(metaKeys, k):
		case secretKey(k):
			secret[k] = v
		default:
			open[k] = v
		}
	}
	if f.Structured {
		add(fields(open, tok), chunk.Field, TierAssertion, base.Access)
		add(fields(secret, tok), chunk.Field, TierAssertion, access.GM, "secret")
		return out
	}
	add(fields(open, tok), chunk.Frontmatter, TierAssertion, base.Access)
	add(fields(secret, tok), chunk.Frontmatter, TierAssertion, access.GM, "secret")
	if f.Body != "" {
		tier := TierEntityProse
		switch {
		case base.IsPlayer:
			tier = TierPlayer
		case f.EntityType == "":
			tier = TierContext
		}
		var pieces []chunk.Piece
		if strings.HasSuffix(strings.ToLower(f.Path), ".txt") {
			pieces = chunk.Plain(f.Body, tok, chunk.Options{})
		} else {
			pieces = chunk.Markdown(f.Body, tok, chunk.Options{})
		}
		add(pieces, chunk.Prose, tier, base.Access)
	}
	return out
}

// fields renders values as one chunk when they fit, else by field group.
func fields(v map[string]any, tok *tokens.Counter) []chunk.Piece {
	if len(v) == 0 {
		return nil
	}
	pieces := chunk.Fields(v, tok, chunk.Options{Target: chunk.MaxTokens})
	if len(pieces) < 2 {
		return pieces
	}
	n := 0
	texts := make([]string, len(pieces))
	for i, pc := range pieces {
		n += pc.Tokens + 1
		texts[i] = pc.Text
	}
	if n > chunk.MaxTokens {
		return pieces
	}
	text := strings.Join(texts, "\n")
	if t := tok.Count(text); t <= chunk.MaxTokens {
		return []chunk.Piece{{Text: text, Tokens: t, Line: 1}}
	}
	return pieces
}

// chunkBase fills what every chunk of a file shares.
func (p *Pack) chunkBase(f File) chunk.Chunk {
	c := p.Content
	fm := f.Frontmatter.Values
	ns := p.NamespacedID
	base := chunk.Chunk{Corpus: chunk.Lore, Pack: p.Manifest.ID, File: f.Path, ContentType: f.ContentType,
		EntityType: f.EntityType, FileHash: f.Hash, Access: p.Manifest.Access}
	if base.Access == 0 {
		base.Access = access.Player
	}
	if f.EntityType != "" && f.EntityID != "" {
		base.EntityID = ns(f.EntityID)
	}
	if a := cmp.Or(str(fm["access"]), str(fm["visibility"])); a != "" {
		if lv, err := access.Parse(a); err == nil {
			base.Access = lv
		}
	}
	switch f.EntityType {
	case "stat":
		if d := c.Stats[f.EntityID]; d != nil && d.Hidden {
			base.Access = access.GM
		}
	case "location":
		base.Location = ns(f.EntityID)
	case "faction":
		base.Faction = ns(f.EntityID)
	case "player_character":
		base.IsPlayer = true
	}
	if ch := c.Characters[f.EntityID]; ch != nil && slices.Contains([]string{"npc", "character", "creature", "player_character"}, f.EntityType) {
		base.IsPlayer = base.IsPlayer || ch.Kind == world.PC
		if ch.Location != "" {
			base.Location = ns(ch.Location)
		}
		if ch.Faction != "" {
			base.Faction = ns(ch.Faction)
		}
	}
	if base.Location == "" {
		if l := str(fm["location"]); l != "" {
			base.Location = ns(l)
		}
	}
	if base.Faction == "" {
		if fa := str(fm["faction"]); fa != "" {
			base.Faction = ns(fa)
		}
	}
	var threads []string
	for _, k := range []string{"threads", "thread"} {
		threads = append(threads, stringList(fm[k])...)
	}
	for _, t := range c.Threads {
		if f.EntityID != "" && f.EntityType != "" && slices.Contains(t.Related, f.EntityID) {
			threads = append(threads, t.ID)
		}
	}
	for i, t := range threads {
		threads[i] = ns(t)
	}
	base.Threads = sortedSet(threads)
	tags := stringList(fm["tags"])
	tags = append(tags, f.EntityType, f.ContentType)
	base.Tags = sortedSet(tags)
	return base
}

func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, it := range x {
			if s, ok := it.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// sortedSet sorts, drops empty strings and duplicates.
func sortedSet(ss []string) []string {
	ss = slices.DeleteFunc(ss, func(s string) bool { return s == "" })
	if len(ss) == 0 {
		return nil
	}
	slices.Sort(ss)
	return slices.Compact(ss)
}

// dictionary finds the pack's entities a text mentions by id, name or
// alias: whole words, case folded, longest phrase first.
type dictionary struct {
	terms  map[string][]string // phrase → namespaced ids
	first  map[string]bool     // the first words of phrases
	maxLen int                 // words in the longest phrase
}

// dictionary collects the names of the pack's entities.
func (p *Pack) dictionary() *dictionary {
	d := &dictionary{terms: map[string][]string{}, first: map[string]bool{}}
	add := func(id string, names ...string) {
		nid := p.NamespacedID(id)
		for _, n := range append(names, id, strings.ReplaceAll(id, "_", " ")) {
			ws := words(n)
			phrase := strings.Join(ws, " ")
			if len(phrase) < 3 || len(ws) == 0 {
				continue
			}
			if !slices.Contains(d.terms[phrase], nid) {
				d.terms[phrase] = append(d.terms[phrase], nid)
			}
			d.first[ws[0]] = true
			d.maxLen = max(d.maxLen, len(ws))
		}
	}
	c := p.Content
	for id, v := range c.Locations {
		add(id, append([]string{v.Name}, v.Aliases...)...)
	}
	for id, v := range c.Characters {
		add(id, append([]string{v.Name}, v.Aliases...)...)
	}
	for id, v := range c.Items {
		add(id, append([]string{v.Name}, v.Aliases...)...)
	}
	for id, v := range c.Quests {
		add(id, v.Name)
	}
	for id, v := range c.Factions {
		add(id, v.Name)
	}
	for _, b := range p.Beats {
		add(b.ID, b.Title)
	}
	d.maxLen = min(d.maxLen, 8)
	return d
}

// refs returns the ids of the entities text mentions, sorted, without
// self.
func (d *dictionary) refs(text, self string) []string {
	if len(d.terms) == 0 {
		return nil
	}
	ws := words(text)
	var out []string
	for i := range ws {
		if !d.first[ws[i]] {
			continue
		}
		for n := 1; n <= d.maxLen && i+n <= len(ws); n++ {
			if ids, ok := d.terms[strings.Join(ws[i:i+n], " ")]; ok {
				out = append(out, ids...)
			}
		}
	}
	out = slices.DeleteFunc(out, func(id string) bool { return id == self })
	return sortedSet(out)
}

// words splits text into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
