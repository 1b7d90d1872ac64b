package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

const openD6PDF = "../../../shared/testdata/pdf/minimal-opend6-srd.pdf"

// uploadJob is what the job-status route answers.
type uploadJob struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Stage      string `json:"stage"`
	DocumentID string `json:"document_id"`
	Error      string `json:"error"`
	Resumes    int    `json:"resumes"`
}

// apiCall sends a request with a key and returns the status and body.
func apiCall(t *testing.T, method, url, key, contentType string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// waitJob polls the job-status route until done says the job is where
// the test wants it.
func waitJob(t *testing.T, url, key, id string, done func(uploadJob) bool) uploadJob {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute) // extraction on a loaded machine
	for {
		code, b := apiCall(t, "GET", url+"/api/documents/"+id, key, "", nil)
		var j uploadJob
		if code == 200 {
			json.Unmarshal(b, &j)
			if done(j) {
				return j
			}
			if j.Status == "failed" || j.Status == "done" {
				t.Fatalf("job ended before the test saw what it waited for: %s", b)
			}
		} else {
			t.Fatalf("job status: %d %s", code, b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s/%s after five minutes", j.Status, j.Stage)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestServeUploadSurvivesKill uploads a real PDF to hearth serve, kills
// the server with SIGKILL while the ingest is in its classify stage,
// starts it again on the same data directory and sees the same job
// finish from its checkpoints — without uploading again — and the
// document searchable.
func TestServeUploadSurvivesKill(t *testing.T) {
	pdf := needFile(t, openD6PDF)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	dir, gmKey, _ := dataWithSecret(t)
	// The test polls the job often: a budget to fit.
	limits := []string{"HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=1000"}
	cmd, url := launchServe(t, dir, "", append(limits, servePauseEnv+"=classify")...)
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("metadata", `{"title":"OpenD6 Resumed","tags":["resumed"]}`)
	fw, _ := mw.CreateFormFile("file", "minimal-opend6-srd.pdf")
	fw.Write(data)
	mw.Close()
	code, b := apiCall(t, "POST", url+"/api/documents", gmKey, mw.FormDataContentType(), &body)
	if code != 202 {
		t.Fatalf("upload: %d %s", code, b)
	}
	var job uploadJob
	if err := json.Unmarshal(b, &job); err != nil || job.ID == "" {
		t.Fatalf("upload answer: %s", b)
	}
	waitJob(t, url, gmKey, job.ID, func(j uploadJob) bool { return j.Stage == "classify" })
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	// What a resume needs is on disk: the upload and the checkpoints of
	// the stages before classify.
	if _, err := os.Stat(filepath.Join(dir, "work", "uploads", job.ID)); err != nil {
		t.Fatalf("the upload is not kept: %v", err)
	}
	cps, _ := filepath.Glob(filepath.Join(dir, "work", "ingest", job.ID, "*", "*.json"))
	if len(cps) != 3 {
		t.Fatalf("checkpoints after the kill: %v", cps)
	}

	url = startServe(t, dir, limits...)
	got := waitJob(t, url, gmKey, job.ID, func(j uploadJob) bool { return j.Status == "done" })
	if got.DocumentID == "" || got.Resumes != 1 {
		t.Fatalf("resumed job: %+v", got)
	}
	// The job reads done as soon as its document is saved; its files go
	// right after, so they are waited for rather than expected at once.
	for _, p := range []string{filepath.Join(dir, "work", "uploads", job.ID), filepath.Join(dir, "work", "ingest", job.ID)} {
		deadline := time.Now().Add(time.Minute)
		for {
			_, err := os.Stat(p)
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s is left a minute after the job finished: %v", p, err)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Searchable: a word of its first page finds it.
	code, b = apiCall(t, "GET", url+"/api/documents/"+got.DocumentID+"/pages/1", gmKey, "", nil)
	if code != 200 {
		t.Fatalf("page 1: %d %s", code, b)
	}
	var page struct{ Text string }
	json.Unmarshal(b, &page)
	word := ""
	for _, w := range strings.FieldsFunc(page.Text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > len(word) {
			word = w
		}
	}
	if word == "" {
		t.Fatalf("page 1 has no words: %q", page.Text)
	}
	q, _ := json.Marshal(map[string]any{"query": word, "filters": map[string]any{"tags": []string{"resumed"}}})
	code, b = apiCall(t, "POST", url+"/api/search", gmKey, "application/json", bytes.NewReader(q))
	if code != 200 || !bytes.Contains(b, []byte(got.DocumentID)) {
		t.Fatalf("search %q: %d %s", word, code, b)
	}
}
