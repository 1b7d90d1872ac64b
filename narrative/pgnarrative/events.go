package pgnarrative

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// MaxBatch bounds the events stored at once, as in SQLite.
const MaxBatch = 10000

// ErrNotFound is returned for an event that does not exist.
var ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "not found"}

// Remember stores events in one transaction and returns their new IDs.
// Events without an embedding get one from the embedder, if there is one,
// in one call; if that call fails they are stored without (recall by text
// still finds them lexically).
func (db *DB) Remember(ctx context.Context, evs ...narrative.Event) ([]int64, error) {
	evs, err := db.Prepare(ctx, evs...)
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = db.h.Tx(ctx, func(tx pgx.Tx) error {
		ids, err = InsertEvents(ctx, tx, evs)
		return err
	})
	if err != nil {
		return nil, db.explain("remember events", err)
	}
	return ids, nil
}

// Prepare readies events to be stored: normalised, stamped with the wall
// time when they have none, and embedded when there is an embedder. It
// writes nothing, so no model call holds a turn's transaction open.
func (db *DB) Prepare(ctx context.Context, evs ...narrative.Event) ([]narrative.Event, error) {
	evs, err := normalize(evs)
	if err != nil {
		return nil, err
	}
	db.embedMissing(ctx, evs)
	return evs, nil
}

// normalize returns a normalised copy of evs, refusing a batch over
// MaxBatch.
func normalize(evs []narrative.Event) ([]narrative.Event, error) {
	if len(evs) > MaxBatch {
		return nil, hearth.Errorf(hearth.Invalid, "remember %d events at once; the limit is %d: split the batch", len(evs), MaxBatch)
	}
	evs = append([]narrative.Event(nil), evs...)
	for i := range evs {
		evs[i].ID = 0
		if err := evs[i].Normalize(); err != nil {
			return nil, hearth.Errorf(hearth.Invalid, "%w", err)
		}
		if evs[i].Wall.IsZero() {
			evs[i].Wall = time.Now().UTC()
		}
	}
	return evs, nil
}

// InsertEvents stores events inside tx, normalised, and returns their
// IDs. It embeds nothing (see Prepare).
func InsertEvents(ctx context.Context, tx pgx.Tx, evs []narrative.Event) ([]int64, error) {
	evs, err := normalize(evs)
	if err != nil {
		return nil, err
	}
	dims := map[string]int{}
	ids := make([]int64, len(evs))
	for i := range evs {
		e := &evs[i]
		var emb []float32
		if len(e.Embedding) > 0 {
			if err := checkDimension(ctx, tx, dims, e); err != nil {
				return nil, err
			}
			emb = e.Embedding
		}
		err := tx.QueryRow(ctx, `INSERT INTO narrative_events
			(playthrough, session, turn, scene, game_time, wall_time, summary, characters, location, action_type, significance, tags, kind, embedding)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
			e.Playthrough, e.Session, e.Turn, e.Scene, int64(e.At), e.Wall.UnixNano(), e.Summary, nonNil(e.Characters),
			e.Location, e.Action, e.Significance, nonNil(e.Tags), string(e.Kind), emb).Scan(&ids[i])
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkDimension refuses an embedding whose dimension differs from the
// playthrough's stored ones, caching each playthrough's in dims.
func checkDimension(ctx context.Context, tx pgx.Tx, dims map[string]int, e *narrative.Event) error {
	d, ok := dims[e.Playthrough]
	if !ok {
		var n *int
		err := tx.QueryRow(ctx, `SELECT cardinality(embedding) FROM narrative_events
			WHERE playthrough = $1 AND embedding IS NOT NULL ORDER BY id LIMIT 1`, e.Playthrough).Scan(&n)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if n != nil {
			d = *n
		}
	}
	if d != 0 && d != len(e.Embedding) {
		return hearth.Errorf(hearth.Invalid, "memory %q has a %d-dimension embedding but playthrough %s stores %d: use one embedding model per playthrough",
			e.Summary, len(e.Embedding), e.Playthrough, d)
	}
	dims[e.Playthrough] = len(e.Embedding)
	return nil
}

// embedMissing fills the embeddings of events that have none, in one
// call; on failure it logs and leaves them empty.
func (db *DB) embedMissing(ctx context.Context, evs []narrative.Event) {
	if db.o.embedder == nil {
		return
	}
	var idx []int
	var texts []string
	for i, e := range evs {
		if len(e.Embedding) == 0 {
			idx = append(idx, i)
			texts = append(texts, e.Summary)
		}
	}
	if len(texts) == 0 {
		return
	}
	vs, err := db.o.embedder.Embed(ctx, texts)
	if err == nil && len(vs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), len(texts))
	}
	if err != nil {
		db.o.log.Warn("narrative: embedding memories failed; storing them without vectors", "events", len(texts), "err", err)
		return
	}
	for j, i := range idx {
		evs[i].Embedding = vs[j]
	}
}

const eventColumns = `id, playthrough, session, turn, scene, game_time, wall_time, summary, characters, location, action_type, significance, tags, kind, embedding`

// scanEvent reads a row of eventColumns, and of more columns into extra.
func scanEvent(s pgx.Row, extra ...any) (narrative.Event, error) {
	var e narrative.Event
	var at, wall int64
	var kind string
	if err := s.Scan(append([]any{&e.ID, &e.Playthrough, &e.Session, &e.Turn, &e.Scene, &at, &wall, &e.Summary,
		&e.Characters, &e.Location, &e.Action, &e.Significance, &e.Tags, &kind, &e.Embedding}, extra...)...); err != nil {
		return e, err
	}
	e.At, e.Wall, e.Kind = world.GameTime(at), time.Unix(0, wall).UTC(), narrative.Kind(kind)
	if len(e.Characters) == 0 {
		e.Characters = nil
	}
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	if len(e.Embedding) == 0 {
		e.Embedding = nil
	}
	return e, nil
}

// Event returns one stored event, with its embedding.
func (db *DB) Event(ctx context.Context, playthrough string, id int64) (narrative.Event, error) {
	e, err := scanEvent(db.h.Pool().QueryRow(ctx, `SELECT `+eventColumns+` FROM narrative_events WHERE playthrough = $1 AND id = $2`, playthrough, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fmt.Errorf("memory %d of playthrough %s: %w", id, playthrough, ErrNotFound)
	}
	return e, db.explain("read a memory", err)
}

// Events returns a playthrough's events in the order they were stored.
func (db *DB) Events(ctx context.Context, playthrough string) ([]narrative.Event, error) {
	rows, err := db.h.Pool().Query(ctx, `SELECT `+eventColumns+` FROM narrative_events WHERE playthrough = $1 ORDER BY id`, playthrough)
	if err != nil {
		return nil, db.explain("load memories", err)
	}
	defer rows.Close()
	var out []narrative.Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, db.explain("load memories", err)
		}
		out = append(out, e)
	}
	return out, db.explain("load memories", rows.Err())
}

// Forget deletes an event (the seed's retention policies).
func (db *DB) Forget(ctx context.Context, playthrough string, id int64) error {
	db.loading.Lock() // no catch-up adds it back while it goes
	defer db.loading.Unlock()
	var n, forgotten int64
	err := db.h.Tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM narrative_events WHERE playthrough = $1 AND id = $2`, playthrough, id)
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n == 0 {
			return nil
		}
		// The delete's trigger holds the counter row until commit: this
		// is the count with this event and every earlier forgetting.
		return tx.QueryRow(ctx, `SELECT forgotten FROM narrative_event_seq WHERE playthrough = $1`, playthrough).Scan(&forgotten)
	})
	if err != nil {
		return db.explain("forget a memory", err)
	}
	if n == 0 {
		return fmt.Errorf("forget memory %d of playthrough %s: %w", id, playthrough, ErrNotFound)
	}
	db.mu.Lock()
	if l := db.idx[playthrough]; l != nil {
		if l.forgotten == forgotten-1 {
			l.x.Remove(playthrough, id)
			l.forgotten = forgotten
		} else {
			delete(db.idx, playthrough) // another server forgot too: reload
		}
	}
	db.mu.Unlock()
	return nil
}

// Recall answers q over the playthrough's committed memories (see
// narrative.Query). A query with text but no vector is embedded when
// there is an embedder; if embedding fails, or there is none, it is
// answered lexically and the matches say so in their Method.
func (db *DB) Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error) {
	return db.recall(ctx, q, false)
}

// RecallExact answers q as Recall does but scores every filtered event
// exactly, skipping the sign-bit candidates: for measuring the quantised
// path's recall.
func (db *DB) RecallExact(ctx context.Context, q narrative.Query) ([]narrative.Match, error) {
	return db.recall(ctx, q, true)
}

func (db *DB) recall(ctx context.Context, q narrative.Query, exact bool) ([]narrative.Match, error) {
	start := time.Now()
	if q.Vector == nil && strings.TrimSpace(q.Text) != "" && db.o.embedder != nil && len(q.Text) <= narrative.MaxQueryBytes {
		vs, err := db.o.embedder.Embed(ctx, []string{q.Text})
		switch {
		case err == nil && len(vs) == 1 && len(vs[0]) > 0:
			q.Vector = vs[0]
		case err == nil:
			db.o.log.Warn("narrative: embedder returned no vector for a query; answering lexically")
		default:
			db.o.log.Warn("narrative: embedding a query failed; answering lexically", "err", err)
		}
	}
	x, err := db.index(ctx, q.Playthrough)
	if err != nil {
		return nil, err
	}
	db.mu.RLock()
	var ms []narrative.Match
	if exact {
		ms, err = x.RecallExact(q)
	} else {
		ms, err = x.Recall(q)
	}
	db.mu.RUnlock()
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "recall in playthrough %s: %w", q.Playthrough, err)
	}
	db.o.log.Debug("narrative: recall", "playthrough", q.Playthrough, "results", len(ms), "took", time.Since(start),
		"vector", q.Vector != nil, "filter", q.Filter)
	return ms, nil
}

// index returns a playthrough's index, current as of the counter it reads
// first: loaded in full the first time or after another server forgot an
// event, otherwise brought up to date with the events numbered after the
// last one held (none, mostly: then this is one indexed row read).
func (db *DB) index(ctx context.Context, playthrough string) (*narrative.Index, error) {
	db.loading.Lock()
	defer db.loading.Unlock()
	var seq, forgotten int64
	err := db.h.Pool().QueryRow(ctx, `SELECT seq, forgotten FROM narrative_event_seq WHERE playthrough = $1`, playthrough).Scan(&seq, &forgotten)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, db.explain("load memories", err)
	}
	db.mu.RLock()
	l := db.idx[playthrough]
	db.mu.RUnlock()
	switch {
	case l != nil && l.forgotten == forgotten && l.seq >= seq:
		return l.x, nil
	case l != nil && l.forgotten == forgotten:
		if err := db.catchUp(ctx, playthrough, l, true); err != nil {
			db.mu.Lock()
			delete(db.idx, playthrough) // out of step: reload next time
			db.mu.Unlock()
			return nil, err
		}
		return l.x, nil
	}
	// Read without holding mu, so recalls in other playthroughs go on.
	// An event forgotten after the counter was read is simply not read;
	// the next recall sees the count moved and reloads.
	l = &loaded{x: narrative.NewIndex(narrative.IndexOptions{}), forgotten: forgotten}
	var n, dim int
	err = db.h.Pool().QueryRow(ctx, `SELECT count(*), COALESCE(max(cardinality(embedding)), 0) FROM narrative_events WHERE playthrough = $1`, playthrough).Scan(&n, &dim)
	if err != nil {
		return nil, db.explain("count memories", err)
	}
	l.x.Reserve(playthrough, n, dim)
	if err := db.catchUp(ctx, playthrough, l, false); err != nil {
		return nil, err
	}
	db.mu.Lock()
	db.idx[playthrough] = l
	db.mu.Unlock()
	return l.x, nil
}

// catchUp adds the playthrough's events numbered after l.seq to l, in
// order. A playthrough's committed events are numbered 1..n without gaps
// (see migrations/0003), so nothing is skipped. shared says l is in
// db.idx, read by recalls.
func (db *DB) catchUp(ctx context.Context, playthrough string, l *loaded, shared bool) error {
	rows, err := db.h.Pool().Query(ctx, `SELECT `+eventColumns+`, seq FROM narrative_events WHERE playthrough = $1 AND seq > $2 ORDER BY seq`, playthrough, l.seq)
	if err != nil {
		return db.explain("load memories", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		e, err := scanEvent(rows, &seq)
		if err != nil {
			return db.explain("load memories", err)
		}
		if shared {
			db.mu.Lock()
		}
		err = l.x.Add(e)
		l.seq = seq
		if shared {
			db.mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("load memories of playthrough %s: %w", playthrough, err)
		}
	}
	return db.explain("load memories", rows.Err())
}
