package library

import (
	"context"
	"time"

	"github.com/hearth-rpg/hearth/access"
)

// Job is an upload being ingested by the server, kept so that it
// survives a restart: an unfinished job is resumed from its checkpoints
// when the server starts again.
type Job struct {
	ID     string       `json:"id"`
	File   string       `json:"file"` // the uploaded file's name
	Title  string       `json:"title,omitempty"`
	Tags   []string     `json:"tags,omitempty"`
	Access access.Level `json:"access_level"`
	// Hash is the sha256 hex of the uploaded bytes.
	Hash string `json:"hash,omitempty"`
	// DocumentID is the id the document gets, chosen at upload so that a
	// resumed job writes the same document.
	DocumentID string `json:"document_id,omitempty"`
	Status     string `json:"status"` // JobQueued, JobRunning, JobDone, JobFailed
	// Stage is the pipeline stage last started, while unfinished.
	Stage string `json:"stage,omitempty"`
	// Error says why a failed job failed, in words for a person.
	Error string `json:"error,omitempty"`
	// Resumes counts the times the job was taken up again after the
	// server stopped while it ran.
	Resumes  int        `json:"resumes,omitempty"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
}

// Job statuses.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// JobQuery selects jobs, newest first.
type JobQuery struct {
	Unfinished bool // only queued and running jobs
	Limit      int  // 0: all
}

// JobStore keeps ingest jobs.
type JobStore interface {
	// SaveJob writes a job, replacing the one with its id.
	SaveJob(ctx context.Context, j Job) error
	// Job returns a job by id, whatever its level; ErrNotFound (wrapped)
	// when there is none.
	Job(ctx context.Context, id string) (Job, error)
	// Jobs returns the jobs q selects, newest first.
	Jobs(ctx context.Context, q JobQuery) ([]Job, error)
	// PruneJobs removes finished jobs but the keep most recently finished,
	// and says how many it removed.
	PruneJobs(ctx context.Context, keep int) (int, error)
}

// SaveJob writes a job, replacing the one with its id.
func (l *Library) SaveJob(ctx context.Context, j Job) error { return l.st.SaveJob(ctx, j) }

// Job returns a job by id, whatever its level: the caller decides who
// may see it.
func (l *Library) Job(ctx context.Context, id string) (Job, error) { return l.st.Job(ctx, id) }

// Jobs returns the jobs q selects, newest first.
func (l *Library) Jobs(ctx context.Context, q JobQuery) ([]Job, error) { return l.st.Jobs(ctx, q) }

// PruneJobs forgets finished jobs but the keep most recent.
func (l *Library) PruneJobs(ctx context.Context, keep int) (int, error) {
	return l.st.PruneJobs(ctx, keep)
}
