package foundry

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
)

// files is the module as Foundry loads it; node_modules, test and the
// npm files stay out.
//
//go:embed module.json scripts styles lang
var files embed.FS

// Routes the server mounts, no key needed.
const (
	ManifestPath = "/foundry/module.json"
	ZipPath      = "/foundry/module.zip"
)

// zipTime is every zip entry's time, so the same base URL gives the same
// bytes (the CLI's zip and the server's compare equal).
var zipTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Module is the module's manifest, the fields Hearth reads; the rest of
// module.json passes through unchanged.
type Module struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Version       string `json:"version"`
	Compatibility struct {
		Minimum  string `json:"minimum"`
		Verified string `json:"verified"`
	} `json:"compatibility"`
	ESModules []string `json:"esmodules"`
	Styles    []string `json:"styles"`
	Languages []struct {
		Lang string `json:"lang"`
		Name string `json:"name"`
		Path string `json:"path"`
	} `json:"languages"`
	Manifest string `json:"manifest"`
	Download string `json:"download"`
}

// Manifest returns module.json with its manifest and download URLs on
// baseURL (scheme and host, e.g. http://127.0.0.1:8080).
func Manifest(baseURL string) ([]byte, error) {
	raw, err := files.ReadFile("module.json")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, hearth.Errorf(hearth.Internal, "foundry: module.json: %v", err)
	}
	base := strings.TrimSuffix(baseURL, "/")
	m["manifest"] = base + ManifestPath
	m["download"] = base + ZipPath
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Zip writes the module as Foundry installs it: module.json (with the URLs
// on baseURL) at the top, beside scripts/, styles/ and lang/.
func Zip(w io.Writer, baseURL string) error {
	manifest, err := Manifest(baseURL)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	add := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	if err := add("module.json", manifest); err != nil {
		return err
	}
	err = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "module.json" {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		return add(p, data)
	})
	if err != nil {
		return fmt.Errorf("foundry: zip: %w", err)
	}
	return zw.Close()
}

// Handler serves the manifest and the zip. Their URLs are on publicURL
// when it is set (server.public_url), else on the request's own scheme and
// Host, so a GM pastes the address they reached the server at.
func Handler(publicURL string) http.Handler {
	mux := http.NewServeMux()
	Register(mux, publicURL)
	return mux
}

// Register mounts GET ManifestPath and GET ZipPath on mux.
func Register(mux *http.ServeMux, publicURL string) {
	mux.HandleFunc("GET /foundry/module.json", func(w http.ResponseWriter, r *http.Request) {
		b, err := Manifest(baseOf(r, publicURL))
		if err != nil {
			http.Error(w, "the module manifest could not be built", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	})
	mux.HandleFunc("GET /foundry/module.zip", func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if err := Zip(&buf, baseOf(r, publicURL)); err != nil {
			http.Error(w, "the module zip could not be built", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", `attachment; filename="hearth-seneschal.zip"`)
		_, _ = w.Write(buf.Bytes())
	})
}

// baseOf is the base URL the manifest names.
func baseOf(r *http.Request, publicURL string) string {
	if publicURL != "" {
		return publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
