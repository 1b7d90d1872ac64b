package sqliteindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
)

// corpus generates reproducible pseudo-English lore: words drawn from a
// Zipf distribution over a vocabulary whose most frequent entries are
// real English function words and the rest made-up words of two to four
// syllables, in sentences, with metadata spread over packs, locations,
// tags, tiers and access levels.
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

var functionWords = strings.Fields(`the of and to a in is that it was for on as with he be at by his
	from they this had not are but or an which she were her all their there been one has would what`)

// newCorpus returns a generator over a vocabulary of size words. The
// vocabulary depends on size alone, so generators with different seeds
// write and query the same language.
func newCorpus(seed uint64, size int) *corpus {
	rng := rand.New(rand.NewPCG(uint64(size), 0x9e3779b97f4a7c15))
	onsets := strings.Fields("b c d f g h k l m n p r s t v w br cr dr gr st th sh ch tr kl")
	vowels := strings.Fields("a e i o u ai ea ou ie")
	codas := []string{"", "", "n", "r", "s", "th", "nd", "l", "k", "m"}
	vocab := append([]string(nil), functionWords...)
	seen := map[string]bool{}
	for _, w := range vocab {
		seen[w] = true
	}
	for len(vocab) < size {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteString(onsets[rng.IntN(len(onsets))])
			b.WriteString(vowels[rng.IntN(len(vowels))])
		}
		b.WriteString(codas[rng.IntN(len(codas))])
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	// Frequent words are short, as in English.
	slices.SortStableFunc(vocab[len(functionWords):], func(a, b string) int { return len(a) - len(b) })
	rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1)), vocab: vocab}
}

// text returns n words of sentences.
func (c *corpus) text(n int) string {
	var b strings.Builder
	sentence := 0
	for i := range n {
		w := c.vocab[c.zipf.Uint64()]
		if sentence == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		sentence++
		if sentence > 7 && (c.rng.IntN(6) == 0 || i == n-1) {
			b.WriteString(". ")
			sentence = 0
		}
	}
	return strings.TrimSpace(b.String())
}

// queryText returns n distinct words that are not function words, as a
// player's question would hold.
func (c *corpus) queryText(n int) string {
	var ws []string
	for len(ws) < n {
		ws = append(ws, c.vocab[len(functionWords)+c.rng.IntN(len(c.vocab)-len(functionWords))])
	}
	return strings.Join(ws, " ")
}

// files generates chunks grouped in files of perFile chunks.
func (c *corpus) files(total, perFile int) [][]chunk.Chunk {
	var out [][]chunk.Chunk
	levels := []access.Level{access.Player, access.Player, access.Player, access.Player, access.Player,
		access.Player, access.Player, access.Trusted, access.Assistant, access.GM}
	types := []string{"npc", "location", "rules", "spell", "item", "faction", "history", "monster"}
	for f := 0; f*perFile < total; f++ {
		pack := fmt.Sprintf("pack%02d", f%10)
		file := fmt.Sprintf("lore/file%05d.md", f)
		var cs []chunk.Chunk
		for i := 0; i < perFile && f*perFile+i < total; i++ {
			words := 60 + c.rng.IntN(61)
			tags := []string{fmt.Sprintf("tag%02d", c.rng.IntN(50))}
			if c.rng.IntN(2) == 0 {
				tags = append(tags, fmt.Sprintf("tag%02d", c.rng.IntN(50)))
			}
			cs = append(cs, chunk.Chunk{
				ID: fmt.Sprintf("%s/%s#%d", pack, file, i), Pack: pack, File: file, Ordinal: i,
				Section:     []string{c.text(2), c.text(3)},
				SourceType:  chunk.Prose,
				ContentType: types[c.rng.IntN(len(types))],
				EntityID:    fmt.Sprintf("%s:e%04d", pack, c.rng.IntN(2000)),
				Location:    fmt.Sprintf("loc%03d", c.rng.IntN(200)),
				Tags:        tags,
				Tier:        1 + c.rng.IntN(6),
				Access:      levels[c.rng.IntN(len(levels))],
				Text:        c.text(words),
				// Roughly cl100k's rate for such text; counting 100,000
				// chunks exactly would dominate the fixture's build.
				Tokens: words * 4 / 3,
			})
		}
		out = append(out, cs)
	}
	return out
}

// fill upserts generated files into ix.
func fill(ctx context.Context, ix *Index, files [][]chunk.Chunk) error {
	for _, cs := range files {
		if err := ix.Upsert(ctx, cs[0].Pack, cs[0].File, "h", cs); err != nil {
			return err
		}
	}
	return nil
}
