package app_test

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/game"
)

// copyPacks copies the campaign package's test packs (the Warren, a
// campaign, and the bestiary and homebrew packs whose entities it uses)
// into dir/campaigns, the names given only.
func copyPacks(t *testing.T, dir string, names ...string) string {
	t.Helper()
	root := filepath.Join(dir, "campaigns")
	for _, n := range names {
		if err := os.CopyFS(filepath.Join(root, n), os.DirFS(filepath.Join("..", "campaign", "testdata", "packs", n))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFindPack(t *testing.T) {
	ctx := context.Background()
	root := copyPacks(t, t.TempDir(), "warren", "bestiary")
	warren := filepath.Join(root, "warren")
	zipDir(t, filepath.Join("..", "campaign", "testdata", "packs", "homebrew"), filepath.Join(root, "homebrew.zip"))
	tests := []struct {
		name, dir, id string
		want          string // the pack's id, or "" for an error
		errHas        string
	}{
		{"beside the campaign", warren, "bestiary", "bestiary", ""},
		{"built in", warren, "srd51", "srd51", ""},
		{"a built-in campaign finds built-in packs", "campaigns/saltmere", "srd51", "srd51", ""},
		{"an archive beside the campaign", warren, "homebrew", "homebrew", ""},
		{"neither", warren, "nowhere", "", `no directory ` + filepath.Join(root, "nowhere") + ` (nor an archive of it) beside the campaign, and "nowhere" is not built into Hearth (built in: srd51)`},
		{"a built-in campaign does not look on disk", "campaigns/saltmere", "bestiary", "", `"bestiary" is not built into Hearth`},
		{"a path is not an id", warren, "../warren", "", `"../warren" is not a pack id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := app.FindPack(ctx, tt.dir, tt.id)
			if tt.want != "" {
				if err != nil || p.Manifest.ID != tt.want {
					t.Fatalf("got %v, %v; want pack %s", p, err, tt.want)
				}
				return
			}
			if !errors.Is(err, app.ErrPackNotFound) || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("error %v; want ErrPackNotFound with %q", err, tt.errHas)
			}
		})
	}
}

// A campaign that uses entities of its packs is played with them: from a
// directory (hearth play --campaign) and by name from DATA/campaigns (the
// HTTP API), and resumed.
func TestCampaignPlaysWithItsPacks(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	root := copyPacks(t, cfg.Storage.DataDir, "warren", "bestiary", "homebrew")
	a, err := app.Open(ctx, app.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	byDir, err := app.LoadCampaign(ctx, filepath.Join(root, "warren"))
	if err != nil {
		t.Fatal(err)
	}
	byName, err := a.Campaign(ctx, "warren")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		how string
		cp  *campaign.Campaign
	}{{"by directory", byDir}, {"by name", byName}} {
		s, err := a.NewGame(ctx, c.cp, 1, game.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.how, err)
		}
		w := s.World()
		if w.Characters["bestiary:goblin"] == nil || w.Characters["ash"].Inventory["bestiary:scimitar"] != 1 {
			t.Fatalf("%s: the goblin %v, ash's inventory %v", c.how, w.Characters["bestiary:goblin"], w.Characters["ash"].Inventory)
		}
		if _, err := s.Act(ctx, "look"); err != nil {
			t.Fatalf("%s: look: %v", c.how, err)
		}
		again, err := a.OpenGame(ctx, s.ID(), game.Options{})
		if err != nil {
			t.Fatalf("%s: resume: %v", c.how, err)
		}
		if again.World().Items["bestiary:scimitar"] == nil {
			t.Errorf("%s: resumed without the bestiary's scimitar", c.how)
		}
	}

	if err := os.RemoveAll(filepath.Join(root, "homebrew")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Campaign(ctx, "warren"); !errors.Is(err, app.ErrPackNotFound) {
		t.Errorf("a pack gone: %v", err)
	}
}

// --campaign takes a directory, else the name of a built-in campaign; a
// directory on disk wins over a built-in campaign of the same name.
func TestLoadCampaign(t *testing.T) {
	ctx := context.Background()
	own := filepath.Join(copyPacks(t, t.TempDir(), "bestiary"), "saltmere")
	if err := os.CopyFS(own, os.DirFS(filepath.Join("..", "campaign", "testdata", "packs", "warren"))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, title string
		err        string
	}{
		{"", "The Lantern of Saltmere", ""},
		{"saltmere", "The Lantern of Saltmere", ""},
		{"the_ferry_at_greywater", "The Ferry at Greywater", ""},
		{"campaigns/saltmere", "The Lantern of Saltmere", ""},
		{filepath.Join("..", "campaigns", "saltmere"), "The Lantern of Saltmere", ""},
		{own, "", "homebrew"}, // the Warren under that name, one of its packs missing
		{"nowhere", "", "there is no directory nowhere, nor a built-in campaign of that name (built in: saltmere, the_ferry_at_greywater)"},
		{"../nowhere", "", "there is no directory ../nowhere"},
	}
	for _, tt := range tests {
		c, err := app.LoadCampaign(ctx, tt.dir)
		switch {
		case tt.err == "" && (err != nil || c.Meta.Title != tt.title):
			t.Errorf("%q: %v, %v; want %s", tt.dir, c, err, tt.title)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: %v; want an error with %q", tt.dir, err, tt.err)
		}
	}
	if _, err := app.LoadCampaign(ctx, "nowhere"); hearth.ErrorCode(err) != hearth.NotFound {
		t.Errorf("nowhere: code %v, want not found", hearth.ErrorCode(err))
	}
}

// zipDir writes the files under dir into a zip archive at dst.
func zipDir(t *testing.T, dir, dst string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	if err := zw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
