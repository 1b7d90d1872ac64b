package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/internal/api"
)

// Job is an upload being ingested in the background.
type Job struct {
	ID         string       `json:"id"`
	File       string       `json:"file"`
	Title      string       `json:"title,omitempty"`
	Tags       []string     `json:"tags,omitempty"`
	Access     access.Level `json:"access_level"`
	Status     string       `json:"status"` // queued, running, done, failed
	Stage      string       `json:"stage,omitempty"`
	Done       int          `json:"done,omitempty"`  // units of the stage (pages while extracting)
	Total      int          `json:"total,omitempty"` // of Done
	DocumentID string       `json:"document_id,omitempty"`
	Error      string       `json:"error,omitempty"`
	Started    time.Time    `json:"started"`
	Finished   *time.Time   `json:"finished,omitempty"`

	cancel context.CancelFunc
}

// Job statuses.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// jobs tracks ingests. They run one at a time: extraction keeps a core
// busy, and the chats must stay responsive.
type jobs struct {
	mu   sync.Mutex
	m    map[string]*Job
	slot chan struct{}
	wg   sync.WaitGroup
}

// finishedJobsKept bounds the memory of finished jobs.
const finishedJobsKept = 100

func newJobs() *jobs {
	return &jobs{m: map[string]*Job{}, slot: make(chan struct{}, 1)}
}

func (js *jobs) add(j *Job) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.m[j.ID] = j
	var finished []*Job
	for _, x := range js.m {
		if x.Finished != nil {
			finished = append(finished, x)
		}
	}
	if len(finished) > finishedJobsKept {
		slices.SortFunc(finished, func(a, b *Job) int { return a.Finished.Compare(*b.Finished) })
		for _, x := range finished[:len(finished)-finishedJobsKept] {
			delete(js.m, x.ID)
		}
	}
}

func (js *jobs) update(id string, fn func(*Job)) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.m[id]; j != nil {
		fn(j)
	}
}

// list returns copies of the jobs role may see, newest first.
func (js *jobs) list(role access.Level) []Job {
	js.mu.Lock()
	defer js.mu.Unlock()
	out := []Job{}
	for _, j := range js.m {
		if role.CanSee(j.Access) {
			c := *j
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Job) int { return b.Started.Compare(a.Started) })
	return out
}

func (js *jobs) get(id string, role access.Level) (Job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j := js.m[id]
	if j == nil || !role.CanSee(j.Access) {
		return Job{}, false
	}
	return *j, true
}

func (js *jobs) cancelAll() {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.m {
		if j.cancel != nil {
			j.cancel()
		}
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

// uploadMeta is the document's metadata: a JSON "metadata" part (seed 000
// §4.3.5) or separate title, access_level and tags fields.
type uploadMeta struct {
	Title       string   `json:"title"`
	AccessLevel string   `json:"access_level"`
	Tags        []string `json:"tags"`
}

const maxMetaBytes = 64 << 10

func (s *Server) uploadDocument(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if u.Role < access.Assistant {
		api.Error(w, r, api.Forbidden, "documents.upload_role", nil)
		return
	}
	if s.o.Extractors == nil || s.o.WorkDir == "" {
		api.Error(w, r, api.Unavailable, "documents.no_ingest", nil)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxUploadBytes+maxMetaBytes+4096)
	mr, err := r.MultipartReader()
	if err != nil {
		api.Error(w, r, api.Invalid, "documents.not_multipart", nil)
		return
	}
	dir := filepath.Join(s.o.WorkDir, "uploads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		s.fail(w, r, err)
		return
	}
	var meta uploadMeta
	var name, tmp string
	defer func() {
		if tmp != "" {
			os.Remove(tmp)
		}
	}()
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.uploadReadError(w, r, err)
			return
		}
		switch part.FormName() {
		case "file":
			if tmp != "" {
				api.Error(w, r, api.Invalid, "documents.one_file", nil)
				return
			}
			name = filepath.Base(part.FileName())
			if name == "." || name == "/" || name == "" {
				name = "upload"
			}
			tmp, err = s.saveUpload(dir, part)
			if err != nil {
				s.uploadReadError(w, r, err)
				return
			}
		case "metadata", "title", "access_level", "tags":
			b, err := io.ReadAll(io.LimitReader(part, maxMetaBytes+1))
			if err != nil {
				s.uploadReadError(w, r, err)
				return
			}
			if len(b) > maxMetaBytes {
				api.Error(w, r, api.TooLarge, "documents.meta_too_large", nil)
				return
			}
			if err := meta.set(part.FormName(), b); err != nil {
				api.Error(w, r, api.Invalid, "documents.bad_meta", map[string]any{"Reason": err.Error()})
				return
			}
		default:
			// Unknown fields are ignored, as unknown JSON fields would be
			// by most clients; their bytes are drained by NextPart.
		}
	}
	if tmp == "" {
		api.Error(w, r, api.Invalid, "documents.no_file", nil)
		return
	}
	level := access.Player
	if meta.AccessLevel != "" {
		if level, err = access.Parse(meta.AccessLevel); err != nil {
			api.Error(w, r, api.Invalid, "documents.bad_access", map[string]any{"Value": meta.AccessLevel})
			return
		}
	}
	if !u.Role.CanSee(level) {
		api.Error(w, r, api.Forbidden, "documents.access_above_role", nil)
		return
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if _, err := ingest.Detect(name, data); err != nil {
		api.Error(w, r, api.Invalid, "documents.unsupported", map[string]any{"Name": name})
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	j := &Job{ID: "job_" + rand.Text()[:12], File: name, Title: meta.Title, Tags: meta.Tags, Access: level,
		Status: JobQueued, Started: s.o.Now(), cancel: cancel}
	answer := *j // the ingest changes j from now on
	s.jobs.add(j)
	s.jobs.wg.Add(1)
	go s.ingest(ctx, j.ID, pipeline.Options{Name: name, Data: data, Registry: s.o.Extractors, Store: s.o.Library,
		WorkDir: filepath.Join(s.o.WorkDir, "ingest"), Title: meta.Title, Tags: meta.Tags, Access: level, Checker: s.o.Checker})
	w.Header().Set("Location", "/api/documents/"+answer.ID)
	api.JSON(w, http.StatusAccepted, answer)
}

// saveUpload streams a file part to a temporary file, stopping at the
// upload limit.
func (s *Server) saveUpload(dir string, part *multipart.Part) (string, error) {
	f, err := os.CreateTemp(dir, "upload-*")
	if err != nil {
		return "", err
	}
	n, err := io.Copy(f, io.LimitReader(part, s.o.MaxUploadBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > s.o.MaxUploadBytes {
		err = &http.MaxBytesError{Limit: s.o.MaxUploadBytes}
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func (s *Server) uploadReadError(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		api.Error(w, r, api.TooLarge, "documents.too_large", map[string]any{"MB": s.o.MaxUploadBytes >> 20})
		return
	}
	api.Error(w, r, api.Invalid, "documents.bad_upload", map[string]any{"Reason": err.Error()})
}

func (m *uploadMeta) set(field string, b []byte) error {
	switch field {
	case "metadata":
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(m); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	case "title":
		m.Title = strings.TrimSpace(string(b))
	case "access_level":
		m.AccessLevel = strings.TrimSpace(string(b))
	case "tags":
		m.Tags = nil
		for _, t := range strings.Split(string(b), ",") {
			if t = strings.TrimSpace(t); t != "" {
				m.Tags = append(m.Tags, t)
			}
		}
	}
	if len(m.Title) > 300 {
		return errors.New("title is longer than 300 characters")
	}
	if len(m.Tags) > 50 {
		return errors.New("more than 50 tags")
	}
	return nil
}

// ingest runs one job when the ingest slot is free.
func (s *Server) ingest(ctx context.Context, id string, o pipeline.Options) {
	defer s.jobs.wg.Done()
	select {
	case s.jobs.slot <- struct{}{}:
		defer func() { <-s.jobs.slot }()
	case <-ctx.Done():
		s.finishJob(id, pipeline.Result{}, ctx.Err())
		return
	}
	s.jobs.update(id, func(j *Job) { j.Status = JobRunning })
	o.Progress = func(e pipeline.Event) {
		s.jobs.update(id, func(j *Job) { j.Stage, j.Done, j.Total = e.Stage, e.Done, e.Total })
	}
	res, err := pipeline.Run(ctx, o)
	s.finishJob(id, res, err)
}

func (s *Server) finishJob(id string, res pipeline.Result, err error) {
	now := s.o.Now()
	s.jobs.update(id, func(j *Job) {
		j.Finished = &now
		j.cancel()
		if err != nil {
			j.Status, j.Error = JobFailed, err.Error()
			s.log.Warn("ingest failed", "job", id, "file", j.File, "err", err)
			return
		}
		j.Status, j.DocumentID, j.Stage, j.Done, j.Total = JobDone, res.DocumentID, "", 0, 0
		if j.Title == "" {
			j.Title = res.Title
		}
		s.log.Info("ingested", "job", id, "file", j.File, "document", res.DocumentID, "pages", res.Pages, "chunks", res.Chunks)
	})
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) {
	role := user(r).Role
	docs, err := s.o.Library.List(r.Context(), role)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if docs == nil {
		docs = []library.Document{}
	}
	api.JSON(w, http.StatusOK, map[string]any{"documents": docs, "ingesting": s.jobs.list(role)})
}

// getDocument returns a document's record, or the job still ingesting it.
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	id, role := r.PathValue("id"), user(r).Role
	if j, ok := s.jobs.get(id, role); ok {
		api.JSON(w, http.StatusOK, j)
		return
	}
	d, err := s.o.Library.Document(r.Context(), id, role)
	if err != nil {
		s.fail(w, r, err, api.Say{Code: api.NotFound, ID: "documents.not_found", Data: map[string]any{"ID": id}})
		return
	}
	api.JSON(w, http.StatusOK, d)
}

func (s *Server) getPage(w http.ResponseWriter, r *http.Request) {
	id, role := r.PathValue("id"), user(r).Role
	n, err := strconv.Atoi(r.PathValue("page"))
	if err != nil || n < 1 {
		api.Error(w, r, api.Invalid, "documents.bad_page", map[string]any{"Value": r.PathValue("page")})
		return
	}
	p, err := s.o.Library.Get(r.Context(), id, n, role)
	if err != nil {
		s.fail(w, r, err, api.Say{Code: api.NotFound, ID: "documents.page_not_found", Data: map[string]any{"ID": id, "Page": n}})
		return
	}
	api.JSON(w, http.StatusOK, map[string]any{"document_id": id, "page": p.Number, "label": p.Label, "text": p.Text})
}

// documentPatch changes a document's metadata; absent fields stay.
type documentPatch struct {
	Title       *string   `json:"title,omitempty"`
	AccessLevel *string   `json:"access_level,omitempty"`
	Tags        *[]string `json:"tags,omitempty"`
}

func (s *Server) patchDocument(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if u.Role < access.Assistant {
		api.Error(w, r, api.Forbidden, "documents.change_role", nil)
		return
	}
	var p documentPatch
	if !api.DecodeOrError(w, r, &p, s.o.MaxBodyBytes) {
		return
	}
	id := r.PathValue("id")
	var ch library.Change
	ch.Title, ch.Tags = p.Title, p.Tags
	if p.Title != nil && (strings.TrimSpace(*p.Title) == "" || len(*p.Title) > 300) {
		api.Error(w, r, api.Invalid, "documents.bad_title", nil)
		return
	}
	if p.AccessLevel != nil {
		level, err := access.Parse(*p.AccessLevel)
		if err != nil {
			api.Error(w, r, api.Invalid, "documents.bad_access", map[string]any{"Value": *p.AccessLevel})
			return
		}
		if !u.Role.CanSee(level) {
			api.Error(w, r, api.Forbidden, "documents.access_above_role", nil)
			return
		}
		ch.Access = &level
	}
	d, err := s.o.Library.Update(r.Context(), id, u.Role, ch)
	if err != nil {
		s.fail(w, r, err, api.Say{Code: api.NotFound, ID: "documents.not_found", Data: map[string]any{"ID": id}})
		return
	}
	api.JSON(w, http.StatusOK, d)
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	if u.Role < access.Assistant {
		api.Error(w, r, api.Forbidden, "documents.change_role", nil)
		return
	}
	id := r.PathValue("id")
	// An ingest still running is stopped; its checkpoints stay for a retry.
	if j, ok := s.jobs.get(id, u.Role); ok {
		if j.Finished == nil {
			s.jobs.update(id, func(j *Job) { j.cancel() })
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// Only what the user can see can be deleted; anything else is absent.
	if _, err := s.o.Library.Document(r.Context(), id, u.Role); err != nil {
		s.fail(w, r, err, api.Say{Code: api.NotFound, ID: "documents.not_found", Data: map[string]any{"ID": id}})
		return
	}
	if err := s.o.Library.Delete(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
