package lorebook

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// benchBook writes an n-entry book shaped like large community lorebooks:
// invented names as keys (two or three per entry, some of two words), a
// secondary key on every entry, inclusion groups on one in ten, a regex
// key on one in twenty, a constant on one in a hundred, and content of
// sixty words that often names other entries. The messages are ten of
// forty words, common words mixed with some of the names.
func benchBook(b *testing.B, n int) (*Book, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	syllables := strings.Fields("ka el mor dun vey sha tor lin bra ith ost ren gal fae quo zar wen ul dra mi")
	name := func() string {
		var sb strings.Builder
		for range 2 + rng.IntN(2) {
			sb.WriteString(syllables[rng.IntN(len(syllables))])
		}
		return sb.String()
	}
	names := make([]string, 2*n)
	for i := range names {
		names[i] = name()
	}
	common := strings.Fields("the a of and to in is was he she they it with his her at on by from old north road river night fire gate king")
	words := func(count int, nameEvery int) string {
		var sb strings.Builder
		for i := range count {
			if i > 0 {
				sb.WriteByte(' ')
			}
			if rng.IntN(nameEvery) == 0 {
				sb.WriteString(names[rng.IntN(len(names))])
			} else {
				sb.WriteString(common[rng.IntN(len(common))])
			}
		}
		return sb.String()
	}
	entries := map[string]map[string]any{}
	for i := range n {
		keys := []string{names[2*i], names[2*i+1]}
		if i%3 == 0 {
			keys = append(keys, "old "+names[rng.IntN(len(names))])
		}
		if i%20 == 0 {
			keys = append(keys, "/"+names[rng.IntN(len(names))]+`(s|es)?\b/i`)
		}
		e := map[string]any{
			"uid": i, "key": keys, "keysecondary": []string{common[rng.IntN(len(common))], names[rng.IntN(len(names))]},
			"selectiveLogic": i % 4, "content": words(60, 8), "order": rng.IntN(500),
		}
		if i%10 == 0 {
			e["group"] = "g" + strconv.Itoa(i%7)
		}
		if i%100 == 0 {
			e["constant"] = true
		}
		entries[strconv.Itoa(i)] = e
	}
	data, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		b.Fatal(err)
	}
	book, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	msgs := make([]string, 10)
	for i := range msgs {
		msgs[i] = words(40, 10)
	}
	return book, msgs
}

// BenchmarkActivate: a 1,000-entry book over 10 messages, scan depth 10,
// a 2,000-token budget, default recursion.
func BenchmarkActivate(b *testing.B) {
	book, msgs := benchBook(b, 1000)
	in := Input{Messages: msgs, ScanDepth: 10, Budget: 2000, Counter: counter(b)}
	first := book.Activate(in, &State{})
	b.ResetTimer()
	for b.Loop() {
		book.Activate(in, &State{})
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/op")
	b.ReportMetric(float64(len(first.Included)), "included")
	b.ReportMetric(float64(len(first.Cut)), "cut")
	b.ReportMetric(float64(first.Passes), "passes")
}
