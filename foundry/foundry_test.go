package foundry_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/foundry"
)

func get(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, res.Status, b)
	}
	return b
}

// checkManifest fails unless m has every field Foundry needs to install.
func checkManifest(t *testing.T, m foundry.Module) {
	t.Helper()
	for name, v := range map[string]string{"id": m.ID, "title": m.Title, "version": m.Version, "compatibility.minimum": m.Compatibility.Minimum,
		"compatibility.verified": m.Compatibility.Verified, "manifest": m.Manifest, "download": m.Download} {
		if v == "" {
			t.Errorf("module.json: %s is empty", name)
		}
	}
	if m.ID != "hearth-seneschal" || m.Compatibility.Minimum != "12" || m.Compatibility.Verified != "13" {
		t.Errorf("module.json: id %q, compatibility %+v; want hearth-seneschal, 12 to 13", m.ID, m.Compatibility)
	}
	if len(m.ESModules) == 0 || len(m.Languages) < 2 {
		t.Errorf("module.json: esmodules %v, languages %v", m.ESModules, m.Languages)
	}
}

// listed is every file the manifest names.
func listed(m foundry.Module) []string {
	out := append(slices.Clone(m.ESModules), m.Styles...)
	for _, l := range m.Languages {
		out = append(out, l.Path)
	}
	return out
}

func readZip(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = data
	}
	return out
}

func TestFoundryInstallFromServer(t *testing.T) {
	srv := httptest.NewServer(foundry.Handler(""))
	defer srv.Close()

	var m foundry.Module
	if err := json.Unmarshal(get(t, srv.URL+foundry.ManifestPath), &m); err != nil {
		t.Fatal(err)
	}
	checkManifest(t, m)
	if m.Manifest != srv.URL+"/foundry/module.json" || m.Download != srv.URL+"/foundry/module.zip" {
		t.Fatalf("manifest %q download %q; want them on %s", m.Manifest, m.Download, srv.URL)
	}
	// Foundry fetches both URLs as the manifest gives them.
	get(t, m.Manifest)
	files := readZip(t, get(t, m.Download))

	var inZip foundry.Module
	if err := json.Unmarshal(files["module.json"], &inZip); err != nil {
		t.Fatalf("module.json at the zip's top: %v", err)
	}
	if inZip.Download != m.Download || inZip.Manifest != m.Manifest {
		t.Errorf("the zip's module.json points at %q, %q", inZip.Manifest, inZip.Download)
	}
	for _, p := range listed(m) {
		if len(files[p]) == 0 {
			t.Errorf("%s is listed in module.json but missing from the zip", p)
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "node_modules/") || strings.HasPrefix(name, "test/") || strings.HasPrefix(name, "package") || strings.HasSuffix(name, ".go") {
			t.Errorf("the zip holds %s, which is not part of the module", name)
		}
	}
	// Every module script it imports is in the zip too.
	for name, data := range files {
		if !strings.HasSuffix(name, ".mjs") {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if i := strings.Index(line, `from "./`); i >= 0 && strings.HasPrefix(line, "import") {
				dep := "scripts/" + strings.TrimSuffix(line[i+len(`from "./`):], `";`)
				if _, ok := files[dep]; !ok {
					t.Errorf("%s imports %s, missing from the zip", name, dep)
				}
			}
		}
	}
	// The two languages have the same keys.
	var en, de map[string]any
	if json.Unmarshal(files["lang/en.json"], &en) != nil || json.Unmarshal(files["lang/de.json"], &de) != nil {
		t.Fatal("a language file is not JSON")
	}
	if a, b := keys(en, ""), keys(de, ""); !slices.Equal(a, b) {
		t.Errorf("lang/en.json and lang/de.json differ in keys:\n%v\n%v", a, b)
	}
}

func keys(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out = append(out, keys(sub, prefix+k+".")...)
		} else {
			out = append(out, prefix+k)
		}
	}
	slices.Sort(out)
	return out
}

func TestFoundryManifestUsesPublicURL(t *testing.T) {
	srv := httptest.NewServer(foundry.Handler("https://hearth.example.org/"))
	defer srv.Close()
	var m foundry.Module
	if err := json.Unmarshal(get(t, srv.URL+foundry.ManifestPath), &m); err != nil {
		t.Fatal(err)
	}
	if m.Manifest != "https://hearth.example.org/foundry/module.json" || m.Download != "https://hearth.example.org/foundry/module.zip" {
		t.Errorf("manifest %q download %q", m.Manifest, m.Download)
	}
}

func TestFoundryZipIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := foundry.Zip(&a, "http://h:1"); err != nil {
		t.Fatal(err)
	}
	if err := foundry.Zip(&b, "http://h:1"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two zips for the same base URL differ")
	}
}
