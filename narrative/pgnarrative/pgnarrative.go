// Package pgnarrative keeps narrative memory in PostgreSQL, the
// counterpart of narrative/sqlitenarrative. Its tables are prefixed
// narrative_ and its schema is component "narrative" in hearth_schema
// (package internal/pgdb).
//
// So far it holds memory events only: the table a turn's events are
// written to in the turn's transaction (InsertEvents, called by
// store/pgstore) and Recall, which reads a playthrough's events afresh on
// every call and answers with narrative.Recall. Reputation, perception,
// beats, stats, Remember/Forget and the incremental recall index are not
// ported yet, which is why package database refuses PostgreSQL for now.
package pgnarrative

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/pgdb"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations are the narrative tables' numbered files.
var Migrations = pgdb.Migrations{Component: "narrative", FS: migrations, Dir: "migrations", What: "the narrative tables"}

// MaxBatch bounds the events stored at once, as in SQLite.
const MaxBatch = 10000

// DB reads narrative memory from a shared handle.
type DB struct {
	h *pgdb.DB
}

// New serves narrative memory from h, whose migrations must include
// Migrations. Close does not close h.
func New(h *pgdb.DB) *DB { return &DB{h: h} }

// Close does nothing: the handle is shared.
func (db *DB) Close() error { return nil }

// InsertEvents stores events inside tx, normalised, and returns their
// IDs. It embeds nothing: events come prepared.
func InsertEvents(ctx context.Context, tx pgx.Tx, evs []narrative.Event) ([]int64, error) {
	if len(evs) > MaxBatch {
		return nil, fmt.Errorf("remember %d events at once; the limit is %d: split the batch", len(evs), MaxBatch)
	}
	evs = append([]narrative.Event(nil), evs...)
	dims := map[string]int{}
	ids := make([]int64, len(evs))
	for i := range evs {
		e := &evs[i]
		e.ID = 0
		if err := e.Normalize(); err != nil {
			return nil, err
		}
		if e.Wall.IsZero() {
			e.Wall = time.Now().UTC()
		}
		if len(e.Embedding) > 0 {
			if err := checkDimension(ctx, tx, dims, e); err != nil {
				return nil, err
			}
		}
		var emb []float32
		if len(e.Embedding) > 0 {
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
		return fmt.Errorf("memory %q has a %d-dimension embedding but playthrough %s stores %d: use one embedding model per playthrough",
			e.Summary, len(e.Embedding), e.Playthrough, d)
	}
	dims[e.Playthrough] = len(e.Embedding)
	return nil
}

// Events returns a playthrough's events in the order they were stored.
func (db *DB) Events(ctx context.Context, playthrough string) ([]narrative.Event, error) {
	rows, err := db.h.Pool().Query(ctx, `SELECT id, playthrough, session, turn, scene, game_time, wall_time, summary,
		characters, location, action_type, significance, tags, kind, embedding
		FROM narrative_events WHERE playthrough = $1 ORDER BY id`, playthrough)
	if err != nil {
		return nil, db.h.Explain("load memories", err)
	}
	defer rows.Close()
	var out []narrative.Event
	for rows.Next() {
		var e narrative.Event
		var at, wall int64
		var kind string
		if err := rows.Scan(&e.ID, &e.Playthrough, &e.Session, &e.Turn, &e.Scene, &at, &wall, &e.Summary,
			&e.Characters, &e.Location, &e.Action, &e.Significance, &e.Tags, &kind, &e.Embedding); err != nil {
			return nil, db.h.Explain("load memories", err)
		}
		e.At, e.Wall, e.Kind = world.GameTime(at), time.Unix(0, wall).UTC(), narrative.Kind(kind)
		if len(e.Characters) == 0 {
			e.Characters = nil
		}
		if len(e.Tags) == 0 {
			e.Tags = nil
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.h.Explain("load memories", err)
	}
	return out, nil
}

// Recall answers q over the playthrough's committed memories (see
// narrative.Query), scanning them all: correct, not yet fast.
func (db *DB) Recall(ctx context.Context, q narrative.Query) ([]narrative.Match, error) {
	evs, err := db.Events(ctx, q.Playthrough)
	if err != nil {
		return nil, err
	}
	ms, err := narrative.Recall(evs, q)
	if err != nil {
		return nil, fmt.Errorf("recall in playthrough %s: %w", q.Playthrough, err)
	}
	return ms, nil
}
