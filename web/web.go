package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
)

//go:embed index.html assets
var files embed.FS

// CSP is the Content-Security-Policy of the shell and every asset: only
// this server's own scripts, styles and connections, no inline code, no
// framing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// file is one asset ready to serve.
type file struct {
	body, gz []byte // gz is nil when compressing does not pay
	ctype    string
	etag     string
}

// Handler serves the shell at / and the assets at /assets/V/.
type Handler struct {
	version string
	shell   file
	assets  map[string]file // by path under assets/
}

// New reads the embedded files, versions the assets by their content and
// compresses what is worth compressing, once.
func New() (*Handler, error) {
	h := &Handler{assets: map[string]file{}}
	all := sha256.New()
	err := fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(all, "%s\x00%d\x00", p, len(b))
		all.Write(b)
		h.assets[strings.TrimPrefix(p, "assets/")] = newFile(p, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	h.version = hex.EncodeToString(all.Sum(nil))[:12]
	shell, err := files.ReadFile("index.html")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	// The shell names the assets by version; nothing else in it varies.
	shell = bytes.ReplaceAll(shell, []byte("/assets/V/"), []byte("/assets/"+h.version+"/"))
	h.shell = newFile("index.html", shell)
	return h, nil
}

func newFile(name string, b []byte) file {
	sum := sha256.Sum256(b)
	f := file{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	f.ctype = mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js":
		f.ctype = "text/javascript; charset=utf-8"
	case ".json":
		f.ctype = "application/json; charset=utf-8"
	}
	if f.ctype == "" {
		f.ctype = "application/octet-stream"
	}
	if strings.HasPrefix(f.ctype, "text/") || strings.HasPrefix(f.ctype, "application/json") || strings.HasSuffix(name, ".svg") {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		if buf.Len() < len(b)*9/10 {
			f.gz = buf.Bytes()
		}
	}
	return f
}

// Version is the assets' version, the V in /assets/V/.
func (h *Handler) Version() string { return h.version }

// Assets lists the assets' paths under /assets/V/, sorted.
func (h *Handler) Assets() []string {
	names := make([]string, 0, len(h.assets))
	for n := range h.assets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Register mounts the shell at "GET /{$}" and the assets at "GET
// /assets/" on mux; neither needs a key.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", h.serveShell)
	mux.HandleFunc("GET /assets/", h.serveAsset)
}

func (h *Handler) serveShell(w http.ResponseWriter, r *http.Request) {
	// The shell is revalidated each time, so a new binary's assets are
	// picked up at once.
	w.Header().Set("Cache-Control", "no-cache")
	serve(w, r, h.shell)
}

func (h *Handler) serveAsset(w http.ResponseWriter, r *http.Request) {
	v, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/assets/"), "/")
	f, found := h.assets[name]
	if !ok || v != h.version || !found {
		w.Header().Set("Content-Security-Policy", CSP)
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	serve(w, r, f)
}

func serve(w http.ResponseWriter, r *http.Request, f file) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Content-Type", f.ctype)
	hd.Set("ETag", f.etag)
	hd.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatch(match, f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if f.gz != nil && acceptsGzip(r) {
		hd.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	hd.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
