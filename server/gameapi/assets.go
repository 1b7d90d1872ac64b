package gameapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/pack"
)

// bundledCampaignFiles is the files of a campaign built into the binary.
func bundledCampaignFiles(_ context.Context, name string) (fs.FS, error) {
	if !campaignName.MatchString(name) {
		return nil, fmt.Errorf("campaign %q: %w", name, ErrUnknownCampaign)
	}
	dir := path.Join("campaigns", name)
	if _, err := fs.Stat(hearth.Campaigns, dir); err != nil {
		return nil, fmt.Errorf("campaign %q: %w", name, ErrUnknownCampaign)
	}
	return fs.Sub(hearth.Campaigns, dir)
}

// DirFiles opens a campaign directory on disk for CampaignFiles. Nothing
// outside dir can be read through it, not even by a symbolic link; close
// it (it is an io.Closer) when done.
func DirFiles(dir string) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return rootFS{root.FS(), root}, nil
}

type rootFS struct {
	fs.FS
	root *os.Root
}

func (r rootFS) Close() error { return r.root.Close() }

// campaignAsset serves GET /api/campaigns/{name}/assets/{path...}: a
// campaign's image, sound or video (art/, ui/ …) for the browser to show —
// portraits, state icons. Anyone at the table may see them; only asset
// files are served (never campaign.yml or its secrets), and only from
// within the campaign.
func (s *Server) campaignAsset(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, access.Player); !ok {
		return
	}
	name, rel := r.PathValue("name"), r.PathValue("path")
	notFound := func() {
		api.Error(w, r, api.NotFound, "gameapi.asset_not_found", map[string]any{"Name": clip(name), "Path": clip(rel)})
	}
	if !campaignName.MatchString(name) || !fs.ValidPath(rel) || strings.Contains(rel, "\\") ||
		pack.AssetType(strings.ToLower(path.Ext(rel))) == "" {
		notFound()
		return
	}
	fsys, err := s.o.CampaignFiles(r.Context(), name)
	if errors.Is(err, ErrUnknownCampaign) || errors.Is(err, fs.ErrNotExist) {
		notFound()
		return
	}
	if err != nil {
		s.fail(w, r, "", err)
		return
	}
	if c, ok := fsys.(io.Closer); ok {
		defer c.Close()
	}
	f, err := fsys.Open(rel)
	if err != nil {
		notFound()
		return
	}
	defer f.Close()
	st, err := f.Stat()
	rs, seekable := f.(io.ReadSeeker)
	if err != nil || !st.Mode().IsRegular() || !seekable {
		notFound()
		return
	}
	// An SVG is a document that could carry script: never let it run.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "private, max-age=300")
	http.ServeContent(w, r, path.Base(rel), st.ModTime(), rs)
}
