package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

const (
	srdEPUB  = "../../../shared/testdata/epub/mdsrd5.epub"
	combatMD = "../../../shared/testdata/srd51/md/Gameplay/Combat.md"
)

// needFile skips the test when path, under the shared test data beside
// the repository, is absent. HEARTH_SHARED_TESTDATA names another place
// for the shared testdata directory (a worktree elsewhere).
func needFile(t *testing.T, path string) string {
	t.Helper()
	if alt := os.Getenv("HEARTH_SHARED_TESTDATA"); alt != "" {
		path = strings.Replace(path, "../../../shared/testdata", alt, 1)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent: the shared test data is not checked out beside the repository", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// hearthCmd runs the binary and returns stdout, stderr and its error.
func hearthCmd(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// documents lists what the library in a data directory holds.
func documents(t *testing.T, data string) []library.Document {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(data, sqlitestore.FileName)
	ix, err := sqliteindex.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := sqlitelibrary.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lib := library.New(st, ix)
	ds, err := lib.List(ctx, access.GM)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// chunkRows reads a document's chunks from the index as "page|id|text".
func chunkRows(t *testing.T, data, docID string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, sqlitestore.FileName)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT page, id, text, tags, access FROM lore_chunks WHERE pack = ? ORDER BY ordinal`, library.PackOf(docID))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var page, lv int
		var id, text, tags string
		if err := rows.Scan(&page, &id, &text, &tags, &lv); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{string(rune('0' + page%10)), id, text, tags, string(rune('0' + lv))}, "|"))
	}
	return out
}

func TestIngestEPUBSearchAndPack(t *testing.T) {
	book := needFile(t, srdEPUB)
	data, pack := t.TempDir(), filepath.Join(t.TempDir(), "srd5")
	out, errOut, err := hearthCmd(t, nil, "ingest", book, "--data", data, "--tags", "srd,vol1", "--pack", pack, "--license", "OGL-1.0a")
	if err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(out, `ingested "The Markdown SRD5"`) || !strings.Contains(out, "114 pages") {
		t.Errorf("summary:\n%s", out)
	}
	for _, s := range []string{"stage 1/8 extract: ran", "stage 8/8 validate: ran"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("progress lacks %q:\n%s", s, errOut)
		}
	}
	ds := documents(t, data)
	if len(ds) != 1 || ds[0].Pages != 114 || !slices.Equal(ds[0].Tags, []string{"srd", "vol1"}) {
		t.Fatalf("library: %+v", ds)
	}
	id := ds[0].ID
	out, errOut, err = hearthCmd(t, nil, "search", "halfling character traits in common", "--data", data, "--pack", library.PackOf(id), "--tags", "vol1", "--json")
	if err != nil {
		t.Fatalf("search: %v\n%s", err, errOut)
	}
	var hit struct {
		ID, Pack, File, Text string
		Page                 int
	}
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&hit); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if hit.Pack != "doc:"+id || hit.File != "The Markdown SRD5" || hit.Page != 12 || !strings.Contains(hit.Text, "alfling") {
		t.Errorf("first hit: %+v", hit)
	}
	rep, err := campaign.Validate(context.Background(), pack)
	if err != nil || !rep.OK() {
		t.Fatalf("pack: %v\n%s", err, rep.Text())
	}
	if _, errOut, err := hearthCmd(t, nil, "pack", "validate", pack); err != nil {
		t.Errorf("hearth pack validate: %v\n%s", err, errOut)
	}
}

// zipOf builds a zip from name → content pairs.
func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestIngestBadInputs(t *testing.T) {
	data := t.TempDir()
	md := needFile(t, combatMD)
	if out, errOut, err := hearthCmd(t, nil, "ingest", md, "--data", data); err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, errOut)
	}
	before := documents(t, data)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := zipOf(t, "mimetype", "application/epub+zip",
		"META-INF/container.xml", `<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>`,
		"c.opf", `<package><manifest><item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>`,
		"a.xhtml", "<p>"+strings.Repeat("text ", 2000)+"</p>")
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("a.xhtml")
	zeros := make([]byte, 1<<20)
	for range 300 { // 300 MiB of zeros, a few hundred KiB packed
		w.Write(zeros)
	}
	zw.Close()
	tests := []struct {
		name string
		file string
		args []string
		msg  string
	}{
		{"empty file", write("empty.txt", nil), nil, "empty (0 bytes)"},
		{"truncated epub", write("cut.epub", good[:len(good)/2]), nil, "truncated"},
		{"zip bomb", write("bomb.epub", bomb.Bytes()), nil, "more than"},
		{"climbing paths", write("evil.epub", zipOf(t, "../../evil.xhtml", "x")), nil, "climbs out of the archive"},
		{"corrupt pdf", write("broken.pdf", []byte("this is no PDF")), nil, "does not start with %PDF-"},
		{"unsupported", write("notes.docx", []byte("hello")), nil, "unsupported format"},
		{"too large", write("big.txt", bytes.Repeat([]byte("word "), 300_000)), []string{"--max-size", "1"}, "over the limit of 1 MB"},
		{"missing", filepath.Join(dir, "nope.md"), nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := hearthCmd(t, nil, append([]string{"ingest", tt.file, "--data", data}, tt.args...)...)
			if err == nil {
				t.Fatalf("ingest succeeded:\n%s", out)
			}
			if !strings.Contains(errOut, tt.msg) {
				t.Errorf("stderr does not say %q:\n%s", tt.msg, errOut)
			}
			if after := documents(t, data); len(after) != len(before) || after[0].ID != before[0].ID {
				t.Errorf("library changed: %+v", after)
			}
		})
	}
	if rows := chunkRows(t, data, before[0].ID); len(rows) != before[0].Chunks {
		t.Errorf("index holds %d chunks of the document, want %d", len(rows), before[0].Chunks)
	}
}

// TestIngestResume kills a real ingest after the segment stage and runs
// it again: it finishes without redoing extract, structure or segment
// (their checkpoints, kept after the kill, are used), ends with the same
// document and chunks as an uninterrupted run, and removes the
// checkpoints.
func TestIngestResume(t *testing.T) {
	book := needFile(t, srdEPUB)
	data := t.TempDir()
	cmd := exec.Command(hearthBin, "ingest", book, "--data", data, "--tags", "srd")
	cmd.Env = append(os.Environ(), pauseEnv+"=segment")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	paused := make(chan string, 1)
	go func() {
		var seen strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "paused after segment") {
				paused <- seen.String()
				return
			}
		}
		paused <- seen.String()
	}()
	select {
	case s := <-paused:
		if !strings.Contains(s, "paused after segment") {
			cmd.Process.Kill()
			t.Fatalf("the ingest did not pause:\n%s", s)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("no pause within two minutes")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ds := documents(t, data); len(ds) != 0 {
		t.Fatalf("a killed ingest left documents: %+v", ds)
	}
	work, _ := filepath.Glob(filepath.Join(data, "ingest", "*", "*.json"))
	if len(work) != 3 {
		t.Fatalf("checkpoints after the kill: %v", work)
	}
	out, errOut, err := hearthCmd(t, nil, "ingest", book, "--data", data, "--tags", "srd")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, errOut)
	}
	for _, s := range []string{"extract: resumed", "structure: resumed", "segment: resumed", "classify: ran", "validate: ran"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stage log lacks %q:\n%s", s, errOut)
		}
	}
	if !strings.Contains(out, "resumed: extract, structure, segment") {
		t.Errorf("summary: %s", out)
	}
	// Done, the ingest takes its checkpoints away.
	if _, err := os.Stat(filepath.Dir(work[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkpoints left after the resumed ingest finished: %v", err)
	}
	// The same as an uninterrupted run.
	clean := t.TempDir()
	if _, errOut, err := hearthCmd(t, nil, "ingest", book, "--data", clean, "--tags", "srd"); err != nil {
		t.Fatalf("uninterrupted: %v\n%s", err, errOut)
	}
	got, want := documents(t, data), documents(t, clean)
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("documents: %d and %d", len(got), len(want))
	}
	got[0].Created, want[0].Created = time.Time{}, time.Time{}
	if gj, _ := json.Marshal(got[0]); string(gj) != func() string { wj, _ := json.Marshal(want[0]); return string(wj) }() {
		t.Errorf("resumed document %s\nuninterrupted %+v", gj, want[0])
	}
	if g, w := chunkRows(t, data, got[0].ID), chunkRows(t, clean, want[0].ID); !slices.Equal(g, w) || len(g) == 0 {
		t.Errorf("chunks differ: %d resumed, %d uninterrupted", len(g), len(w))
	}
}
