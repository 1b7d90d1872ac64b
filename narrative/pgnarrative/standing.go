package pgnarrative

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/world"
)

// The two kinds of standing share the history table.
const (
	kindReputation = "reputation"
	kindPerception = "perception"
)

// Reputation returns the player's standing with a faction at game time
// now, after decay (Value is as of now). A faction never changed is
// neutral.
func (db *DB) Reputation(ctx context.Context, playthrough, faction string, now world.GameTime) (narrative.Standing, error) {
	s, _, err := readStanding(ctx, db.h.Pool(), kindReputation, playthrough, faction)
	if err != nil {
		return s, db.explain("read reputation", err)
	}
	return narrative.Standing{Subject: faction, Value: s.Current(now, db.o.reputation.Decay), At: now}, nil
}

// Reputations returns every faction the player has a standing with, at
// game time now, by faction ID.
func (db *DB) Reputations(ctx context.Context, playthrough string, now world.GameTime) ([]narrative.Standing, error) {
	rows, err := db.h.Pool().Query(ctx, `SELECT faction, score, game_time FROM narrative_reputation WHERE playthrough = $1 ORDER BY faction`, playthrough)
	if err != nil {
		return nil, db.explain("read reputations", err)
	}
	defer rows.Close()
	var out []narrative.Standing
	for rows.Next() {
		var s narrative.Standing
		var at int64
		if err := rows.Scan(&s.Subject, &s.Value, &at); err != nil {
			return nil, db.explain("read reputations", err)
		}
		s.At = world.GameTime(at)
		out = append(out, narrative.Standing{Subject: s.Subject, Value: s.Current(now, db.o.reputation.Decay), At: now})
	}
	return out, db.explain("read reputations", rows.Err())
}

// ChangeReputation applies c (Subject the faction, Delta, At, Turn,
// Reason) in one transaction: decays the stored standing to c.At, adds
// the delta, clamps to the scale and records the change in the history.
// It returns the change as recorded, with Before and After.
func (db *DB) ChangeReputation(ctx context.Context, playthrough string, c narrative.Change) (narrative.Change, error) {
	var out narrative.Change
	if err := checkSubject("faction", c.Subject); err != nil {
		return out, err
	}
	err := db.tx(ctx, "change reputation", playthrough, func(tx pgx.Tx) error {
		cur, _, err := readStanding(ctx, tx, kindReputation, playthrough, c.Subject)
		if err != nil {
			return err
		}
		next, ch, err := cur.Adjust(c.Delta, c.At, c.Reason, db.o.reputation.Scale, db.o.reputation.Decay)
		if err != nil {
			return hearth.Errorf(hearth.Invalid, "%w", err)
		}
		ch.Turn, ch.Wall = c.Turn, wallOr(c.Wall)
		if _, err := tx.Exec(ctx, `INSERT INTO narrative_reputation (playthrough, faction, score, game_time, updated_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (playthrough, faction) DO UPDATE SET score = excluded.score,
			game_time = excluded.game_time, updated_at = excluded.updated_at`,
			playthrough, c.Subject, next.Value, int64(next.At), time.Now().UnixNano()); err != nil {
			return err
		}
		out = ch
		return addHistory(ctx, tx, kindReputation, playthrough, ch)
	})
	return out, err
}

// ReputationHistory returns a faction's changes, oldest first.
func (db *DB) ReputationHistory(ctx context.Context, playthrough, faction string) ([]narrative.Change, error) {
	h, err := history(ctx, db.h.Pool(), kindReputation, playthrough, faction)
	return h, db.explain("read reputation history", err)
}

// Meet records the player meeting an NPC at game time at: the first time,
// the NPC's perception starts from a first impression (§4.2.3: their
// faction's current standing with the player, the impression of visible
// traits and chance, weighed by the perception settings), recorded in
// the history; later meetings change nothing. im.Standing and im.Scale
// are filled in here from the faction's reputation. It returns the NPC's
// perception at that moment and whether this was the first meeting.
func (db *DB) Meet(ctx context.Context, playthrough, npc string, im narrative.Impression, at world.GameTime, turn int) (narrative.Standing, bool, error) {
	var out narrative.Standing
	var first bool
	if err := checkSubject("NPC", npc); err != nil {
		return out, false, err
	}
	err := db.tx(ctx, "meet an NPC", playthrough, func(tx pgx.Tx) error {
		cur, met, err := readStanding(ctx, tx, kindPerception, playthrough, npc)
		if err != nil {
			return err
		}
		if met {
			out = narrative.Standing{Subject: npc, Value: cur.Current(at, db.o.perception.Decay), At: at}
			return nil
		}
		first = true
		if im.Faction != "" {
			rep, _, err := readStanding(ctx, tx, kindReputation, playthrough, im.Faction)
			if err != nil {
				return err
			}
			im.Standing, im.Scale = rep.Current(at, db.o.reputation.Decay), db.o.reputation.Scale
		}
		v, why := db.o.perception.FirstImpression(im)
		out = narrative.Standing{Subject: npc, Value: v, At: at}
		if _, err := tx.Exec(ctx, `INSERT INTO narrative_perception (playthrough, npc, faction, score, game_time, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, playthrough, npc, im.Faction, v, int64(at), time.Now().UnixNano()); err != nil {
			return err
		}
		return addHistory(ctx, tx, kindPerception, playthrough, narrative.Change{Subject: npc, At: at, Wall: wallOr(time.Time{}),
			Turn: turn, Delta: v, After: v, Reason: why})
	})
	return out, first, err
}

// Perception returns an NPC's perception of the player at game time now,
// after decay, and whether the player has met them (an NPC never met is
// neutral).
func (db *DB) Perception(ctx context.Context, playthrough, npc string, now world.GameTime) (narrative.Standing, bool, error) {
	s, met, err := readStanding(ctx, db.h.Pool(), kindPerception, playthrough, npc)
	if err != nil {
		return s, false, db.explain("read perception", err)
	}
	return narrative.Standing{Subject: npc, Value: s.Current(now, db.o.perception.Decay), At: now}, met, nil
}

// ChangePerception applies c (Subject the NPC) as ChangeReputation does.
// Call Meet first: an NPC never met starts from neutral here, without the
// first impression.
func (db *DB) ChangePerception(ctx context.Context, playthrough string, c narrative.Change) (narrative.Change, error) {
	var out narrative.Change
	if err := checkSubject("NPC", c.Subject); err != nil {
		return out, err
	}
	err := db.tx(ctx, "change perception", playthrough, func(tx pgx.Tx) error {
		cur, _, err := readStanding(ctx, tx, kindPerception, playthrough, c.Subject)
		if err != nil {
			return err
		}
		next, ch, err := cur.Adjust(c.Delta, c.At, c.Reason, narrative.Scale{}, db.o.perception.Decay)
		if err != nil {
			return hearth.Errorf(hearth.Invalid, "%w", err)
		}
		ch.Turn, ch.Wall = c.Turn, wallOr(c.Wall)
		if _, err := tx.Exec(ctx, `INSERT INTO narrative_perception (playthrough, npc, score, game_time, updated_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (playthrough, npc) DO UPDATE SET score = excluded.score,
			game_time = excluded.game_time, updated_at = excluded.updated_at`,
			playthrough, c.Subject, next.Value, int64(next.At), time.Now().UnixNano()); err != nil {
			return err
		}
		out = ch
		return addHistory(ctx, tx, kindPerception, playthrough, ch)
	})
	return out, err
}

// PerceptionHistory returns an NPC's changes, oldest first: the seed's
// interaction history.
func (db *DB) PerceptionHistory(ctx context.Context, playthrough, npc string) ([]narrative.Change, error) {
	h, err := history(ctx, db.h.Pool(), kindPerception, playthrough, npc)
	return h, db.explain("read perception history", err)
}

// Modifier returns the roll modifier an NPC's perception gives at game
// time now (0 for an NPC never met), capped to ±limit when limit > 0.
func (db *DB) Modifier(ctx context.Context, playthrough, npc string, now world.GameTime, limit int) (narrative.Modifier, error) {
	s, met, err := db.Perception(ctx, playthrough, npc, now)
	if err != nil || !met {
		return narrative.Modifier{Source: narrative.FromPerception, Reason: npc + " has not met the player"}, err
	}
	ms := narrative.Modifiers(narrative.Situation{NPC: npc, Perception: s.Value, Scale: db.o.perception.ModifierScale, Limit: limit})
	if len(ms) == 0 {
		return narrative.Modifier{Source: narrative.FromPerception, Reason: fmt.Sprintf("%s is neutral (perception %+.0f)", npc, s.Value)}, nil
	}
	return ms[0], nil
}

func readStanding(ctx context.Context, q querier, kind, playthrough, subject string) (narrative.Standing, bool, error) {
	table, col := "narrative_reputation", "faction"
	if kind == kindPerception {
		table, col = "narrative_perception", "npc"
	}
	s := narrative.Standing{Subject: subject}
	var at int64
	err := q.QueryRow(ctx, `SELECT score, game_time FROM `+table+` WHERE playthrough = $1 AND `+col+` = $2`, playthrough, subject).Scan(&s.Value, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, false, nil
	}
	s.At = world.GameTime(at)
	return s, err == nil, err
}

func addHistory(ctx context.Context, tx pgx.Tx, kind, playthrough string, c narrative.Change) error {
	if err := checkSubject(kind+" subject", c.Subject); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO narrative_standing_history
		(playthrough, kind, subject, game_time, wall_time, turn, score_before, delta, score_after, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		playthrough, kind, c.Subject, int64(c.At), c.Wall.UnixNano(), c.Turn, c.Before, c.Delta, c.After, c.Reason)
	return err
}

func history(ctx context.Context, q querier, kind, playthrough, subject string) ([]narrative.Change, error) {
	rows, err := q.Query(ctx, `SELECT game_time, wall_time, turn, score_before, delta, score_after, reason FROM narrative_standing_history
		WHERE playthrough = $1 AND kind = $2 AND subject = $3 ORDER BY id`, playthrough, kind, subject)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []narrative.Change
	for rows.Next() {
		c := narrative.Change{Subject: subject}
		var at, wall int64
		if err := rows.Scan(&at, &wall, &c.Turn, &c.Before, &c.Delta, &c.After, &c.Reason); err != nil {
			return nil, err
		}
		c.At, c.Wall = world.GameTime(at), time.Unix(0, wall).UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

func checkSubject(what, s string) error {
	if s == "" || len(s) > narrative.MaxNameBytes {
		return hearth.Errorf(hearth.Invalid, "%s %q: give an ID of 1 to %d bytes", what, s, narrative.MaxNameBytes)
	}
	return nil
}

func wallOr(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}
