package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/server"
)

var raiders = []byte("# Vargr Raiders\n\nVargr corsairs prey on the Spinward Main, striking from gas giant refuelling points.\n")

// waitJob polls the job-status route until until(job) holds.
func waitJob(t *testing.T, f *fixture, id string, until func(server.Job) bool) server.Job {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j := decode[server.Job](t, f.do("GET", "/api/documents/"+id, f.gmKey, nil))
		if until(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: still %+v", id, j)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone polls until the file at p no longer exists, for up to two
// minutes; the error is the last Stat's.
func waitGone(p string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func finished(j server.Job) bool { return j.Status == server.JobDone || j.Status == server.JobFailed }

// uploadDone uploads and waits for the ingest to finish well.
func uploadDone(t *testing.T, f *fixture, name, meta string, content []byte) server.Job {
	t.Helper()
	resp := upload(t, f, f.gmKey, name, meta, content)
	if resp.StatusCode != 202 {
		t.Fatalf("upload: %d %s", resp.StatusCode, body(resp))
	}
	j := waitJob(t, f, decode[server.Job](t, resp).ID, finished)
	if j.Status != server.JobDone {
		t.Fatalf("job %+v", j)
	}
	return j
}

// The same bytes under another title are a second document, with chunks
// of its own; the same bytes under the same title (or none) answer the
// document already there and make nothing.
func TestReuploadSameBytes(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	first := uploadDone(t, f, "raiders.md", `{"title":"Vargr Raiders","tags":["first"]}`, raiders)
	second := uploadDone(t, f, "raiders.md", `{"title":"Raiders, the Second Copy","tags":["second"]}`, raiders)
	if first.DocumentID == second.DocumentID {
		t.Fatalf("both uploads made document %s", first.DocumentID)
	}
	// Search cuts passages of the same text as duplicates: each copy is
	// looked for by its own tag.
	search := func(tag string) []byte {
		return body(f.do("POST", "/api/search", f.gmKey, map[string]any{"query": "Vargr corsairs", "filters": map[string]any{"tags": []string{tag}}}))
	}
	if b := search("first"); !bytes.Contains(b, []byte(first.DocumentID)) {
		t.Fatalf("search does not find the first: %s", b)
	}
	if b := search("second"); !bytes.Contains(b, []byte(second.DocumentID)) || !bytes.Contains(b, []byte("doc:"+second.DocumentID+"#0")) {
		t.Fatalf("search does not find the second, with chunk ids of its own: %s", b)
	}
	tests := []struct {
		name, meta string
		want       string // the document answered
	}{
		{"same title", `{"title":"Vargr Raiders"}`, first.DocumentID},
		{"the second title", `{"title":"Raiders, the Second Copy"}`, second.DocumentID},
		{"no title: the oldest", ``, first.DocumentID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := upload(t, f, f.gmKey, "raiders.md", tt.meta, raiders)
			if resp.StatusCode != 200 {
				t.Fatalf("re-upload: %d %s", resp.StatusCode, body(resp))
			}
			got := decode[struct {
				Existing   bool              `json:"existing"`
				DocumentID string            `json:"document_id"`
				Document   *library.Document `json:"document"`
			}](t, resp)
			if !got.Existing || got.DocumentID != tt.want || got.Document == nil || got.Document.ID != tt.want {
				t.Errorf("answer %+v, want existing document %s", got, tt.want)
			}
		})
	}
	list := decode[struct {
		Documents []library.Document `json:"documents"`
	}](t, f.do("GET", "/api/documents", f.gmKey, nil))
	if len(list.Documents) != 4 { // the fixture's two and the uploads' two
		t.Errorf("documents: %+v", list.Documents)
	}
	// Each is deleted alone.
	if resp := f.do("DELETE", "/api/documents/"+second.DocumentID, f.gmKey, nil); resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if b := search("second"); bytes.Contains(b, []byte(second.DocumentID)) {
		t.Fatalf("the deleted second is found: %s", b)
	}
	if b := search("first"); !bytes.Contains(b, []byte(first.DocumentID)) {
		t.Fatalf("the first is lost with the second: %s", b)
	}
}

// pauseAt holds every ingest as stage starts, until the server stops.
func pauseAt(stage string) func(ctx context.Context, job, s string) error {
	return func(ctx context.Context, job, s string) error {
		if s != stage {
			return nil
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}
}

// interrupted uploads raiders and stops the server while the ingest is in
// classify: the job is left for the next start.
func interrupted(t *testing.T, f *fixture) server.Job {
	t.Helper()
	resp := upload(t, f, f.gmKey, "raiders.md", `{"title":"Vargr Raiders","tags":["vargr"]}`, raiders)
	if resp.StatusCode != 202 {
		t.Fatalf("upload: %d %s", resp.StatusCode, body(resp))
	}
	j := waitJob(t, f, decode[server.Job](t, resp).ID, func(j server.Job) bool { return j.Stage == "classify" })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	rec, err := f.lib.Job(ctx, j.ID)
	if err != nil || rec.Finished != nil || rec.Status != server.JobQueued || rec.Stage != "classify" {
		t.Fatalf("the job after a shutdown: %+v %v", rec, err)
	}
	return j
}

func TestResumeAfterRestart(t *testing.T) {
	work := func(f *fixture, parts ...string) string {
		return filepath.Join(append([]string{filepath.Dir(f.db), "work"}, parts...)...)
	}
	tests := []struct {
		name string
		// prepare leaves an unfinished job as a stopped server would.
		prepare    func(t *testing.T, f *fixture) string
		wantStatus string
		wantError  string
	}{
		{"resumes from its checkpoints", func(t *testing.T, f *fixture) string {
			return interrupted(t, f).ID
		}, server.JobDone, ""},
		{"a corrupt checkpoint is done again", func(t *testing.T, f *fixture) string {
			j := interrupted(t, f)
			cps, _ := filepath.Glob(work(f, "ingest", j.ID, "*", "01-extract.json"))
			if len(cps) != 1 {
				t.Fatalf("checkpoints: %v", cps)
			}
			if err := os.WriteFile(cps[0], []byte("{not json"), 0o600); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}, server.JobDone, ""},
		{"the upload is gone", func(t *testing.T, f *fixture) string {
			j := interrupted(t, f)
			if err := os.Remove(work(f, "uploads", j.ID)); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}, server.JobFailed, "is gone from the data directory"},
		{"the upload changed", func(t *testing.T, f *fixture) string {
			j := interrupted(t, f)
			if err := os.WriteFile(work(f, "uploads", j.ID), []byte("# Other\n\nAnother book.\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}, server.JobFailed, "changed on disk"},
		{"the extractor fails", func(t *testing.T, f *fixture) string {
			bad := []byte("   \n\n  \n")
			sum := sha256.Sum256(bad)
			j := library.Job{ID: "job_badbytes", File: "blank.md", Access: access.Player, Hash: hex.EncodeToString(sum[:]),
				DocumentID: "blank", Status: server.JobRunning, Stage: "extract", Started: time.Now()}
			if err := os.MkdirAll(work(f, "uploads"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(work(f, "uploads", j.ID), bad, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := f.lib.SaveJob(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}, server.JobFailed, "extract: read Markdown: the file is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{beforeStage: pauseAt("classify")})
			id := tt.prepare(t, f)
			f.opts.BeforeStage = nil
			f.serve() // the restart
			j := waitJob(t, f, id, finished)
			if j.Status != tt.wantStatus || !strings.Contains(j.Error, tt.wantError) {
				t.Fatalf("job after the restart: %+v, want %s %q", j, tt.wantStatus, tt.wantError)
			}
			if tt.wantStatus == server.JobDone {
				if j.Resumes != 1 || j.DocumentID == "" {
					t.Errorf("resumed job: %+v", j)
				}
				b := body(f.do("POST", "/api/search", f.gmKey, map[string]any{"query": "Vargr corsairs", "filters": map[string]any{"tags": []string{"vargr"}}}))
				if !bytes.Contains(b, []byte(j.DocumentID)) {
					t.Errorf("the resumed document is not found: %s", b)
				}
			}
			// Done or failed, its files go: just after the job is
			// recorded finished, so the test waits for them (recorded
			// first, a crash in between leaves files the next start
			// removes as orphaned, never a finished job without them).
			for _, p := range []string{work(f, "uploads", id), work(f, "ingest", id)} {
				if err := waitGone(p); err != nil {
					t.Errorf("%s is left: %v", p, err)
				}
			}
		})
	}
}

// At start-up, uploads and checkpoint directories no unfinished job owns
// are removed, each logged; an unfinished job's are kept.
func TestOrphanedWorkRemoved(t *testing.T) {
	var logs syncbuf.Buffer
	f := newFixture(t, fixtureOpts{log: slog.New(slog.NewTextHandler(&logs, nil)), beforeStage: pauseAt("extract")})
	work := filepath.Join(filepath.Dir(f.db), "work")
	sum := sha256.Sum256(raiders)
	kept := library.Job{ID: "job_kept", File: "raiders.md", Access: access.Player, Hash: hex.EncodeToString(sum[:]),
		DocumentID: "kept", Status: server.JobQueued, Started: time.Now()}
	if err := f.lib.SaveJob(context.Background(), kept); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{ // path under work: kept?
		"uploads/job_kept":                    true,
		"ingest/job_kept/abc/01-extract.json": true,
		"uploads/upload-123456":               false, // an upload cut off before it was a job
		"uploads/job_lost":                    false, // a job the library does not know
		"ingest/job_lost/abc/01-extract.json": false,
		"ingest/0123abcd/01-extract.json":     false, // the layout before jobs were kept
	}
	for p := range files {
		p = filepath.Join(work, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		content := []byte("{}")
		if strings.HasSuffix(p, "job_kept") {
			content = raiders
		}
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.serve() // the restart
	t.Cleanup(func() { f.srv.Shutdown(context.Background()) })
	for p, keep := range files {
		_, err := os.Stat(filepath.Join(work, p))
		if keep && err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
		if !keep && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	out := logs.String()
	for _, p := range []string{"uploads/upload-123456", "uploads/job_lost", "ingest/job_lost", "ingest/0123abcd"} {
		if !strings.Contains(out, "removed orphaned work files") || !strings.Contains(out, filepath.Join(work, p)) {
			t.Errorf("the log does not name %s:\n%s", p, out)
		}
	}
	if strings.Contains(out, filepath.Join(work, "uploads", "job_kept")+" ") {
		t.Errorf("the log names the kept job's upload as removed:\n%s", out)
	}
	// The kept job is the one resuming.
	j := waitJob(t, f, "job_kept", func(j server.Job) bool { return j.Stage == "extract" })
	if j.Resumes != 1 || j.Status != server.JobRunning {
		t.Errorf("kept job: %+v", j)
	}
}
