package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/internal/api"
)

// uploadMeta is the document's metadata: a JSON "metadata" part (seed 000
// §4.3.5) or separate title, access_level and tags fields.
type uploadMeta struct {
	Title       string   `json:"title"`
	AccessLevel string   `json:"access_level"`
	Access      string   `json:"access,omitempty"` // deprecated alias of access_level
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
		case "metadata", "title", "access_level", "access", "tags":
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
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	s.jobs.admit.Lock()
	defer s.jobs.admit.Unlock()
	if ex, ok, err := s.existing(r.Context(), u.Role, hash, meta.Title); err != nil {
		s.fail(w, r, err)
		return
	} else if ok {
		w.Header().Set("Location", "/api/documents/"+ex.location)
		api.JSON(w, http.StatusOK, ex)
		return
	}
	docID, err := s.newDocumentID(r.Context(), hash, meta.Title)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	j := library.Job{ID: "job_" + strings.ToLower(rand.Text()[:12]), File: name, Title: meta.Title, Tags: meta.Tags, Access: level,
		Hash: hash, DocumentID: docID, Status: JobQueued, Started: s.o.Now()}
	// The bytes stay in the data directory until the job is done, so that
	// a restart can resume it (Resume).
	if err := os.Rename(tmp, s.uploadPath(j.ID)); err != nil {
		s.fail(w, r, err)
		return
	}
	tmp = s.uploadPath(j.ID) // removed below unless the job is saved
	// Claimed before it is saved, so that no other server takes it up.
	if !s.claim(r.Context(), j.ID) {
		s.fail(w, r, fmt.Errorf("claim ingest job %s: the database did not answer", j.ID))
		return
	}
	if err := s.o.Library.SaveJob(r.Context(), j); err != nil {
		s.unclaim(j.ID)
		s.fail(w, r, err)
		return
	}
	tmp = ""
	s.startJob(j, data)
	w.Header().Set("Location", "/api/documents/"+j.ID)
	api.JSON(w, http.StatusAccepted, Job{Job: j})
}

// duplicate answers an upload of bytes the library already has under
// the title asked for (or any title, when none is asked for): the
// document, or the job still ingesting it. Nothing new is made.
type duplicate struct {
	Existing   bool              `json:"existing"` // always true: nothing new was made
	DocumentID string            `json:"document_id"`
	Document   *library.Document `json:"document,omitempty"` // when ingested
	Job        *Job              `json:"job,omitempty"`      // when still ingesting
	location   string
}

// existing finds what an upload of the file with this hash under title
// duplicates, among what role may see.
func (s *Server) existing(ctx context.Context, role access.Level, hash, title string) (duplicate, bool, error) {
	same := func(t string) bool { return title == "" || t == title }
	docs, err := s.o.Library.WithHash(ctx, hash)
	if err != nil {
		return duplicate{}, false, err
	}
	for _, d := range docs {
		if role.CanSee(d.Access) && same(d.Title) {
			return duplicate{Existing: true, DocumentID: d.ID, Document: &d, location: d.ID}, true, nil
		}
	}
	jobs, err := s.o.Library.Jobs(ctx, library.JobQuery{Unfinished: true})
	if err != nil {
		return duplicate{}, false, err
	}
	for _, rec := range jobs {
		if rec.Hash == hash && role.CanSee(rec.Access) && same(rec.Title) {
			j, _ := s.job(ctx, rec.ID, role)
			return duplicate{Existing: true, DocumentID: rec.DocumentID, Job: &j, location: rec.ID}, true, nil
		}
	}
	return duplicate{}, false, nil
}

// newDocumentID picks the id of a new document of the file with this
// hash: the one `hearth ingest` gives it when the library has no
// document of that id, else one derived from the file and the title (the
// same bytes under another title are another document, with chunks of
// its own), else a random one.
func (s *Server) newDocumentID(ctx context.Context, hash, title string) (string, error) {
	jobs, err := s.o.Library.Jobs(ctx, library.JobQuery{Unfinished: true})
	if err != nil {
		return "", err
	}
	taken := func(id string) (bool, error) {
		for _, j := range jobs {
			if j.DocumentID == id {
				return true, nil
			}
		}
		_, err := s.o.Library.Document(ctx, id, access.GM)
		if errors.Is(err, library.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	titled := sha256.Sum256([]byte(hash + "\x00" + title))
	for _, id := range []string{pipeline.DocumentID(hash), pipeline.DocumentID(hex.EncodeToString(titled[:]))} {
		if t, err := taken(id); err != nil || !t {
			return id, err
		}
	}
	return pipeline.DocumentID(hash) + "-" + strings.ToLower(rand.Text()[:8]), nil
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
	case "access_level", "access":
		m.AccessLevel = strings.TrimSpace(string(b))
	case "tags":
		m.Tags = nil
		for _, t := range strings.Split(string(b), ",") {
			if t = strings.TrimSpace(t); t != "" {
				m.Tags = append(m.Tags, t)
			}
		}
	}
	if m.Access != "" {
		if m.AccessLevel != "" && m.AccessLevel != m.Access {
			return errors.New("access is the old name of access_level; give one")
		}
		m.AccessLevel, m.Access = m.Access, ""
	}
	if len(m.Title) > 300 {
		return errors.New("title is longer than 300 characters")
	}
	if len(m.Tags) > 50 {
		return errors.New("more than 50 tags")
	}
	return nil
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
	jobs, err := s.listJobs(r.Context(), role)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	api.JSON(w, http.StatusOK, map[string]any{"documents": docs, "ingesting": jobs})
}

// getDocument returns a document's record, or the job still ingesting it.
func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	id, role := r.PathValue("id"), user(r).Role
	if j, ok := s.job(r.Context(), id, role); ok {
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
	Access      *string   `json:"access,omitempty"` // deprecated alias of access_level
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
	if p.Access != nil {
		if p.AccessLevel != nil && *p.AccessLevel != *p.Access {
			api.Error(w, r, api.Invalid, "documents.bad_access", map[string]any{"Value": *p.Access})
			return
		}
		p.AccessLevel = p.Access
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
	// An ingest still running is stopped, and fails.
	if j, ok := s.job(r.Context(), id, u.Role); ok {
		if j.Finished == nil {
			s.jobs.cancel(id, errCancelled)
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
