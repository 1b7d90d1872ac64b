package pgnarrative

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/narrative"
)

// BeatLog returns the state of the playthrough's plot beats.
func (db *DB) BeatLog(ctx context.Context, playthrough string) (narrative.BeatLog, error) {
	l, err := beatLog(ctx, db.h.Pool(), playthrough)
	return l, db.explain("read plot beats", err)
}

func beatLog(ctx context.Context, q querier, playthrough string) (narrative.BeatLog, error) {
	rows, err := q.Query(ctx, `SELECT beat, status, eligible_since, scene, reason FROM narrative_beats WHERE playthrough = $1`, playthrough)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	l := narrative.BeatLog{}
	for rows.Next() {
		var id, status string
		var st narrative.BeatState
		if err := rows.Scan(&id, &status, &st.EligibleSince, &st.Scene, &st.Reason); err != nil {
			return nil, err
		}
		st.Status = narrative.BeatStatus(status)
		l[id] = st
	}
	return l, rows.Err()
}

// RecordBeats stores the state the decisions lead to, in one transaction.
func (db *DB) RecordBeats(ctx context.Context, playthrough string, ds []narrative.Decision) error {
	return db.tx(ctx, "record plot beats", playthrough, func(tx pgx.Tx) error { return recordBeats(ctx, tx, playthrough, ds) })
}

func recordBeats(ctx context.Context, tx pgx.Tx, playthrough string, ds []narrative.Decision) error {
	next := narrative.BeatLog{}.Apply(ds)
	now := time.Now().UnixNano()
	for _, d := range ds {
		st := next[d.Beat]
		if _, err := tx.Exec(ctx, `INSERT INTO narrative_beats (playthrough, beat, status, eligible_since, scene, reason, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (playthrough, beat) DO UPDATE SET status = excluded.status,
			eligible_since = excluded.eligible_since, scene = excluded.scene, reason = excluded.reason, updated_at = excluded.updated_at`,
			playthrough, d.Beat, string(st.Status), st.EligibleSince, st.Scene, st.Reason, now); err != nil {
			return err
		}
	}
	return nil
}

// Transition evaluates the plot beats at the transition into scene and
// records the result, reading and writing the beat state in one
// transaction so two transitions can never trigger a beat twice. v reads
// the game state; see narrative.EvaluateBeats for the rules.
func (db *DB) Transition(ctx context.Context, playthrough string, scene int, beats []narrative.Beat, v narrative.View, opt narrative.BeatOptions) ([]narrative.Decision, error) {
	var ds []narrative.Decision
	err := db.tx(ctx, "evaluate plot beats", playthrough, func(tx pgx.Tx) error {
		l, err := beatLog(ctx, tx, playthrough)
		if err != nil {
			return err
		}
		if ds, err = narrative.EvaluateBeats(beats, v, l, scene, opt); err != nil {
			return err
		}
		return recordBeats(ctx, tx, playthrough, ds)
	})
	return ds, err
}
