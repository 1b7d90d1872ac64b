package sqlitenarrative

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// MaxBatch bounds the events stored by one Remember call.
const MaxBatch = 10000

// ErrNotFound is returned for an event that does not exist.
var ErrNotFound = &hearth.Error{Code: hearth.NotFound, Message: "not found"}

// Remember stores events in one transaction and returns their new IDs.
// Events without an embedding get one from the embedder, if there is one,
// in one call; if that call fails they are stored without (recall by text
// still finds them lexically). Every event's embedding must have the
// dimension of the playthrough's other embeddings.
//
// A turn's own memory events are not stored here but with the turn, in
// its transaction (Turn.Memories in package store, InsertEvents).
func (db *DB) Remember(ctx context.Context, evs ...narrative.Event) ([]int64, error) {
	evs, err := db.Prepare(ctx, evs...)
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = db.tx(ctx, "remember events", func(tx *sql.Tx) error {
		ids, err = InsertEvents(ctx, tx, evs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// Prepare readies events to be stored: normalised, stamped with the wall
// time when they have none, and embedded (see Remember) when there is an
// embedder. It writes nothing: a turn prepares its events before its
// transaction begins, so that no model call holds the write lock.
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

// InsertEvents stores events inside tx, a transaction on the writer of a
// handle whose migrations include Migrations, and returns their IDs. It
// normalises them but embeds nothing (see Prepare). Recall finds them once
// tx commits: every DB reads back events committed since it last looked.
func InsertEvents(ctx context.Context, tx *sql.Tx, evs []narrative.Event) ([]int64, error) {
	evs, err := normalize(evs)
	if err != nil {
		return nil, err
	}
	dims := map[string]int{}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO narrative_events
		(playthrough, session, turn, scene, game_time, wall_time, summary, characters, location, action_type, significance, tags, kind, embedding)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	ids := make([]int64, len(evs))
	for i := range evs {
		e := &evs[i]
		if len(e.Embedding) > 0 {
			if err := checkDimension(ctx, tx, dims, e); err != nil {
				return nil, err
			}
		}
		chars, _ := json.Marshal(nonNil(e.Characters))
		tags, _ := json.Marshal(nonNil(e.Tags))
		res, err := stmt.ExecContext(ctx, e.Playthrough, e.Session, e.Turn, e.Scene, int64(e.At), e.Wall.UnixNano(),
			e.Summary, string(chars), e.Location, e.Action, e.Significance, string(tags), string(e.Kind), encodeVector(e.Embedding))
		if err != nil {
			return nil, err
		}
		if ids[i], err = res.LastInsertId(); err != nil {
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
func checkDimension(ctx context.Context, tx *sql.Tx, dims map[string]int, e *narrative.Event) error {
	d, ok := dims[e.Playthrough]
	if !ok {
		var n sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT length(embedding) FROM narrative_events
			WHERE playthrough = ? AND embedding IS NOT NULL ORDER BY id LIMIT 1`, e.Playthrough).Scan(&n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		d = int(n.Int64 / 4)
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

func scanEvent(s interface{ Scan(...any) error }) (narrative.Event, error) {
	var e narrative.Event
	var at, wall int64
	var chars, tags, kind string
	var blob []byte
	if err := s.Scan(&e.ID, &e.Playthrough, &e.Session, &e.Turn, &e.Scene, &at, &wall, &e.Summary, &chars, &e.Location,
		&e.Action, &e.Significance, &tags, &kind, &blob); err != nil {
		return e, err
	}
	e.At, e.Wall, e.Kind = world.GameTime(at), time.Unix(0, wall).UTC(), narrative.Kind(kind)
	if err := json.Unmarshal([]byte(chars), &e.Characters); err != nil {
		return e, fmt.Errorf("memory %d: characters: %w", e.ID, err)
	}
	if err := json.Unmarshal([]byte(tags), &e.Tags); err != nil {
		return e, fmt.Errorf("memory %d: tags: %w", e.ID, err)
	}
	if len(e.Characters) == 0 {
		e.Characters = nil
	}
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	v, err := decodeVector(blob)
	if err != nil {
		return e, fmt.Errorf("memory %d: %w", e.ID, err)
	}
	e.Embedding = v
	return e, nil
}

// Event returns one stored event, with its embedding.
func (db *DB) Event(ctx context.Context, playthrough string, id int64) (narrative.Event, error) {
	e, err := scanEvent(db.r.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM narrative_events WHERE playthrough = ? AND id = ?`, playthrough, id))
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("memory %d of playthrough %s: %w", id, playthrough, ErrNotFound)
	}
	if err != nil {
		return e, db.explain("read a memory", err)
	}
	return e, nil
}

// Forget deletes an event (the seed's retention policies).
func (db *DB) Forget(ctx context.Context, playthrough string, id int64) error {
	db.loading.Lock() // no catch-up adds it back while it goes
	defer db.loading.Unlock()
	var n int64
	err := db.tx(ctx, "forget a memory", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM narrative_events WHERE playthrough = ? AND id = ?`, playthrough, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("forget memory %d of playthrough %s: %w", id, playthrough, ErrNotFound)
	}
	db.mu.Lock()
	if l := db.idx[playthrough]; l != nil {
		l.x.Remove(playthrough, id)
		// SQLite gives the next event the highest ID plus one, so the ID
		// of a deleted last event comes back: read it again when it does.
		if id <= l.last {
			l.last = min(l.last, id-1)
		}
	}
	db.mu.Unlock()
	return nil
}

// Recall answers q over the playthrough's memories (see narrative.Query).
// A query with text but no vector is embedded when there is an embedder;
// if embedding fails, or there is none, it is answered lexically and the
// matches say so in their Method.
func (db *DB) Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error) {
	return db.recall(ctx, q, false)
}

// RecallExact answers q as Recall does but scores every filtered event
// exactly, skipping the sign-bit candidates: for measuring the quantised
// path's recall, and for debugging a memory that Recall missed.
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

// index returns a playthrough's index, reading its events on first use
// and, after that, the events committed since it last read.
func (db *DB) index(ctx context.Context, playthrough string) (*narrative.Index, error) {
	db.loading.Lock()
	defer db.loading.Unlock()
	db.mu.RLock()
	l := db.idx[playthrough]
	db.mu.RUnlock()
	if l == nil {
		// Read without holding mu, so recalls in other playthroughs go on.
		l = &loaded{x: narrative.NewIndex(db.o.index)}
		var n, dim int
		err := db.r.QueryRowContext(ctx, `SELECT count(*), COALESCE(MAX(length(embedding)), 0) / 4 FROM narrative_events WHERE playthrough = ?`, playthrough).Scan(&n, &dim)
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
	if err := db.catchUp(ctx, playthrough, l, true); err != nil {
		db.mu.Lock()
		delete(db.idx, playthrough) // out of step: reload next time
		db.mu.Unlock()
		return nil, err
	}
	return l.x, nil
}

// catchUp adds the playthrough's events after l.last to l, in ID order.
// The caller holds db.loading.
// Committed events form a prefix of the IDs (one writer at a time), so
// nothing is skipped. shared says l is in db.idx, read by recalls.
func (db *DB) catchUp(ctx context.Context, playthrough string, l *loaded, shared bool) error {
	if db.newer == nil {
		stmt, err := db.r.PrepareContext(ctx, `SELECT `+eventColumns+` FROM narrative_events WHERE playthrough = ? AND id > ? ORDER BY id`)
		if err != nil {
			return db.explain("load memories", err)
		}
		db.newer = stmt
	}
	rows, err := db.newer.QueryContext(ctx, playthrough, l.last)
	if err != nil {
		return db.explain("load memories", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return db.explain("load memories", err)
		}
		if shared {
			db.mu.Lock()
		}
		err = l.x.Add(e)
		l.last = e.ID
		if shared {
			db.mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("load memories of playthrough %s from %s: %w", playthrough, db.path, err)
		}
	}
	if err := rows.Err(); err != nil {
		return db.explain("load memories", err)
	}
	return nil
}
