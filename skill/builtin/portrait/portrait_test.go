package portrait_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill/builtin/portrait"
)

// campaignWithArt copies the bundled campaign and adds art with keyword
// sidecars and a state-bound icon, as an author would.
func campaignWithArt(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "saltmere")
	if err := os.CopyFS(dir, os.DirFS("../../../campaigns/saltmere")); err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 4, 4)))
	files := map[string][]byte{
		"art/characters/blacksmith.png":              img.Bytes(),
		"art/characters/blacksmith.png.keywords.txt": []byte("# Gareth at the forge\ngareth\nmuscular\nscarred\nleather apron\n"),
		"art/characters/npc_wizard.png":              img.Bytes(),
		"art/characters/npc_wizard.png.keywords.txt": []byte("wizard\narchmage\nmerlin\n"),
		"art/places/forge_interior.png":              img.Bytes(),
		"ui/state/player.hp.png":                     img.Bytes(),
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func lookup(t *testing.T, input string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	doc := `{"requestId":"r","tool":"lookup-portrait","input":` + input + `}`
	if code := portrait.Run(strings.NewReader(doc), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	res := map[string]any{"raw": out.String()}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(l), &e)
		switch e["type"] {
		case "ui_event":
			res["ui"] = e["payload"]
		case "asset":
			res["asset"] = e["path"]
		case "state_patch":
			res["patch"] = e["patch"]
		case "done":
			res["ok"] = e["ok"]
		}
	}
	return res
}

func TestPortraitFromCampaignArt(t *testing.T) {
	dir := campaignWithArt(t)
	t.Setenv(portrait.EnvCampaignDir, dir)
	tests := []struct {
		name, input, want string
	}{
		{"by a sidecar keyword", `{"character": "gareth"}`, "art/characters/blacksmith.png"},
		{"by description words", `{"character": "old_man", "description": "a scarred, muscular smith"}`, "art/characters/blacksmith.png"},
		{"by the seed's archmage", `{"entityId": "merlin"}`, "art/characters/npc_wizard.png"},
		{"a place by file name", `{"location": "forge", "keywords": ["interior"]}`, "art/places/forge_interior.png"},
		{"state-bound icon", `{"statePath": "player.hp"}`, "ui/state/player.hp.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := lookup(t, tt.input)
			ui, _ := r["ui"].(map[string]any)
			if ui["path"] != tt.want || ui["url"] != "/api/campaigns/saltmere/assets/"+tt.want || r["ok"] != true {
				t.Fatalf("got %v", r["raw"])
			}
			if r["asset"] != filepath.Join(dir, filepath.FromSlash(tt.want)) {
				t.Errorf("asset path %v", r["asset"])
			}
		})
	}
	// The same character's art is kept with the game for later sessions.
	r := lookup(t, `{"character": "gareth"}`)
	if p, _ := r["patch"].(map[string]any); p == nil || p["portraits"].(map[string]any)["gareth"] != "/api/campaigns/saltmere/assets/art/characters/blacksmith.png" {
		t.Errorf("patch %v", r["patch"])
	}
	// Nothing fits: the placeholder, not another character's face.
	r = lookup(t, `{"character": "kraken"}`)
	if ui, _ := r["ui"].(map[string]any); ui["placeholder"] != "silhouette" || ui["path"] != nil || r["ok"] != true {
		t.Errorf("no art: %v", r["raw"])
	}
	// …and the game keeps that none fits, so it is not asked again.
	if p, _ := r["patch"].(map[string]any); p == nil || p["portraits"].(map[string]any)["kraken"] != "" {
		t.Errorf("no art, patch %v", r["patch"])
	}
}
