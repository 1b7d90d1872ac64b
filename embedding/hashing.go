package embedding

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultDim is the dimension NewHashing uses when given none.
const DefaultDim = 384

// MaxHashingInput caps the bytes of one text the hashing embedder reads;
// the rest is ignored. Chunks are a few hundred tokens, far below it.
const MaxHashingInput = 64 << 10

// Feature classes and their weights. Words carry the meaning; word pairs
// add a little word order; character trigrams of each word let variants
// and misspellings ("lanterns", "lantren") land near the original.
const (
	classWord = iota
	classPair
	classTrigram
)

var classWeight = [...]float32{classWord: 1, classPair: 0.5, classTrigram: 0.25}

// NewHashing returns a deterministic offline Embedder of dimension dim
// (DefaultDim when dim < 1). It hashes each text's features — lower-cased
// word unigrams and bigrams after light suffix stemming and with common
// English stopwords left out, and character trigrams of each word — into
// dim signed buckets, weights each feature by 1+ln(count), and normalises
// the result.
//
// It is lexical: texts that share words, stems and spellings come out
// close, and synonyms do not. It needs no model, gives the same vector
// for the same text on every machine, and embeds thousands of chunks a
// second. Any change to the features must change Name, so stored vectors
// are rebuilt.
func NewHashing(dim int) Embedder {
	if dim < 1 {
		dim = DefaultDim
	}
	return hashing{dim: dim}
}

type hashing struct{ dim int }

func (h hashing) Dim() int     { return h.dim }
func (h hashing) Name() string { return fmt.Sprintf("hashing-%d", h.dim) }

func (h hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var keys []uint64
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("embed text %d of %d: %w", i+1, len(texts), err)
			}
		}
		keys = features(keys[:0], t)
		out[i] = h.vector(keys)
	}
	return out, nil
}

// vector folds sorted feature keys into a normalised vector. Sorting
// first makes equal features adjacent (so counting needs no map) and
// fixes the order of the float additions (so the result is the same on
// every run).
func (h hashing) vector(keys []uint64) []float32 {
	v := make([]float32, h.dim)
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		k := keys[i]
		w := classWeight[k&3] * (1 + float32(math.Log(float64(j-i))))
		if k>>63 == 1 {
			w = -w
		}
		v[uint64(uint32(k>>2))%uint64(h.dim)] += w
		i = j
	}
	Normalize(v)
	return v
}

// features appends the hashed features of text to keys. The low two bits
// of a key hold its class; the rest is the feature's hash.
func features(keys []uint64, text string) []uint64 {
	if len(text) > MaxHashingInput {
		// Cut at a rune boundary so the last word is not split mid-rune.
		i := MaxHashingInput
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		text = text[:i]
	}
	text = strings.ToLower(text)
	var (
		runes    []rune
		prev     [2]string // the previous kept word's stem, as base and suffix
		havePrev bool
	)
	for len(text) > 0 {
		// Skip to the next word.
		start := strings.IndexFunc(text, isWordRune)
		if start < 0 {
			break
		}
		text = text[start:]
		end := strings.IndexFunc(text, func(r rune) bool { return !isWordRune(r) && !isApostrophe(r) })
		if end < 0 {
			end = len(text)
		}
		word := strings.TrimRightFunc(text[:end], isApostrophe)
		text = text[end:]
		if isStopword(word) {
			continue
		}
		base, suffix := stem(word)
		keys = append(keys, key(classWord, hash2(offset64, base, suffix)))
		if havePrev {
			p := hash2(offset64, prev[0], prev[1])
			p = hashByte(p, ' ')
			keys = append(keys, key(classPair, hash2(p, base, suffix)))
		}
		prev, havePrev = [2]string{base, suffix}, true

		// Character trigrams of the unstemmed word, with boundary marks,
		// so that a word's start and end count more than its middle.
		runes = append(runes[:0], '\x02')
		for _, r := range word {
			if !isApostrophe(r) {
				runes = append(runes, r)
			}
		}
		runes = append(runes, '\x03')
		for i := 0; i+3 <= len(runes); i++ {
			g := offset64
			for _, r := range runes[i : i+3] {
				g = hashRune(g, r)
			}
			keys = append(keys, key(classTrigram, g))
		}
	}
	return keys
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// isApostrophe lets "don't" and "keeper's" stay one word.
func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// key mixes a feature hash and stores its class in the low two bits.
func key(class int, h uint64) uint64 {
	h ^= uint64(class+1) * 0x9e3779b97f4a7c15
	// splitmix64's finaliser spreads FNV's weak low bits over the word.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h&^3 | uint64(class)
}

const (
	offset64 uint64 = 14695981039346656037
	prime64  uint64 = 1099511628211
)

func hashByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * prime64 }

func hash2(h uint64, a, b string) uint64 {
	for i := 0; i < len(a); i++ {
		h = hashByte(h, a[i])
	}
	for i := 0; i < len(b); i++ {
		h = hashByte(h, b[i])
	}
	return h
}

func hashRune(h uint64, r rune) uint64 {
	h = hashByte(h, byte(r))
	h = hashByte(h, byte(r>>8))
	h = hashByte(h, byte(r>>16))
	return hashByte(h, byte(r>>24))
}
