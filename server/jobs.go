package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
)

// Job is an upload being ingested in the background: its record, kept in
// the library so that it survives a restart, and its progress within the
// stage, known only while it runs.
type Job struct {
	library.Job
	Done  int `json:"done,omitempty"`  // units of the stage (pages while extracting)
	Total int `json:"total,omitempty"` // of Done
}

// Job statuses.
const (
	JobQueued  = library.JobQueued
	JobRunning = library.JobRunning
	JobDone    = library.JobDone
	JobFailed  = library.JobFailed
)

// finishedJobsKept bounds the finished jobs the library remembers.
const finishedJobsKept = 100

// Why a job's context ends: a server stopping leaves the job to resume
// at the next start; a user's DELETE fails it.
var (
	errShutdown  = errors.New("the server is stopping")
	errCancelled = errors.New("cancelled by a user")
)

// jobs tracks the ingests of this process. They run one at a time:
// extraction keeps a core busy, and the chats must stay responsive.
type jobs struct {
	mu    sync.Mutex
	live  map[string]*liveJob
	admit sync.Mutex // one upload at a time decides its document id
	slot  chan struct{}
	wg    sync.WaitGroup
}

type liveJob struct {
	Job
	cancel context.CancelCauseFunc
}

func newJobs() *jobs {
	return &jobs{live: map[string]*liveJob{}, slot: make(chan struct{}, 1)}
}

// update changes a live job and returns a copy of it.
func (js *jobs) update(id string, fn func(*Job)) (Job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j := js.live[id]
	if j == nil {
		return Job{}, false
	}
	fn(&j.Job)
	return j.Job, true
}

func (js *jobs) getLive(id string) (Job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.live[id]; j != nil {
		return j.Job, true
	}
	return Job{}, false
}

func (js *jobs) cancel(id string, cause error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.live[id]; j != nil {
		j.cancel(cause)
	}
}

func (js *jobs) cancelAll(cause error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.live {
		j.cancel(cause)
	}
}

func (js *jobs) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { js.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// job returns a job role may see: live, with its progress, or as the
// library keeps it.
func (s *Server) job(ctx context.Context, id string, role access.Level) (Job, bool) {
	j, ok := s.jobs.getLive(id)
	if !ok {
		rec, err := s.o.Library.Job(ctx, id)
		if err != nil {
			return Job{}, false
		}
		j = Job{Job: rec}
	}
	if !role.CanSee(j.Access) {
		return Job{}, false
	}
	return j, true
}

// listJobs returns the jobs role may see, newest first.
func (s *Server) listJobs(ctx context.Context, role access.Level) ([]Job, error) {
	recs, err := s.o.Library.Jobs(ctx, library.JobQuery{Limit: finishedJobsKept})
	if err != nil {
		return nil, err
	}
	out := []Job{}
	for _, rec := range recs {
		j, ok := s.jobs.getLive(rec.ID)
		if !ok {
			j = Job{Job: rec}
		}
		if role.CanSee(j.Access) {
			out = append(out, j)
		}
	}
	return out, nil
}

// uploadPath is where a job's uploaded bytes wait until it is done.
func (s *Server) uploadPath(id string) string { return filepath.Join(s.o.WorkDir, "uploads", id) }

// workPath holds a job's checkpoints.
func (s *Server) workPath(id string) string { return filepath.Join(s.o.WorkDir, "ingest", id) }

// startJob runs a saved job in the background.
func (s *Server) startJob(j library.Job, data []byte) {
	ctx, cancel := context.WithCancelCause(context.Background())
	s.jobs.mu.Lock()
	s.jobs.live[j.ID] = &liveJob{Job: Job{Job: j}, cancel: cancel}
	s.jobs.mu.Unlock()
	s.jobs.wg.Add(1)
	o := pipeline.Options{Name: j.File, Data: data, Registry: s.o.Extractors, Store: s.o.Library,
		WorkDir: s.workPath(j.ID), DocumentID: j.DocumentID, Title: j.Title, Tags: j.Tags, Access: j.Access,
		Checker: s.o.Checker, Log: s.log}
	if s.o.BeforeStage != nil {
		o.BeforeStage = func(ctx context.Context, stage string) error { return s.o.BeforeStage(ctx, j.ID, stage) }
	}
	go s.ingest(ctx, j.ID, o)
}

// ingest runs one job when the ingest slot is free.
func (s *Server) ingest(ctx context.Context, id string, o pipeline.Options) {
	defer s.jobs.wg.Done()
	select {
	case s.jobs.slot <- struct{}{}:
		defer func() { <-s.jobs.slot }()
	case <-ctx.Done():
		s.finishJob(ctx, id, pipeline.Result{}, context.Cause(ctx))
		return
	}
	if j, ok := s.jobs.update(id, func(j *Job) { j.Status = JobRunning }); ok {
		s.save(ctx, j.Job)
	}
	o.Progress = func(e pipeline.Event) {
		started := false
		j, _ := s.jobs.update(id, func(j *Job) {
			started = !e.Finished && e.Stage != j.Stage
			j.Stage, j.Done, j.Total = e.Stage, e.Done, e.Total
		})
		if started { // a stage a restart can be seen to resume at
			s.save(ctx, j.Job)
		}
	}
	res, err := pipeline.Run(ctx, o)
	s.finishJob(ctx, id, res, err)
}

// save writes a job's record; a failure is logged, as the ingest itself
// goes on.
func (s *Server) save(ctx context.Context, j library.Job) {
	if err := s.o.Library.SaveJob(context.WithoutCancel(ctx), j); err != nil {
		s.log.Warn("ingest: could not save the job's state", "job", j.ID, "err", err)
	}
}

// finishJob records how a job ended. A job stopped by the server
// stopping is left unfinished, its upload and checkpoints kept, to resume
// at the next start.
func (s *Server) finishJob(ctx context.Context, id string, res pipeline.Result, err error) {
	if err != nil && errors.Is(context.Cause(ctx), errShutdown) {
		if j, ok := s.jobs.update(id, func(j *Job) { j.Status, j.Done, j.Total = JobQueued, 0, 0 }); ok {
			s.save(ctx, j.Job)
			s.log.Info("ingest interrupted by shutdown; it resumes at the next start", "job", id, "file", j.File, "stage", j.Stage)
		}
		s.forget(id)
		return
	}
	now := s.o.Now()
	j, ok := s.jobs.update(id, func(j *Job) {
		j.Finished, j.Done, j.Total = &now, 0, 0
		if err != nil {
			if errors.Is(context.Cause(ctx), errCancelled) {
				err = errCancelled
			}
			j.Status, j.Error = JobFailed, err.Error()
			return
		}
		j.Status, j.DocumentID, j.Stage = JobDone, res.DocumentID, ""
		if j.Title == "" {
			j.Title = res.Title
		}
	})
	if !ok {
		return
	}
	s.save(ctx, j.Job)
	s.forget(id)
	if err != nil {
		s.log.Warn("ingest failed", "job", id, "file", j.File, "err", err)
	} else {
		s.log.Info("ingested", "job", id, "file", j.File, "document", res.DocumentID, "pages", res.Pages, "chunks", res.Chunks)
	}
	s.removeWork(id)
	if _, err := s.o.Library.PruneJobs(context.WithoutCancel(ctx), finishedJobsKept); err != nil {
		s.log.Warn("ingest: could not forget old jobs", "err", err)
	}
}

func (s *Server) forget(id string) {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	if j := s.jobs.live[id]; j != nil {
		j.cancel(nil)
		delete(s.jobs.live, id)
	}
}

// removeWork removes a finished job's upload and checkpoints.
func (s *Server) removeWork(id string) {
	for _, p := range []string{s.uploadPath(id), s.workPath(id)} {
		if err := os.RemoveAll(p); err != nil {
			s.log.Warn("ingest: could not remove a finished job's files", "path", p, "err", err)
		}
	}
}

// failJob records that a job cannot go on, with the reason in words for
// the person who uploaded it, and removes its files.
func (s *Server) failJob(ctx context.Context, j library.Job, reason string) {
	now := s.o.Now()
	j.Status, j.Error, j.Finished = JobFailed, reason, &now
	s.save(ctx, j)
	s.log.Warn("ingest cannot resume", "job", j.ID, "file", j.File, "reason", reason)
	s.removeWork(j.ID)
}

// Resume takes up the ingests an earlier run of the server left
// unfinished (stopped, killed or crashed), each from its checkpoints, and
// removes the work files no unfinished job owns. A job whose upload is
// gone or changed is marked failed with the reason. Call it once after
// New, before serving; it returns once the jobs are queued.
func (s *Server) Resume(ctx context.Context) error {
	if s.o.Extractors == nil || s.o.WorkDir == "" {
		return nil // no ingests here: their files are left for a server that has them
	}
	unfinished, err := s.o.Library.Jobs(ctx, library.JobQuery{Unfinished: true})
	if err != nil {
		return fmt.Errorf("resume ingests: %w", err)
	}
	owned := map[string]bool{}
	for _, j := range unfinished {
		owned[j.ID] = true
	}
	s.removeOrphans(owned)
	slices.Reverse(unfinished) // oldest first
	for _, j := range unfinished {
		data, err := os.ReadFile(s.uploadPath(j.ID))
		if err != nil {
			s.failJob(ctx, j, fmt.Sprintf("resuming after a restart: the uploaded file %s is gone from the data directory (%v); upload it again", j.File, err))
			continue
		}
		if sum := sha256.Sum256(data); j.Hash != "" && hex.EncodeToString(sum[:]) != j.Hash {
			s.failJob(ctx, j, fmt.Sprintf("resuming after a restart: the uploaded file %s changed on disk since it was uploaded; upload it again", j.File))
			continue
		}
		j.Status, j.Resumes = JobQueued, j.Resumes+1
		s.save(ctx, j)
		s.log.Info("resuming an interrupted ingest", "job", j.ID, "file", j.File, "stage", j.Stage)
		s.startJob(j, data)
	}
	return nil
}

// removeOrphans removes the uploads and checkpoint directories under
// WorkDir that belong to no unfinished job: left by a job that finished
// while its files could not be removed, by an upload cut off before it
// became a job, or by an older layout.
func (s *Server) removeOrphans(owned map[string]bool) {
	for _, sub := range []string{"uploads", "ingest"} {
		dir := filepath.Join(s.o.WorkDir, sub)
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				s.log.Warn("ingest: cannot list work files", "dir", dir, "err", err)
			}
			continue
		}
		for _, e := range entries {
			if owned[e.Name()] {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if err := os.RemoveAll(p); err != nil {
				s.log.Warn("ingest: could not remove orphaned work files", "path", p, "err", err)
				continue
			}
			s.log.Info("ingest: removed orphaned work files", "path", p)
		}
	}
}
