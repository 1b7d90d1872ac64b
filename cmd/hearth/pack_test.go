package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

func TestPackValidate(t *testing.T) {
	out := run(t, nil, "pack", "validate", "../../campaigns/saltmere")
	if !strings.Contains(out, "0 error(s)") {
		t.Errorf("saltmere does not validate clean:\n%s", out)
	}
	out = run(t, nil, "pack", "validate", "srd51") // bundled, by id
	if !strings.Contains(out, "srd51") || !strings.Contains(out, "chunks") {
		t.Errorf("srd51 report:\n%s", out)
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pack.yml"), []byte("id: broken\nname: Broken\nversion: 1.0.0\nlayer: base\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "npc_a.md"), []byte("---\nentity_type: npc\nentity_id: twin\nname: A\n---\nOne.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "npc_b.md"), []byte("---\nentity_type: npc\nentity_id: twin\nname: B\n---\nTwo.\n"), 0o644)
	cmd := exec.Command(hearthBin, "pack", "validate", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("a pack with errors: exit %v, want 1\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "npc_b.md:1: error") || !strings.Contains(stdout.String(), "defined twice") {
		t.Errorf("the duplicate id is not reported with file and line:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "error(s)") {
		t.Errorf("no summary on stderr: %s", stderr.String())
	}
}

func TestSearchJSONAndRoles(t *testing.T) {
	data := t.TempDir()
	// The bundled SRD is indexed on first use, with no install step.
	out := run(t, nil, "--data", data, "search", "what does the grappled condition do", "--pack", "srd51", "--json", "--limit", "3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 JSON lines, got %d:\n%s", len(lines), out)
	}
	var first struct {
		File    string  `json:"file"`
		Heading string  `json:"heading"`
		Score   float64 `json:"score"`
		Text    string  `json:"text"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.File != "Gamemastering/Conditions.md" || !strings.HasSuffix(first.Heading, "Grappled") || first.Score <= 0 || first.Text == "" {
		t.Errorf("first result: %+v", first)
	}

	// A pack with a GM-only secret: a player who names it word for word
	// does not get it; the GM does.
	pack := t.TempDir()
	os.WriteFile(filepath.Join(pack, "pack.yml"), []byte("id: vault\nname: Vault\nversion: 1.0.0\nlayer: base\n"), 0o644)
	os.WriteFile(filepath.Join(pack, "lore_vault.md"), []byte("# The Vault\nThe vault door is iron.\n"), 0o644)
	os.WriteFile(filepath.Join(pack, "lore_key.md"), []byte("---\naccess: gm_only\n---\n# The Key\nThe obsidian key hides beneath the altar stone.\n"), 0o644)
	run(t, nil, "--data", data, "pack", "index", pack)
	q := "obsidian key hides beneath the altar stone"
	if out := run(t, nil, "--data", data, "search", q, "--pack", "vault", "--role", "player", "--explain"); strings.Contains(out, "altar") || strings.Contains(out, "lore_key") {
		t.Errorf("a player sees GM-only lore:\n%s", out)
	}
	if out := run(t, nil, "--data", data, "search", q, "--pack", "vault", "--role", "gm_only"); !strings.Contains(out, "altar stone") {
		t.Errorf("the GM does not find the secret:\n%s", out)
	}
	if out := run(t, nil, "--data", data, "pack", "info", pack); !strings.Contains(out, "up to date") {
		t.Errorf("pack info after indexing:\n%s", out)
	}
}

// A campaign that uses entities of its packs finds them beside it: it
// validates and plays with them, and without one it says where the pack
// should be, in validate and in play.
func TestCampaignWithPacksBesideIt(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"warren", "bestiary", "homebrew"} {
		if err := os.CopyFS(filepath.Join(root, n), os.DirFS(filepath.Join("..", "..", "campaign", "testdata", "packs", n))); err != nil {
			t.Fatal(err)
		}
	}
	warren := filepath.Join(root, "warren")
	if out := run(t, nil, "pack", "validate", warren); !strings.Contains(out, "0 error(s)") {
		t.Errorf("validate with its packs beside it:\n%s", out)
	}
	out := run(t, strings.NewReader("inventory\n"), "play", "--campaign", warren)
	if !strings.Contains(out, "Scimitar") {
		t.Errorf("the bestiary's scimitar is not in the inventory:\n%s", out)
	}

	// Served from DATA/campaigns: the packs beside the campaign are not
	// listed as campaigns, and a game of it starts with their entities.
	data := t.TempDir()
	if err := os.CopyFS(filepath.Join(data, "campaigns"), os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", data))
	url := hearthtest.Server{Bin: hearthBin, Data: data}.Start(t)
	call := func(method, path, body string, want int) string {
		t.Helper()
		code, b := apiCall(t, method, url+path, key, "application/json", strings.NewReader(body))
		if code != want {
			t.Fatalf("%s %s: %d, want %d: %.400s", method, path, code, want, b)
		}
		return string(b)
	}
	if list := call("GET", "/api/campaigns", "", http.StatusOK); !strings.Contains(list, `"name":"warren"`) || strings.Contains(list, "bestiary") || strings.Contains(list, "homebrew") {
		t.Errorf("campaigns: %s", list)
	}
	var game struct{ ID string }
	if err := json.Unmarshal([]byte(call("POST", "/api/sessions", `{"campaign":"warren","seed":1}`, http.StatusCreated)), &game); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := dialGame(t, ctx, url, key, game.ID)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no session_state: %v", err)
		}
		var f struct {
			Type  string `json:"type"`
			State struct {
				World struct {
					Items map[string]json.RawMessage `json:"items"`
				} `json:"world"`
			} `json:"state"`
		}
		if json.Unmarshal(b, &f) != nil || f.Type != "session_state" {
			continue
		}
		if f.State.World.Items["bestiary:scimitar"] == nil {
			t.Errorf("the served game's world has no bestiary:scimitar: %.600s", b)
		}
		break
	}

	if err := os.RemoveAll(filepath.Join(root, "homebrew")); err != nil {
		t.Fatal(err)
	}
	want := `no directory ` + filepath.Join(root, "homebrew") + ` (nor an archive of it) beside the campaign`
	if out := runFail(t, "pack", "validate", warren); !strings.Contains(out, "campaign.yml:6: error: pack not found: "+want) {
		t.Errorf("validate without a pack:\n%s", out)
	}
	if out := runFail(t, "play", "--campaign", warren); !strings.Contains(out, want) {
		t.Errorf("play without a pack:\n%s", out)
	}
}
