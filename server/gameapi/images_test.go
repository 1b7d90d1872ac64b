package gameapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/imagegen/imagegentest"
	"github.com/hearth-rpg/hearth/imagegen/sqliteimages"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

// providers are the image adapters, each against its fake wire-format
// server.
var providers = []struct {
	name  string
	start func(t *testing.T) (imagegen.Provider, *imagegentest.Server)
}{
	{"openai", func(t *testing.T) (imagegen.Provider, *imagegentest.Server) {
		srv := imagegentest.OpenAI(t)
		p, err := imagegen.NewOpenAI(imagegen.Options{BaseURL: srv.Base, APIKey: imagegentest.Key, Model: "gpt-image-1"})
		if err != nil {
			t.Fatal(err)
		}
		return p, srv
	}},
	{"gemini", func(t *testing.T) (imagegen.Provider, *imagegentest.Server) {
		srv := imagegentest.Gemini(t)
		p, err := imagegen.NewGemini(context.Background(), imagegen.Options{BaseURL: srv.Base, APIKey: imagegentest.Key, Model: imagegentest.GeminiModel})
		if err != nil {
			t.Fatal(err)
		}
		return p, srv
	}},
}

// openImages opens the games and their images in one SQLite file.
func openImages(t *testing.T, path string) *sqliteimages.DB {
	t.Helper()
	db, err := sqliteimages.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func withImages(db *sqliteimages.DB, p imagegen.Provider) func(*gameapi.Options) {
	return func(o *gameapi.Options) {
		o.Store, o.ImageStore, o.Images, o.ImageSize = db.Games(), db, p, "1024x1024"
	}
}

// play plays n turns as the GM and returns once the last is committed.
func play(c *client, inputs ...string) {
	for i, in := range inputs {
		c.send(gameapi.Command{Type: gameapi.HumanAction, Content: in})
		c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Committed && u.Input == in && u.Turn >= i+1 })
	}
}

// Image generation end to end with each provider: generate-current →
// image_ready on every connection → the PNG downloadable by the roles
// that may read the game and by no one else; the other routes; the images
// outlive the server and die with the game.
func TestSceneImages(t *testing.T) {
	for _, pv := range providers {
		t.Run(pv.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hearth.db")
			db := openImages(t, path)
			prov, fake := pv.start(t)
			h := newHarness(t, withImages(db, prov))
			g := h.create(7)
			base := "/api/sessions/" + g.ID + "/images"

			gmc, pc := h.dial(g.ID, gm), h.dial(g.ID, player)
			gmc.state()
			pc.state()
			play(gmc, "look around", "wait")

			// generate-current draws the current turn.
			var img gameapi.SceneImage
			h.ok(http.StatusCreated, "POST", base+"/generate-current", gm, nil, &img)
			if img.Turn != 2 || img.Mode != imagegen.ModeCurrent || img.Provider != pv.name || img.Model != prov.Model() ||
				img.Session != g.ID || img.Branch != "main" || img.ImageURL != base+"/"+img.ID+"/download" || img.Bytes == 0 {
				t.Fatalf("generated: %+v", img)
			}
			for who, c := range map[string]*client{"gm": gmc, "player": pc} {
				m, _ := c.until(gameapi.TypeImageReady, nil)
				var ready gameapi.ImageReady
				m.into(t, &ready)
				want := gameapi.ImageReady{Type: gameapi.TypeImageReady, ImageID: img.ID, Turn: 2, Mode: imagegen.ModeCurrent, ImageURL: img.ImageURL}
				if ready != want {
					t.Errorf("%s's image_ready: %+v, want %+v", who, ready, want)
				}
			}

			// The prompt is the scene as a player sees it.
			prompts := fake.Prompts()
			if len(prompts) != 1 || img.Prompt != prompts[0] || !strings.Contains(prompts[0], "Depict this moment:") || !strings.Contains(prompts[0], "Setting:") {
				t.Fatalf("prompts sent: %q; stored %q", prompts, img.Prompt)
			}
			for _, secret := range gmOnly {
				if strings.Contains(prompts[0], secret) {
					t.Errorf("the prompt holds the GM-only %q: %s", secret, prompts[0])
				}
			}

			// The PNG: the GM and a player of the game may download it.
			var first []byte
			for _, who := range []string{gm, player, trusted} {
				code, b, hdr := h.do("GET", img.ImageURL, who, nil)
				if code != http.StatusOK || hdr.Get("Content-Type") != "image/png" || !imagegen.IsPNG(b) || len(b) != img.Bytes {
					t.Fatalf("download as %s: %d %s %q", who, code, hdr.Get("Content-Type"), b[:min(len(b), 16)])
				}
				if first == nil {
					first = b
				} else if !bytes.Equal(b, first) {
					t.Errorf("%s downloaded other bytes", who)
				}
			}

			// No one else, and not through another game.
			other := h.create(8)
			refused := []struct {
				name, method, path, user string
				status                   int
			}{
				{"no user downloads", "GET", img.ImageURL, "", http.StatusUnauthorized},
				{"no user lists", "GET", base, "", http.StatusUnauthorized},
				{"no user zips", "GET", base + "/download-all", "", http.StatusUnauthorized},
				{"no user summary", "GET", "/api/sessions/images/summary", "", http.StatusUnauthorized},
				{"no user generates", "POST", base + "/generate-current", "", http.StatusUnauthorized},
				{"player generates", "POST", base + "/generate-current", player, http.StatusForbidden},
				{"trusted generates best", "POST", base + "/generate-best", trusted, http.StatusForbidden},
				{"player generates a turn", "POST", base + "/generate-turn/1", player, http.StatusForbidden},
				{"through another game", "GET", "/api/sessions/" + other.ID + "/images/" + img.ID + "/download", gm, http.StatusNotFound},
				{"no such game", "GET", "/api/sessions/nope/images/" + img.ID + "/download", gm, http.StatusNotFound},
				{"no such game's list", "GET", "/api/sessions/nope/images", player, http.StatusNotFound},
				{"no such image", "GET", base + "/img_0000000000000000/download", gm, http.StatusNotFound},
				{"a turn not played", "POST", base + "/generate-turn/99", gm, http.StatusBadRequest},
				{"not a turn", "POST", base + "/generate-turn/zero", gm, http.StatusBadRequest},
				{"generate for no game", "POST", "/api/sessions/nope/images/generate-current", gm, http.StatusNotFound},
			}
			for _, r := range refused {
				if code, b, _ := h.do(r.method, r.path, r.user, nil); code != r.status || imagegen.IsPNG(b) {
					t.Errorf("%s: %d %.80q, want %d", r.name, code, b, r.status)
				}
			}
			if n := len(fake.Prompts()); n != 1 {
				t.Errorf("refused requests reached the provider: %d prompts", n)
			}

			// generate-turn and generate-best.
			var turn1, best gameapi.SceneImage
			h.ok(http.StatusCreated, "POST", base+"/generate-turn/1", asst, nil, &turn1)
			h.ok(http.StatusCreated, "POST", base+"/generate-best", gm, nil, &best)
			if turn1.Turn != 1 || turn1.Mode != imagegen.ModeSpecific || best.Mode != imagegen.ModeBest || best.Turn < 1 || best.Turn > 2 {
				t.Errorf("turn 1: %+v; best: %+v", turn1, best)
			}
			gmc.until(gameapi.TypeImageReady, func(m msg) bool { return strings.Contains(string(m.Raw), best.ID) })

			// The list, as a player.
			var list struct{ Images []gameapi.SceneImage }
			h.ok(http.StatusOK, "GET", base, player, nil, &list)
			var ids []string
			for _, im := range list.Images {
				ids = append(ids, im.ID)
			}
			if want := []string{img.ID, turn1.ID, best.ID}; !slices.Equal(ids, want) {
				t.Errorf("list: %v, want %v", ids, want)
			}

			// download-all is a zip of them all and their index.
			code, zb, hdr := h.do("GET", base+"/download-all", player, nil)
			if code != http.StatusOK || hdr.Get("Content-Type") != "application/zip" {
				t.Fatalf("download-all: %d %s", code, hdr.Get("Content-Type"))
			}
			zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range zr.File {
				names = append(names, f.Name)
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				buf.ReadFrom(rc) //nolint:errcheck // checked below
				rc.Close()
				if strings.HasSuffix(f.Name, ".png") && !imagegen.IsPNG(buf.Bytes()) {
					t.Errorf("%s in the zip is not a PNG", f.Name)
				}
				if f.Name == "images/images.json" {
					var idx []imagegen.Record
					if err := json.Unmarshal(buf.Bytes(), &idx); err != nil || len(idx) != 3 {
						t.Errorf("images.json: %v %s", err, buf.Bytes())
					}
				}
			}
			want := []string{"images/turn_002_" + img.ID + ".png", "images/turn_001_" + turn1.ID + ".png",
				fmt.Sprintf("images/turn_%03d_%s.png", best.Turn, best.ID), "images/images.json"}
			if !slices.Equal(names, want) {
				t.Errorf("zip holds %v, want %v", names, want)
			}

			// The summary counts them.
			var sum struct{ Sessions []gameapi.ImageSummary }
			h.ok(http.StatusOK, "GET", "/api/sessions/images/summary", player, nil, &sum)
			if len(sum.Sessions) != 1 || sum.Sessions[0].Session != g.ID || sum.Sessions[0].Images != 3 {
				t.Errorf("summary: %+v", sum.Sessions)
			}

			// A server started afresh on the same file serves them.
			again := openImages(t, path)
			h2 := newHarness(t, withImages(again, nil))
			if code, b, _ := h2.do("GET", img.ImageURL, player, nil); code != http.StatusOK || !bytes.Equal(b, first) {
				t.Errorf("after a restart: %d", code)
			}
			if code, b, _ := h2.do("POST", base+"/generate-current", gm, nil); code != http.StatusServiceUnavailable || !strings.Contains(string(b), "[images] provider") {
				t.Errorf("generating with no provider: %d %s", code, b)
			}

			// Deleting the game deletes its images.
			h.ok(http.StatusNoContent, "DELETE", "/api/sessions/"+g.ID, gm, nil, nil)
			if code, _, _ := h.do("GET", img.ImageURL, gm, nil); code != http.StatusNotFound {
				t.Errorf("a deleted game's image: %d", code)
			}
			if _, _, err := db.Get(context.Background(), g.ID, img.ID); err == nil {
				t.Error("a deleted game's image is still stored")
			}
			h.ok(http.StatusOK, "GET", "/api/sessions/images/summary", gm, nil, &sum)
			if len(sum.Sessions) != 0 {
				t.Errorf("summary after delete: %+v", sum.Sessions)
			}
		})
	}
}

// Off by default: without a provider, generating is refused with a message
// that says what to set; without a store, every image route is.
func TestSceneImagesOff(t *testing.T) {
	h := newHarness(t)
	g := h.create(1)
	base := "/api/sessions/" + g.ID + "/images"
	for _, r := range []struct{ method, path string }{
		{"POST", base + "/generate-current"}, {"POST", base + "/generate-best"}, {"POST", base + "/generate-turn/1"},
		{"GET", base}, {"GET", base + "/img_x/download"}, {"GET", base + "/download-all"}, {"GET", "/api/sessions/images/summary"},
	} {
		code, b, _ := h.do(r.method, r.path, gm, nil)
		if code != http.StatusServiceUnavailable || !strings.Contains(string(b), "Image generation is off; set [images] provider") {
			t.Errorf("%s %s: %d %s", r.method, r.path, code, b)
		}
	}
}

// A provider's failure is the client's error, and nothing is stored or
// announced.
func TestSceneImageProviderFails(t *testing.T) {
	db := openImages(t, filepath.Join(t.TempDir(), "hearth.db"))
	prov, fake := providers[0].start(t)
	fake.ReplyWith(http.StatusServiceUnavailable, `{"error":{"message":"overloaded","type":"server_error"}}`)
	h := newHarness(t, withImages(db, prov))
	g := h.create(3)
	c := h.dial(g.ID, gm)
	c.state()
	play(c, "look around")
	code, b, _ := h.do("POST", "/api/sessions/"+g.ID+"/images/generate-current", gm, nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(b), "overloaded") {
		t.Errorf("a failing provider: %d %s", code, b)
	}
	if recs, err := db.List(context.Background(), g.ID); err != nil || len(recs) != 0 {
		t.Errorf("stored after a failure: %+v %v", recs, err)
	}
}

// The detail tells a page whether to offer the generate button: only to
// an assistant or the GM of a server that can draw, and nothing at all
// when the server keeps no images.
func TestSceneImagesInTheDetail(t *testing.T) {
	db := openImages(t, filepath.Join(t.TempDir(), "hearth.db"))
	prov, _ := providers[0].start(t)
	for _, tt := range []struct {
		name string
		edit []func(*gameapi.Options)
		user string
		want string
	}{
		{"gm, drawing", []func(*gameapi.Options){withImages(db, prov)}, gm, `"images":{"generate":true}`},
		{"assistant, drawing", []func(*gameapi.Options){withImages(db, prov)}, asst, `"images":{"generate":true}`},
		{"player, drawing", []func(*gameapi.Options){withImages(db, prov)}, player, `"images":{"generate":false}`},
		{"gm, no provider", []func(*gameapi.Options){withImages(db, nil)}, gm, `"images":{"generate":false}`},
		{"gm, no store", nil, gm, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.edit...)
			g := h.create(1)
			b := string(h.ok(http.StatusOK, "GET", "/api/sessions/"+g.ID, tt.user, nil, nil))
			if tt.want == "" && strings.Contains(b, `"images"`) || tt.want != "" && !strings.Contains(b, tt.want) {
				t.Errorf("detail %s, want %q", b, tt.want)
			}
		})
	}
}
