package server

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/internal/api"
)

// imageInfo is an image's metadata as the API gives it (seed 000 §4.3.7).
type imageInfo struct {
	library.Image
	DocumentTitle string `json:"document_title,omitempty"`
	DataURL       string `json:"data_url"`
	SuggestedPath string `json:"suggested_path"`
}

func (s *Server) info(r *http.Request, im library.Image, titles map[string]string) imageInfo {
	title, ok := titles[im.Document]
	if !ok {
		if d, err := s.o.Library.Document(r.Context(), im.Document, user(r).Role); err == nil {
			title = d.Title
		}
		titles[im.Document] = title
	}
	return imageInfo{Image: im, DocumentTitle: title, DataURL: strings.TrimSuffix(s.o.PublicURL, "/") + fmt.Sprintf("/api/images/%d/data", im.ID),
		SuggestedPath: suggestedPath(title, im)}
}

// suggestedPath is where an image goes among the Foundry assets, as the
// seed's fvtt_image_path names it (§4.8): seneschal/<Title>/page_<n>.webp
// (.jpg for a JPEG),
// with _<first 30 characters of the caption> when there is one. A second
// image of a page adds its index after the page number, so paths stay
// unique.
func suggestedPath(title string, im library.Image) string {
	name := fmt.Sprintf("page_%d", im.Page)
	if im.Index > 0 {
		name += fmt.Sprintf("_%d", im.Index)
	}
	if d := []rune(strings.TrimSpace(im.Description)); len(d) > 0 {
		name += "_" + slug(string(d[:min(len(d), 30)]))
	}
	return path.Join("seneschal", slug(title), name+extension(im))
}

// extension is the file name ending for the picture's media type.
func extension(im library.Image) string {
	if library.MediaTypeOf(im) == "image/jpeg" {
		return ".jpg"
	}
	return ".webp"
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
		if b.Len() >= 80 {
			break
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "document"
	}
	return out
}

func (s *Server) listImages(w http.ResponseWriter, r *http.Request) {
	q := library.ImageQuery{Role: user(r).Role, Document: r.URL.Query().Get("document_id"), Text: r.URL.Query().Get("search")}
	if p := r.URL.Query().Get("page_number"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			api.Error(w, r, api.Invalid, "images.bad_page", map[string]any{"Value": p})
			return
		}
		q.Page = n
	}
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			api.Error(w, r, api.Invalid, "images.bad_limit", map[string]any{"Value": l})
			return
		}
		q.Limit = n
	}
	if len(q.Text) > maxQueryBytes {
		api.Error(w, r, api.Invalid, "search.query", map[string]any{"Max": maxQueryBytes})
		return
	}
	ims, err := s.o.Library.SearchImages(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	titles := map[string]string{}
	out := make([]imageInfo, 0, len(ims))
	for _, im := range ims {
		out = append(out, s.info(r, im, titles))
	}
	api.JSON(w, http.StatusOK, map[string]any{"images": out})
}

// image reads the image the path names, as the user may see it; on
// failure it has answered the client.
func (s *Server) image(w http.ResponseWriter, r *http.Request, withData bool) (library.Image, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		api.Error(w, r, api.NotFound, "images.not_found", nil)
		return library.Image{}, false
	}
	im, err := s.o.Library.Image(r.Context(), id, user(r).Role, withData)
	if err != nil {
		s.fail(w, r, err, api.Say{Code: api.NotFound, ID: "images.not_found"})
		return im, false
	}
	return im, true
}

func (s *Server) getImage(w http.ResponseWriter, r *http.Request) {
	if im, ok := s.image(w, r, false); ok {
		api.JSON(w, http.StatusOK, s.info(r, im, map[string]string{}))
	}
}

func (s *Server) imageData(w http.ResponseWriter, r *http.Request) {
	im, ok := s.image(w, r, true)
	if !ok {
		return
	}
	// The stored type, and no sniffing: the bytes come from an uploaded
	// document.
	w.Header().Set("Content-Type", library.MediaTypeOf(im))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(len(im.Data)))
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(im.Data)
}

type deliverRequest struct {
	TargetPath string `json:"target_path,omitempty"`
}

// deliverImage copies an image into the Foundry assets directory (direct
// mode) or tells the client to fetch and upload it itself (shuttle mode),
// as seed 000 §4.3.7 describes.
func (s *Server) deliverImage(w http.ResponseWriter, r *http.Request) {
	var req deliverRequest
	if r.ContentLength != 0 && !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	im, ok := s.image(w, r, true)
	if !ok {
		return
	}
	info := s.info(r, im, map[string]string{})
	target := info.SuggestedPath
	if req.TargetPath != "" {
		t, err := confineAsset(req.TargetPath, extension(im))
		if err != nil {
			api.Error(w, r, api.Invalid, "images.bad_target", map[string]any{"Reason": err.Error()})
			return
		}
		target = t
	}
	if s.o.AssetsPath == "" {
		api.JSON(w, http.StatusOK, map[string]any{"mode": "shuttle", "image_id": im.ID, "suggested_path": target, "data_url": info.DataURL})
		return
	}
	if err := writeAsset(s.o.AssetsPath, target, im.Data); err != nil {
		var out *outsideError
		if errors.As(err, &out) {
			s.log.WarnContext(r.Context(), "image delivery refused: a symbolic link leads outside fvtt.assets_path",
				"assets_path", s.o.AssetsPath, "target", target, "link", out.link, "to", out.to)
			api.Error(w, r, api.Invalid, "images.bad_target", map[string]any{"Reason": out.Error()})
			return
		}
		// Not writable here: the client can still shuttle it.
		s.log.WarnContext(r.Context(), "direct image delivery failed; answering shuttle", "assets_path", s.o.AssetsPath, "target", target, "err", err)
		api.JSON(w, http.StatusOK, map[string]any{"mode": "shuttle", "image_id": im.ID, "suggested_path": target, "data_url": info.DataURL})
		return
	}
	api.JSON(w, http.StatusOK, map[string]any{"mode": "direct", "fvtt_path": target})
}

// confineAsset cleans a client's target path and keeps it inside the
// seneschal/ folder of the assets directory; the name must end in ext,
// the picture's kind (.webp or .jpg; .jpeg too for a JPEG).
func confineAsset(p, ext string) (string, error) {
	if strings.ContainsRune(p, 0) || strings.Contains(p, `\`) {
		return "", errors.New("the path has a NUL or backslash")
	}
	if path.IsAbs(p) {
		return "", errors.New("the path must be relative to the Foundry assets directory")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", errors.New(`the path must not contain a ".." part`)
		}
	}
	c := path.Clean(p)
	if !strings.HasPrefix(c, "seneschal/") {
		c = path.Join("seneschal", c)
	}
	lower := strings.ToLower(c)
	switch {
	case ext == ".jpg" && !strings.HasSuffix(lower, ".jpg") && !strings.HasSuffix(lower, ".jpeg"):
		return "", errors.New("the file name must end in .jpg or .jpeg: this image is a JPEG")
	case ext != ".jpg" && !strings.HasSuffix(lower, ".webp"):
		return "", errors.New("the file name must end in .webp: this image is a WebP")
	}
	return c, nil
}

// outsideError refuses a delivery whose target passes through a symbolic
// link that leads outside the assets directory, or that could: one with an
// absolute target.
type outsideError struct {
	link     string // the link, relative to the assets directory
	to       string // where it resolves
	absolute bool   // it resolves inside, but names an absolute path
}

func (e *outsideError) Error() string {
	if e.absolute {
		return fmt.Sprintf("%s is a symbolic link to an absolute path; Hearth follows only relative links that stay inside the Foundry assets directory", e.link)
	}
	return fmt.Sprintf("%s is a symbolic link that leads outside the Foundry assets directory; Hearth writes only inside it", e.link)
}

// writeAsset writes data to target (slash-separated, relative, as
// confineAsset returns it) inside the directory dir, atomically (temp
// file, rename) so Foundry never serves half an image, creating the
// folders it needs. Relative symbolic links that stay inside dir are
// followed; others are refused with an *outsideError. The writing itself
// goes through an os.Root, which refuses any escape, so a link swapped in
// after the check cannot redirect the write either.
func writeAsset(dir, target string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := checkLinks(dir, target); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(target)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(name), ".hearth-"+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		root.Remove(tmp)
		return err
	}
	if err := root.Chmod(tmp, 0o644); err != nil { // whatever the umask
		root.Remove(tmp)
		return err
	}
	// Rename replaces a link at the target itself, never what it points to.
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// checkLinks resolves each existing folder on the way to target and
// refuses the first symbolic link among them that leads outside dir, or
// is absolute (os.Root does not follow those).
func checkLinks(dir, target string) error {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	parts := strings.Split(path.Dir(target), "/")
	for i := range parts {
		rel := filepath.Join(parts[:i+1]...)
		p := filepath.Join(dir, rel)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // the rest is created, as real folders
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		to, err := filepath.EvalSymlinks(p)
		if err != nil {
			return &outsideError{link: filepath.ToSlash(rel), to: "(unresolvable: " + err.Error() + ")"}
		}
		if r, err := filepath.Rel(base, to); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
			return &outsideError{link: filepath.ToSlash(rel), to: to}
		}
		if l, err := os.Readlink(p); err != nil || filepath.IsAbs(l) {
			return &outsideError{link: filepath.ToSlash(rel), to: to, absolute: true}
		}
	}
	return nil
}
