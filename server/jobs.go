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
	"time"

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
	errLost      = errors.New("another server took the job over")
)

// Claims are leases on jobs shared by several servers ("job:" + id): the
// holder renews them while it lives.
type Claims interface {
	// Claim takes or renews lease name; ok is false while another live
	// server holds it.
	Claim(ctx context.Context, name string) (ok, flag bool, err error)
	// Holds reports whether this server still holds lease name.
	Holds(name string) bool
	// Release gives lease name up.
	Release(ctx context.Context, name string) error
}

func jobLease(id string) string { return "job:" + id }

// jobs tracks the ingests of this process. They run one at a time:
// extraction keeps a core busy, and the chats must stay responsive.
type jobs struct {
	mu    sync.Mutex
	live  map[string]*liveJob
	admit sync.Mutex // one upload at a time decides its document id
	slot  chan struct{}
	wg    sync.WaitGroup

	scanOnce sync.Once
	quit     chan struct{} // closed at shutdown: no more jobs taken up
}

type liveJob struct {
	Job
	cancel context.CancelCauseFunc
}

func newJobs() *jobs {
	return &jobs{live: map[string]*liveJob{}, slot: make(chan struct{}, 1), quit: make(chan struct{})}
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

func (js *jobs) stopScan() {
	js.scanOnce.Do(func() { close(js.quit) })
}

// claim takes job id's lease, or reports that another server runs it.
// Without Claims every job is this server's.
func (s *Server) claim(ctx context.Context, id string) bool {
	if s.o.Claims == nil {
		return true
	}
	ok, _, err := s.o.Claims.Claim(ctx, jobLease(id))
	if err != nil {
		s.log.Warn("ingest: could not claim a job", "job", id, "err", err)
		return false
	}
	return ok
}

// unclaim gives job id's lease up, for another server to take at once.
func (s *Server) unclaim(id string) {
	if s.o.Claims == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.o.Claims.Release(ctx, jobLease(id)); err != nil {
		s.log.Warn("ingest: could not release a job", "job", id, "err", err)
	}
}

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
	defer s.unclaim(id)
	if err != nil && errors.Is(context.Cause(ctx), errLost) {
		// Its new runner writes its record from now on.
		s.log.Warn("ingest: another server took this job over; stopping here", "job", id)
		s.forget(id)
		return
	}
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
// New, before serving; it returns once the jobs are queued. With Claims
// it takes up only the jobs no other server runs, leaves the work files
// alone (they may be another server's upload in progress), and goes on
// taking up, every ClaimPoll, the jobs of servers that stopped.
func (s *Server) Resume(ctx context.Context) error {
	if s.o.Extractors == nil || s.o.WorkDir == "" {
		return nil // no ingests here: their files are left for a server that has them
	}
	unfinished, err := s.o.Library.Jobs(ctx, library.JobQuery{Unfinished: true})
	if err != nil {
		return fmt.Errorf("resume ingests: %w", err)
	}
	if s.o.Claims == nil {
		owned := map[string]bool{}
		for _, j := range unfinished {
			owned[j.ID] = true
		}
		s.removeOrphans(owned)
	}
	slices.Reverse(unfinished) // oldest first
	for _, j := range unfinished {
		s.takeUp(ctx, j)
	}
	if s.o.Claims != nil {
		go s.scanJobs()
	}
	return nil
}

// takeUp resumes unfinished job j here, unless another server runs it.
func (s *Server) takeUp(ctx context.Context, j library.Job) {
	if _, running := s.jobs.getLive(j.ID); running || !s.claim(ctx, j.ID) {
		return
	}
	data, err := os.ReadFile(s.uploadPath(j.ID))
	if err != nil {
		s.failJob(ctx, j, fmt.Sprintf("resuming after a restart: the uploaded file %s is gone from the data directory (%v); upload it again", j.File, err))
		s.unclaim(j.ID)
		return
	}
	if sum := sha256.Sum256(data); j.Hash != "" && hex.EncodeToString(sum[:]) != j.Hash {
		s.failJob(ctx, j, fmt.Sprintf("resuming after a restart: the uploaded file %s changed on disk since it was uploaded; upload it again", j.File))
		s.unclaim(j.ID)
		return
	}
	j.Status, j.Resumes = JobQueued, j.Resumes+1
	s.save(ctx, j)
	s.log.Info("resuming an interrupted ingest", "job", j.ID, "file", j.File, "stage", j.Stage)
	s.startJob(j, data)
}

// scanJobs takes up, until shutdown, the unfinished jobs whose server
// stopped renewing their claims, and stops the jobs here whose claim
// another server took.
func (s *Server) scanJobs() {
	poll := s.o.ClaimPoll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-s.jobs.quit:
			return
		case <-t.C:
		}
		s.jobs.mu.Lock()
		for id, j := range s.jobs.live {
			if !s.o.Claims.Holds(jobLease(id)) {
				j.cancel(errLost)
			}
		}
		s.jobs.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		unfinished, err := s.o.Library.Jobs(ctx, library.JobQuery{Unfinished: true})
		if err != nil {
			s.log.Warn("ingest: list unfinished jobs", "err", err)
		}
		slices.Reverse(unfinished)
		for _, j := range unfinished {
			select {
			case <-s.jobs.quit:
				cancel()
				return
			default:
			}
			s.takeUp(ctx, j)
		}
		cancel()
	}
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
