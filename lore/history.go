package lore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Indexer is the part of a retrieve.Index that records play history.
type Indexer interface {
	Upsert(ctx context.Context, pack, file, fileHash string, chunks []chunk.Chunk) error
}

// HistoryPack is the pack id of a playthrough's history in the index.
func HistoryPack(sessionID string) string { return "history:" + sessionID }

// Moment is one thing that happened in an episode, for the history
// corpus.
type Moment struct {
	Turn     int
	Location string
	Text     string
}

// RecordEpisode writes an ended episode to the history corpus: its
// summary, and the moments that made it, one chunk each, so "what
// happened with the lens?" can be answered from play as well as from the
// authored lore. Played text is what the players read, so it is readable
// at player level.
func (k *Keeper) RecordEpisode(ctx context.Context, sessionID string, number int, summary string, moments []Moment) error {
	ix, ok := k.Index.(Indexer)
	if !ok {
		return nil
	}
	pack := HistoryPack(sessionID)
	file := "episode-" + strconv.Itoa(number)
	var cs []chunk.Chunk
	add := func(text string, turn int, section, location string) {
		if text == "" {
			return
		}
		cs = append(cs, chunk.Chunk{
			ID: fmt.Sprintf("%s/%s#%d", pack, file, len(cs)), Corpus: chunk.History, Pack: pack, File: file,
			Section: []string{fmt.Sprintf("Episode %d", number), section}, Ordinal: len(cs), SourceType: chunk.Prose,
			ContentType: "history", Location: k.ns(location), Tier: 6, Access: access.Player, Text: text,
			Tokens: len(text)/4 + 1, Turn: turn,
		})
	}
	add(summary, 0, "Summary", "")
	for _, m := range moments {
		add(m.Text, m.Turn, "Turn "+strconv.Itoa(m.Turn), m.Location)
	}
	if err := ix.Upsert(ctx, pack, file, fmt.Sprintf("%d-%d", number, len(cs)), cs); err != nil {
		return fmt.Errorf("record episode %d in the history corpus: %w", number, err)
	}
	return nil
}

// History searches a playthrough's history for what bears on text.
func (k *Keeper) History(ctx context.Context, sessionID, text string, role access.Level, limit int) ([]Passage, error) {
	res, err := k.Index.Search(ctx, retrieve.Query{Text: text, Role: role, Limit: limit,
		Filter: retrieve.Filter{Packs: []string{HistoryPack(sessionID)}, Corpora: []chunk.Corpus{chunk.History}}})
	if err != nil {
		return nil, fmt.Errorf("search the history of %s: %w", sessionID, err)
	}
	out := make([]Passage, 0, len(res.Passages))
	for _, p := range res.Passages {
		out = append(out, passage(p))
	}
	return out, nil
}
