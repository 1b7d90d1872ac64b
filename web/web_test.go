package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/web"
)

func server(t *testing.T) (*web.Handler, *httptest.Server) {
	t.Helper()
	h, err := web.New()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.Register(mux)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return h, ts
}

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport must not decompress for us: what was sent is checked.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func TestShellNamesVersionedAssets(t *testing.T) {
	h, ts := server(t)
	res, body := get(t, ts.URL+"/")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("shell: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if got := res.Header.Get("Content-Security-Policy"); got != web.CSP {
		t.Errorf("CSP %q", got)
	}
	if res.Header.Get("Cache-Control") != "no-cache" || res.Header.Get("ETag") == "" {
		t.Errorf("shell caching: %v", res.Header)
	}
	refs := regexp.MustCompile(`/assets/([^/"]+)/([^"]+)"`).FindAllStringSubmatch(string(body), -1)
	if len(refs) < 2 {
		t.Fatalf("shell names %d assets: %s", len(refs), body)
	}
	for _, m := range refs {
		if m[1] != h.Version() {
			t.Errorf("shell names %s at version %s, want %s", m[2], m[1], h.Version())
		}
		res, _ := get(t, ts.URL+"/assets/"+m[1]+"/"+m[2])
		if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			res.Header.Get("Content-Security-Policy") != web.CSP || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", m[2], res.StatusCode, res.Header)
		}
	}
	if bytes.Contains(body, []byte("<script>")) || bytes.Contains(body, []byte("style=")) || bytes.Contains(body, []byte("<style")) {
		t.Error("the shell has inline script or style, which the CSP refuses")
	}
}

func TestAssets(t *testing.T) {
	h, ts := server(t)
	v := h.Version()
	for _, c := range []struct {
		name, path, ctype string
		status            int
	}{
		{"module", "/assets/" + v + "/app.js", "text/javascript; charset=utf-8", 200},
		{"style", "/assets/" + v + "/app.css", "text/css; charset=utf-8", 200},
		{"messages", "/assets/" + v + "/i18n/de.json", "application/json; charset=utf-8", 200},
		{"old version", "/assets/000000000000/app.js", "", 404},
		{"no version", "/assets/app.js", "", 404},
		{"unknown", "/assets/" + v + "/nope.js", "", 404},
		// The mux redirects these to their clean paths, which serve nothing.
		{"traversal", "/assets/" + v + "/../web.go", "", 404},
		{"source", "/assets/" + v + "/../../web.go", "", 404},
		{"encoded", "/assets/" + v + "/..%2fweb.go", "", 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ts.Client().Get(ts.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status || (c.ctype != "" && res.Header.Get("Content-Type") != c.ctype) {
				t.Errorf("%d %q, want %d %q", res.StatusCode, res.Header.Get("Content-Type"), c.status, c.ctype)
			}
		})
	}
}

func TestGzipAndETag(t *testing.T) {
	h, ts := server(t)
	url := ts.URL + "/assets/" + h.Version() + "/app.js"
	_, plain := get(t, url)
	res, zipped := get(t, url, "Accept-Encoding", "gzip, br")
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("not gzipped: %v", res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, plain) || len(zipped) >= len(plain) {
		t.Errorf("gzip: %v, %d bytes from %d", err, len(zipped), len(plain))
	}
	if res, _ := get(t, url, "Accept-Encoding", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that refused it")
	}
	res, body := get(t, url, "If-None-Match", res.Header.Get("ETag"))
	if res.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: %d, %d bytes", res.StatusCode, len(body))
	}
	if res, _ := get(t, url, "If-None-Match", `"other"`); res.StatusCode != 200 {
		t.Errorf("a stale ETag: %d", res.StatusCode)
	}
}

// TestNoMarkupSinks keeps the promise of the package doc: no asset puts a
// string into the DOM as markup.
func TestNoMarkupSinks(t *testing.T) {
	h, ts := server(t)
	for _, name := range h.Assets() {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		_, b := get(t, ts.URL+"/assets/"+h.Version()+"/"+name)
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute(\"on"} {
			if bytes.Contains(b, []byte(sink)) {
				t.Errorf("%s uses %s", name, sink)
			}
		}
	}
}

// TestFirstLoadBudget keeps the first load (the shell and every asset, as
// served to a browser that takes gzip) within the 200 KB.
func TestFirstLoadBudget(t *testing.T) {
	h, ts := server(t)
	res, shell := get(t, ts.URL+"/", "Accept-Encoding", "gzip")
	if res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	total := len(shell)
	// Every asset counts, loaded or not: the messages of both languages too.
	for _, name := range h.Assets() {
		res, b := get(t, ts.URL+"/assets/"+h.Version()+"/"+name, "Accept-Encoding", "gzip")
		if res.StatusCode != 200 {
			t.Fatalf("%s: %s", name, res.Status)
		}
		total += len(b)
	}
	t.Logf("first load: %d bytes compressed, %d files", total, len(h.Assets())+1)
	if total > 200<<10 {
		t.Errorf("first load is %d bytes, over 200 KB", total)
	}
}

// TestCatalogsAgree: German has every English message and no other.
func TestCatalogsAgree(t *testing.T) {
	h, ts := server(t)
	keys := func(lang string) map[string]string {
		_, b := get(t, ts.URL+"/assets/"+h.Version()+"/i18n/"+lang+".json")
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil || len(m) == 0 {
			t.Fatalf("%s: %v (%d messages)", lang, err, len(m))
		}
		return m
	}
	en, de := keys("en"), keys("de")
	// Every message a script names literally, t("key"), is in English.
	used := regexp.MustCompile(`\bt\("([a-z0-9_.]*[a-z0-9_])"`)
	for _, name := range h.Assets() {
		if !strings.HasSuffix(name, ".js") {
			continue
		}
		_, b := get(t, ts.URL+"/assets/"+h.Version()+"/"+name)
		for _, m := range used.FindAllSubmatch(b, -1) {
			if _, ok := en[string(m[1])]; !ok {
				t.Errorf("%s uses message %s, which en.json lacks", name, m[1])
			}
		}
	}
	for k, v := range en {
		if d, ok := de[k]; !ok || strings.TrimSpace(d) == "" {
			t.Errorf("de lacks %s (%q)", k, v)
		}
	}
	for k := range de {
		if _, ok := en[k]; !ok {
			t.Errorf("de has %s, en does not", k)
		}
	}
}
