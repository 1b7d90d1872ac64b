package gameapi

import (
	"archive/zip"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// TypeImageReady is sent to a game's clients when one of its scene
// images has been generated (seed 002 v2.1).
const TypeImageReady = "image_ready"

// ImageReady is the image_ready message: seed 002's fields.
type ImageReady struct {
	Type     string `json:"type"`
	ImageID  string `json:"image_id"`
	Turn     int    `json:"turn_number"`
	Mode     string `json:"generation_mode"`
	ImageURL string `json:"image_url"`
}

// SceneImage is a stored scene image as the API gives it.
type SceneImage struct {
	imagegen.Record
	ImageURL string `json:"image_url"`
}

// sceneTurns is how many turns' narration a scene prompt reads, the
// illustrated one last.
const sceneTurns = 3

// maxZip bounds the images one download-all puts in its archive.
const maxZip = 500

// imagesOff answers when a route needs what is not configured.
func (s *Server) imagesOff(w http.ResponseWriter, r *http.Request, generate bool) bool {
	if s.o.ImageStore == nil || (generate && s.o.Images == nil) {
		api.Error(w, r, api.Unavailable, "gameapi.images_off", nil)
		return true
	}
	return false
}

func imageURL(session, id string) string {
	return "/api/sessions/" + session + "/images/" + id + "/download"
}

func (s *Server) generateCurrent(w http.ResponseWriter, r *http.Request) {
	s.generate(w, r, imagegen.ModeCurrent)
}

func (s *Server) generateBest(w http.ResponseWriter, r *http.Request) {
	s.generate(w, r, imagegen.ModeBest)
}

func (s *Server) generateTurn(w http.ResponseWriter, r *http.Request) {
	s.generate(w, r, imagegen.ModeSpecific)
}

// generate draws one turn of the game's current branch: the current one,
// the "best" one or the one the path names. The prompt is made from what
// a player sees (narration, the player view's place and people), since
// the whole table sees the picture. It answers when the image is stored,
// after image_ready has gone to the game's clients.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, mode string) {
	want := 0
	if mode == imagegen.ModeSpecific {
		n, err := strconv.Atoi(r.PathValue("turn"))
		if err != nil || n < 1 {
			api.Error(w, r, api.Invalid, "gameapi.image_turn", map[string]any{"Turn": clip(r.PathValue("turn"))})
			return
		}
		want = n
	}
	s.withLive(w, r, access.Assistant, func(l *live, _ auth.User) {
		if s.imagesOff(w, r, true) {
			return
		}
		u, _ := auth.UserFrom(r.Context()) // withLive has checked it
		if !s.startImage(l.id) {
			api.Error(w, r, api.Conflict, "gameapi.image_busy", nil)
			return
		}
		defer s.endImage(l.id)
		gs := l.session()
		branch, head := gs.Branch(), gs.Turn()
		turn := want
		switch mode {
		case imagegen.ModeCurrent:
			turn = head
		case imagegen.ModeBest:
			var err error
			if turn, err = l.bestTurn(r.Context(), head); err != nil {
				s.fail(w, r, l.id, err)
				return
			}
		}
		if turn < 1 || turn > head {
			api.Error(w, r, api.Invalid, "gameapi.image_no_turn", map[string]any{"Turn": turn, "Head": head})
			return
		}
		scene, err := l.scene(r.Context(), turn, turn == head)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		prompt := imagegen.ScenePrompt(scene)
		imgs, err := s.o.Images.Generate(r.Context(), imagegen.Request{Prompt: prompt, Size: s.o.ImageSize, N: 1})
		if err != nil {
			s.log.Warn("image generation failed", "session", l.id, "provider", s.o.Images.Name(), "err", err)
			s.fail(w, r, l.id, err)
			return
		}
		// The image is paid for: keep it even if the client has left.
		rec, err := s.o.ImageStore.Add(context.WithoutCancel(r.Context()), imagegen.Record{Session: l.id, Branch: branch, Turn: turn,
			Prompt: prompt, Provider: s.o.Images.Name(), Model: s.o.Images.Model(), Mode: mode, By: u.ID}, imgs[0].PNG)
		if err != nil {
			s.fail(w, r, l.id, err, api.Say{Code: hearth.NotFound, ID: "gameapi.session_not_found", Data: map[string]any{"ID": clip(l.id)}})
			return
		}
		s.log.Info("scene image generated", "session", l.id, "image", rec.ID, "turn", turn, "mode", mode, "by", u.ID)
		l.broadcast(ImageReady{Type: TypeImageReady, ImageID: rec.ID, Turn: turn, Mode: mode, ImageURL: imageURL(l.id, rec.ID)})
		w.Header().Set("Location", imageURL(l.id, rec.ID))
		api.JSON(w, http.StatusCreated, SceneImage{Record: rec, ImageURL: imageURL(l.id, rec.ID)})
	})
}

// startImage marks a generation under way for the game, false if one
// already is: each costs money and takes a while.
func (s *Server) startImage(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.imaging[id] {
		return false
	}
	s.imaging[id] = true
	return true
}

func (s *Server) endImage(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.imaging, id)
}

// bestTurn picks the turn to draw without a model: among the branch's
// last maxTurnsPage turns, the one with the longest narration, the later
// on a tie. (Seed 002 has a model scan the history; offline this is it.)
func (l *live) bestTurn(ctx context.Context, head int) (int, error) {
	if head < 1 {
		return 0, nil
	}
	recs, err := l.session().Turns(ctx, max(1, head-maxTurnsPage+1), head)
	if err != nil {
		return 0, err
	}
	best, size := 0, -1
	for _, t := range recs {
		if n := len(strings.TrimSpace(t.Narrative)); n >= size {
			best, size = t.Number, n
		}
	}
	return best, nil
}

// scene gathers what a player may see of turn and the turns before it.
// The place and the people come from the current state, so only when
// turn is the current one.
func (l *live) scene(ctx context.Context, turn int, current bool) (imagegen.Scene, error) {
	recs, err := l.session().Turns(ctx, max(1, turn-sceneTurns+1), turn)
	if err != nil {
		return imagegen.Scene{}, err
	}
	sc := imagegen.Scene{Campaign: l.session().Campaign().Title}
	for _, t := range l.project(recs, viewer{level: access.Player}) {
		sc.Narration = append(sc.Narration, t.Narrative)
	}
	if !current {
		return sc, nil
	}
	v := l.view(viewer{level: access.Player})
	place := v.Scene.Location
	if pc := v.Characters[v.Player]; pc != nil && pc.Location != "" {
		place = pc.Location
	}
	if loc := v.Locations[place]; loc != nil {
		sc.Location, sc.Description = loc.Name, loc.Description
	}
	sc.Mood = v.Scene.Mood
	sc.Characters = present(v, place)
	return sc, nil
}

// present names who is at place in v: the party (or the player) first,
// then the others by name.
func present(v *world.State, place string) []string {
	var party, others []string
	seen := map[string]bool{}
	for _, m := range v.Members() {
		id := m.Character
		if c := v.Characters[id]; c != nil && !seen[id] && (place == "" || c.Location == place || c.Location == "") {
			party = append(party, cmp.Or(c.Name, id))
			seen[id] = true
		}
	}
	for id, c := range v.Characters {
		if !seen[id] && place != "" && c.Location == place {
			others = append(others, cmp.Or(c.Name, id))
		}
	}
	slices.Sort(others)
	return append(party, others...)
}

// images is GET /api/sessions/{id}/images: every image of a game whoever
// may read the game may see; the prompts were made from a player's view.
func (s *Server) images(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, 0); !ok || s.imagesOff(w, r, false) {
		return
	}
	id := r.PathValue("id")
	recs, ok := s.gameImages(w, r, id)
	if !ok {
		return
	}
	out := make([]SceneImage, 0, len(recs))
	for _, rec := range recs {
		out = append(out, SceneImage{Record: rec, ImageURL: imageURL(id, rec.ID)})
	}
	api.JSON(w, http.StatusOK, map[string]any{"images": out})
}

// gameImages lists a stored game's images, answering 404 itself when
// there is no such game.
func (s *Server) gameImages(w http.ResponseWriter, r *http.Request, id string) ([]imagegen.Record, bool) {
	if _, err := s.o.Store.Session(r.Context(), id); err != nil {
		s.fail(w, r, id, err)
		return nil, false
	}
	recs, err := s.o.ImageStore.List(r.Context(), id)
	if err != nil {
		s.fail(w, r, id, err)
		return nil, false
	}
	return recs, true
}

func (s *Server) downloadImage(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, 0); !ok || s.imagesOff(w, r, false) {
		return
	}
	id, imageID := r.PathValue("id"), r.PathValue("image_id")
	if _, err := s.o.Store.Session(r.Context(), id); err != nil {
		s.fail(w, r, id, err)
		return
	}
	rec, png, err := s.o.ImageStore.Get(r.Context(), id, imageID)
	if err != nil {
		s.fail(w, r, id, err, api.Say{Code: hearth.NotFound, ID: "gameapi.image_not_found", Data: map[string]any{"ID": clip(imageID)}})
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": imageName(rec)}))
	w.WriteHeader(http.StatusOK)
	w.Write(png) //nolint:errcheck // the client left
}

// imageName is an image's file name in a download: its turn, then its id.
func imageName(rec imagegen.Record) string {
	return fmt.Sprintf("turn_%03d_%s.png", rec.Turn, rec.ID)
}

// downloadAll is GET /api/sessions/{id}/images/download-all: a zip of the
// game's images (at most maxZip, oldest first) and an images.json index,
// as seed 002 keeps them on disk.
func (s *Server) downloadAll(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, 0); !ok || s.imagesOff(w, r, false) {
		return
	}
	id := r.PathValue("id")
	recs, ok := s.gameImages(w, r, id)
	if !ok {
		return
	}
	recs = recs[:min(len(recs), maxZip)]
	// Read every image before the first byte goes out, so that a failure
	// is an error answer and not a cut archive.
	pngs := make([][]byte, len(recs))
	for i, rec := range recs {
		_, png, err := s.o.ImageStore.Get(r.Context(), id, rec.ID)
		if err != nil {
			s.fail(w, r, id, err)
			return
		}
		pngs[i] = png
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "hearth-" + id + "-images.zip"}))
	w.WriteHeader(http.StatusOK)
	zw := zip.NewWriter(w)
	now := time.Now()
	for i, rec := range recs {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: "images/" + imageName(rec), Method: zip.Store, Modified: cmp.Or(rec.Created, now)})
		if err != nil {
			return // the client left
		}
		if _, err := f.Write(pngs[i]); err != nil {
			return
		}
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "images/images.json", Method: zip.Deflate, Modified: now})
	if err != nil {
		return
	}
	if err := writeJSON(f, recs); err != nil {
		return
	}
	zw.Close() //nolint:errcheck // the client left
}

// ImageSummary is one game's entry in GET /api/sessions/images/summary.
type ImageSummary struct {
	Session string `json:"session_id"`
	Name    string `json:"session_name"`
	Images  int    `json:"image_count"`
}

func (s *Server) imageSummary(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.user(w, r, 0); !ok || s.imagesOff(w, r, false) {
		return
	}
	counts, err := s.o.ImageStore.Counts(r.Context())
	if err != nil {
		s.fail(w, r, "", err)
		return
	}
	out := make([]ImageSummary, 0, len(counts))
	for _, c := range counts {
		m, err := s.o.Store.Session(r.Context(), c.Session)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since: its images go with it
		}
		if err != nil {
			s.fail(w, r, "", err)
			return
		}
		out = append(out, ImageSummary{Session: c.Session, Name: m.Name, Images: c.Images})
	}
	api.JSON(w, http.StatusOK, map[string]any{"sessions": out})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
