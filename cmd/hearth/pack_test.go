package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
