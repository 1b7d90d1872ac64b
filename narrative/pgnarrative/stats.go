package pgnarrative

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
)

// Stats returns the playthrough's stat values by key.
func (db *DB) Stats(ctx context.Context, playthrough string) (map[string]int, error) {
	v, err := stats(ctx, db.h.Pool(), playthrough)
	return v, db.explain("read stats", err)
}

func stats(ctx context.Context, q querier, playthrough string) (map[string]int, error) {
	rows, err := q.Query(ctx, `SELECT stat, value FROM narrative_stats WHERE playthrough = $1`, playthrough)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var v int
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// InitStats gives every defined stat the playthrough lacks its starting
// value (narrative.InitStats), keeps the ones it has, and returns all.
func (db *DB) InitStats(ctx context.Context, playthrough string, defs []narrative.StatDef) (map[string]int, error) {
	init, err := narrative.InitStats(defs)
	if err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "%w", err)
	}
	var out map[string]int
	err = db.tx(ctx, "initialise stats", playthrough, func(tx pgx.Tx) error {
		now := time.Now().UnixNano()
		for _, k := range slices.Sorted(maps.Keys(init)) {
			if _, err := tx.Exec(ctx, `INSERT INTO narrative_stats (playthrough, stat, value, updated_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (playthrough, stat) DO NOTHING`, playthrough, k, init[k], now); err != nil {
				return err
			}
		}
		out, err = stats(ctx, tx, playthrough)
		return err
	})
	return out, err
}

// SetStats sets stats by key, each clamped into its definition's range
// (§6.2.8), in one transaction, and returns the values stored. An unknown
// key fails the whole change.
func (db *DB) SetStats(ctx context.Context, playthrough string, defs []narrative.StatDef, changes map[string]int) (map[string]int, error) {
	set := map[string]int{}
	for k, v := range changes {
		if _, err := narrative.SetStat(defs, set, k, v); err != nil {
			return nil, hearth.Errorf(hearth.Invalid, "set stats of playthrough %s: %w", playthrough, err)
		}
	}
	err := db.tx(ctx, "set stats", playthrough, func(tx pgx.Tx) error {
		now := time.Now().UnixNano()
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if _, err := tx.Exec(ctx, `INSERT INTO narrative_stats (playthrough, stat, value, updated_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (playthrough, stat) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
				playthrough, k, set[k], now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}
