package sqlitelibrary

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
)

// stamp is a fixed-width UTC time, so that text order is time order.
const stamp = "2006-01-02T15:04:05.000000000Z"

const jobColumns = `id, file, title, tags, access, hash, document, status, stage, error, resumes, started, finished`

// SaveJob implements library.Store.
func (s *Store) SaveJob(ctx context.Context, j library.Job) error {
	tags, _ := json.Marshal(nonNil(j.Tags))
	var finished sql.NullString
	if j.Finished != nil {
		finished = sql.NullString{String: j.Finished.UTC().Format(stamp), Valid: true}
	}
	_, err := s.w.ExecContext(ctx, `INSERT OR REPLACE INTO library_jobs (`+jobColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.File, j.Title, string(tags), int(j.Access), j.Hash, j.DocumentID, j.Status, j.Stage, j.Error, j.Resumes,
		j.Started.UTC().Format(stamp), finished)
	if err != nil {
		return fmt.Errorf("save ingest job %s: %w", j.ID, err)
	}
	return nil
}

func scanJob(row interface{ Scan(...any) error }) (library.Job, error) {
	var j library.Job
	var tags, started string
	var finished sql.NullString
	var lv int
	if err := row.Scan(&j.ID, &j.File, &j.Title, &tags, &lv, &j.Hash, &j.DocumentID, &j.Status, &j.Stage, &j.Error, &j.Resumes,
		&started, &finished); err != nil {
		return j, err
	}
	j.Access = access.Level(lv)
	if err := json.Unmarshal([]byte(tags), &j.Tags); err != nil {
		return j, fmt.Errorf("ingest job %s: tags: %w", j.ID, err)
	}
	if len(j.Tags) == 0 {
		j.Tags = nil
	}
	j.Started, _ = time.Parse(stamp, started)
	if finished.Valid {
		t, _ := time.Parse(stamp, finished.String)
		j.Finished = &t
	}
	return j, nil
}

// Job implements library.Store.
func (s *Store) Job(ctx context.Context, id string) (library.Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM library_jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("ingest job %q: %w", id, library.ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("ingest job %q: %w", id, err)
	}
	return j, nil
}

// Jobs implements library.Store.
func (s *Store) Jobs(ctx context.Context, q library.JobQuery) ([]library.Job, error) {
	query := `SELECT ` + jobColumns + ` FROM library_jobs`
	if q.Unfinished {
		query += ` WHERE finished IS NULL`
	}
	query += ` ORDER BY started DESC, id DESC`
	var args []any
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list ingest jobs: %w", err)
	}
	defer rows.Close()
	var out []library.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list ingest jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// PruneJobs implements library.Store.
func (s *Store) PruneJobs(ctx context.Context, keep int) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM library_jobs WHERE finished IS NOT NULL AND id NOT IN
		(SELECT id FROM library_jobs WHERE finished IS NOT NULL ORDER BY finished DESC, id DESC LIMIT ?)`, max(keep, 0))
	if err != nil {
		return 0, fmt.Errorf("prune ingest jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
