package pglibrary

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
)

const jobColumns = `id, file, title, tags, access, hash, document, status, stage, error, resumes, started, finished`

// SaveJob implements library.Store.
func (s *Store) SaveJob(ctx context.Context, j library.Job) error {
	var finished *int64
	if j.Finished != nil {
		n := j.Finished.UnixNano()
		finished = &n
	}
	_, err := s.h.Pool().Exec(ctx, `INSERT INTO library_jobs (`+jobColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (id) DO UPDATE SET file = excluded.file, title = excluded.title, tags = excluded.tags,
			access = excluded.access, hash = excluded.hash, document = excluded.document, status = excluded.status,
			stage = excluded.stage, error = excluded.error, resumes = excluded.resumes, started = excluded.started,
			finished = excluded.finished`,
		j.ID, j.File, j.Title, nonNil(j.Tags), int(j.Access), j.Hash, j.DocumentID, j.Status, j.Stage, j.Error, j.Resumes,
		j.Started.UnixNano(), finished)
	return s.h.Explain(fmt.Sprintf("save ingest job %s", j.ID), err)
}

func scanJob(row pgx.Row) (library.Job, error) {
	var j library.Job
	var started int64
	var finished *int64
	var lv int
	if err := row.Scan(&j.ID, &j.File, &j.Title, &j.Tags, &lv, &j.Hash, &j.DocumentID, &j.Status, &j.Stage, &j.Error, &j.Resumes,
		&started, &finished); err != nil {
		return j, err
	}
	j.Access = access.Level(lv)
	if len(j.Tags) == 0 {
		j.Tags = nil
	}
	j.Started = time.Unix(0, started).UTC()
	if finished != nil {
		t := time.Unix(0, *finished).UTC()
		j.Finished = &t
	}
	return j, nil
}

// Job implements library.Store.
func (s *Store) Job(ctx context.Context, id string) (library.Job, error) {
	j, err := scanJob(s.h.Pool().QueryRow(ctx, `SELECT `+jobColumns+` FROM library_jobs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return j, fmt.Errorf("ingest job %q: %w", id, library.ErrNotFound)
	}
	return j, s.h.Explain(fmt.Sprintf("ingest job %q", id), err)
}

// Jobs implements library.Store.
func (s *Store) Jobs(ctx context.Context, q library.JobQuery) ([]library.Job, error) {
	query := `SELECT ` + jobColumns + ` FROM library_jobs`
	if q.Unfinished {
		query += ` WHERE finished IS NULL`
	}
	query += ` ORDER BY started DESC, id COLLATE "C" DESC`
	var args []any
	if q.Limit > 0 {
		query += ` LIMIT $1`
		args = append(args, q.Limit)
	}
	rows, err := s.h.Pool().Query(ctx, query, args...)
	if err != nil {
		return nil, s.h.Explain("list ingest jobs", err)
	}
	defer rows.Close()
	var out []library.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, s.h.Explain("list ingest jobs", err)
		}
		out = append(out, j)
	}
	return out, s.h.Explain("list ingest jobs", rows.Err())
}

// PruneJobs implements library.Store.
func (s *Store) PruneJobs(ctx context.Context, keep int) (int, error) {
	tag, err := s.h.Pool().Exec(ctx, `DELETE FROM library_jobs WHERE finished IS NOT NULL AND id NOT IN
		(SELECT id FROM library_jobs WHERE finished IS NOT NULL ORDER BY finished DESC, id COLLATE "C" DESC LIMIT $1)`, max(keep, 0))
	if err != nil {
		return 0, s.h.Explain("prune ingest jobs", err)
	}
	return int(tag.RowsAffected()), nil
}
