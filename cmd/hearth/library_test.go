package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
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
