package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/foundry"
)

// The CLI writes the same zip the package builds, and the manifest beside it.
func TestFoundryPackage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "seneschal.zip")
	stdout := run(t, nil, "foundry", "package", "--out", out, "--base-url", "http://hearth.test:9000")
	if !strings.Contains(stdout, out) || !strings.Contains(stdout, filepath.Join(dir, "module.json")) {
		t.Errorf("stdout %q does not name the files", stdout)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := foundry.Zip(&want, "http://hearth.test:9000"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("the CLI's zip differs from foundry.Zip's")
	}
	var m foundry.Module
	b, err := os.ReadFile(filepath.Join(dir, "module.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("module.json beside the zip: %v %s", err, b)
	}
	if m.Download != "http://hearth.test:9000/foundry/module.zip" {
		t.Errorf("download %q", m.Download)
	}
}

// hearth serve serves the module without a key, its URLs on the address
// the GM used.
func TestFoundryServe(t *testing.T) {
	dir, _, _ := dataWithSecret(t)
	base := startServe(t, dir)
	get := func(url string) []byte {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s without a key: %s %s", url, res.Status, b)
		}
		return b
	}
	var m foundry.Module
	if err := json.Unmarshal(get(base+"/foundry/module.json"), &m); err != nil {
		t.Fatal(err)
	}
	if m.Manifest != base+"/foundry/module.json" || m.Download != base+"/foundry/module.zip" {
		t.Fatalf("manifest %q download %q; want on %s", m.Manifest, m.Download, base)
	}
	z := get(m.Download)
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	for _, p := range append(append([]string{"module.json"}, m.ESModules...), m.Styles...) {
		if !names[p] {
			t.Errorf("%s missing from the served zip", p)
		}
	}
}
