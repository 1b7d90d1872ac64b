package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestIngestPDFThenUseTheLibrary ingests a real PDF into the library and a
// pack, then reads it back the ways a user would.
func TestIngestPDFThenUseTheLibrary(t *testing.T) {
	pdf := needFile(t, "../../../shared/testdata/pdf/Halberds-and-Helmets-Ref-Guide.pdf")
	data, pack := t.TempDir(), filepath.Join(t.TempDir(), "halberds")
	if _, errs, err := hearthCmd(t, nil, "--data", data, "ingest", pdf, "--tags", "halberds,osr", "--access", "trusted", "--pack", pack); err != nil {
		t.Fatalf("ingest: %v\n%s", err, errs)
	}
	// The pack written from a PDF validates.
	if out, _, err := hearthCmd(t, nil, "pack", "validate", pack); err != nil || !strings.Contains(out, "0 error(s)") {
		t.Errorf("the pack from the PDF does not validate: %v\n%s", err, out)
	}
	out := run(t, nil, "--data", data, "library", "list", "--json")
	var docs []struct {
		ID    string `json:"id"`
		Pages int    `json:"pages"`
	}
	if err := json.Unmarshal([]byte(out), &docs); err != nil || len(docs) != 1 || docs[0].Pages != 60 {
		t.Fatalf("library list: %v %s", err, out)
	}
	id := docs[0].ID
	if page := run(t, nil, "--data", data, "library", "get", id, "20"); !strings.Contains(strings.ToLower(page), "crocodile") {
		t.Errorf("page 20 does not mention the crocodile:\n%s", page)
	}
	if ims := run(t, nil, "--data", data, "library", "images", id, "20"); !strings.Contains(ims, "293x142") {
		t.Errorf("page 20's images:\n%s", ims)
	}
	// A player may not read a trusted book, by any route.
	if out, _, err := hearthCmd(t, nil, "--data", data, "library", "get", id, "20", "--role", "player"); err == nil || strings.Contains(out, "crocodile") {
		t.Errorf("a player read a trusted page: %v\n%s", err, out)
	}
	if out := run(t, nil, "--data", data, "library", "list", "--role", "player"); strings.Contains(out, id) {
		t.Errorf("a player sees a trusted book:\n%s", out)
	}
	// Search cites the document and page; tags filter across volumes.
	out = run(t, nil, "--data", data, "search", "crocodile", "--role", "trusted", "--tags", "halberds", "--json", "--limit", "1")
	var hit struct {
		DocumentID string `json:"document_id"`
		Title      string `json:"title"`
		Page       int    `json:"page"`
	}
	if err := json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &hit); err != nil || hit.DocumentID != id || hit.Page == 0 || hit.Title == "" {
		t.Errorf("search result: %v %s", err, out)
	}
	run(t, nil, "--data", data, "library", "delete", id)
	if out := run(t, nil, "--data", data, "search", "crocodile", "--role", "gm_only", "--pack", "doc:"+id); !strings.Contains(out, "Nothing found") {
		t.Errorf("a deleted book is still found:\n%s", out)
	}
}

// visionServer is an Ollama on 127.0.0.1 speaking its wire format. Chat
// requests with an image get a description ("quillbeast", a word no book
// has, and "crocodile" when the page text near the image says so), except
// the third, which fails as a model that cannot read an image does;
// requests asking for JSON (the class check) get {"label":"lore"}.
type visionServer struct {
	mu                 sync.Mutex
	captions, checks   int
	bad                int // requests that did not look as they should
	jpegs              int // pictures sent as JPEG
	vision, classModel string
}

func (s *visionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "GET /api/tags":
		io.WriteString(w, `{"models":[]}`)
		return
	case "POST /api/chat":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		Model    string          `json:"model"`
		Format   json.RawMessage `json:"format"`
		Messages []struct {
			Role    string   `json:"role"`
			Content string   `json:"content"`
			Images  [][]byte `json:"images"` // base64 on the wire
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	last := body.Messages[len(body.Messages)-1]
	s.mu.Lock()
	var answer string
	fail := false
	switch {
	case len(last.Images) == 1:
		s.captions++
		im := last.Images[0]
		webp := len(im) >= 12 && string(im[:4]) == "RIFF" && string(im[8:12]) == "WEBP"
		jpeg := len(im) >= 3 && string(im[:3]) == "\xff\xd8\xff" // a PDF's JPEG, sent as it is
		if jpeg {
			s.jpegs++
		}
		if body.Model != s.vision || !webp && !jpeg ||
			!strings.HasPrefix(last.Content, "Describe this image concisely for use in a tabletop RPG context.") {
			s.bad++
		}
		fail = s.captions == 3
		answer = "A quillbeast-style illustration."
		if strings.Contains(strings.ToLower(last.Content), "crocodile") {
			answer = "A quillbeast-style drawing of a crocodile lurking in a river."
		}
	case len(body.Format) > 0:
		s.checks++
		if body.Model != s.classModel || !strings.Contains(last.Content, "<section>") {
			s.bad++
		}
		answer = `{"label":"lore"}`
	default:
		s.bad++
	}
	s.mu.Unlock()
	if fail {
		http.Error(w, `{"error":"this model cannot read the image"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, m := range []map[string]any{
		{"model": body.Model, "message": map[string]any{"role": "assistant", "content": answer}, "done": false},
		{"model": body.Model, "message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"},
	} {
		b, _ := json.Marshal(m)
		w.Write(append(b, '\n'))
	}
}

// noConfig keeps a model configuration on this machine out of a test.
func noConfig(t *testing.T) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"HEARTH_CONFIG=" + p}
}

// TestIngestDescribesImages ingests a real PDF with a vision model and a
// class-checking model on a local Ollama: every image but the one the
// model failed on gets a description, which search finds, and a player
// finds none of a GM-only book's images.
func TestIngestDescribesImages(t *testing.T) {
	pdf := needFile(t, "../../../shared/testdata/pdf/Halberds-and-Helmets-Ref-Guide.pdf")
	s := &visionServer{vision: "llava-test", classModel: "qwen-test"}
	srv := httptest.NewServer(s)
	defer srv.Close()
	data := t.TempDir()
	env := noConfig(t)
	out, errOut, err := hearthCmd(t, env, "--data", data, "ingest", pdf, "--access", "gm_only",
		"--vision-provider", "ollama", "--vision-model", "llava-test", "--vision-base-url", srv.URL,
		"--provider", "ollama", "--model", "qwen-test", "--base-url", srv.URL)
	if err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, errOut)
	}
	s.mu.Lock()
	captions, checks, bad, jpegs := s.captions, s.checks, s.bad, s.jpegs
	s.mu.Unlock()
	if bad != 0 {
		t.Errorf("%d model requests were not what they should be", bad)
	}
	if jpegs != 76 {
		t.Errorf("%d pictures went to the vision model as JPEG, want the file's 76", jpegs)
	}
	m := regexp.MustCompile(`(\d+) sections \((\d+) checked by the model\), \d+ chunks, (\d+) images \((\d+) described\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary:\n%s", out)
	}
	sections, checked, images, described := atoi(t, m[1]), atoi(t, m[2]), atoi(t, m[3]), atoi(t, m[4])
	if images < 70 || described != images-1 || captions != images || checked != sections || checks != sections {
		t.Errorf("%d images, %d described, %d caption calls; %d sections, %d checked, %d check calls",
			images, described, captions, sections, checked, checks)
	}
	if !strings.Contains(errOut, "this model cannot read the image") {
		t.Errorf("the failed image is not reported:\n%s", errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "ingest", "*")); len(left) != 0 {
		t.Errorf("checkpoints left after a successful ingest: %v", left)
	}
	id := documents(t, data)[0].ID

	// The descriptions are stored, shown and searchable.
	list := run(t, nil, "--data", data, "library", "images", id, "20")
	if !strings.Contains(list, "293x142  A quillbeast-style drawing of a crocodile") {
		t.Errorf("page 20's images:\n%s", list)
	}
	// --save writes each picture as the file it is: page 20's are JPEGs.
	saved := t.TempDir()
	run(t, nil, "--data", data, "library", "images", id, "20", "--save", saved)
	for _, name := range []string{id + "-p20-0.jpg", id + "-p20-1.jpg"} {
		if b, err := os.ReadFile(filepath.Join(saved, name)); err != nil || !bytes.HasPrefix(b, []byte("\xff\xd8\xff")) {
			t.Errorf("saved %s: %d bytes, %v", name, len(b), err)
		}
	}
	var found []struct {
		Document    string `json:"document_id"`
		Page        int    `json:"page"`
		Description string `json:"description"`
	}
	out = run(t, nil, "--data", data, "library", "images", "--search", "quillbeast", "--limit", "500", "--json")
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found) != described {
		t.Fatalf("search quillbeast: %d of %d described images (%v)", len(found), described, err)
	}
	out = run(t, nil, "--data", data, "library", "images", "--search", "crocodile in a river", "--json", "--limit", "1")
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found) != 1 || found[0].Page != 20 || found[0].Document != id ||
		!strings.Contains(found[0].Description, "crocodile") {
		t.Errorf("search crocodile: %+v %v", found, err)
	}
	// A player sees none of a GM-only book's images, searched or listed.
	for _, args := range [][]string{{"--search", "quillbeast crocodile"}, {id}, {id, "20"}} {
		out := run(t, nil, append([]string{"--data", data, "library", "images", "--role", "player", "--json"}, args...)...)
		if strings.TrimSpace(out) != "[]" {
			t.Errorf("a player listed images of a GM-only book with %v:\n%s", args, out)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Without a reachable vision model the ingest goes on and says so; a
// half-given vision model is a usage error.
func TestIngestVisionModelMissing(t *testing.T) {
	md := needFile(t, combatMD)
	env := noConfig(t)
	data := t.TempDir()
	out, errOut, err := hearthCmd(t, env, "--data", data, "ingest", md,
		"--vision-provider", "ollama", "--vision-model", "llava", "--vision-base-url", "http://127.0.0.1:1")
	if err != nil || !strings.Contains(errOut, "Could not reach ollama at http://127.0.0.1:1") || !strings.Contains(errOut, "images are stored without descriptions") {
		t.Errorf("unreachable vision model: %v\n%s\n%s", err, out, errOut)
	}
	for _, args := range [][]string{
		{"--vision-provider", "ollama"},
		{"--vision-model", "llava"},
		{"--provider", "ollama"},
	} {
		_, errOut, err := hearthCmd(t, env, append([]string{"--data", data, "ingest", md}, args...)...)
		if err == nil || !strings.Contains(errOut, "model") {
			t.Errorf("%v: %v\n%s", args, err, errOut)
		}
	}
}
