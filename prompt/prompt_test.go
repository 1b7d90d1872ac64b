package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type data struct {
	Title, Genre, Tone, Player, System, Intents string
	Words                                       int
}

func TestBuiltinPromptsRender(t *testing.T) {
	r, err := New("", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"combat", "dm", "exploration", "interpreter", "narrator", "npc", "planner", "router", "rules", "summariser", "worldbuilder"}
	if got := strings.Join(r.Names(), ","); got != "assistant,"+strings.Join(want, ",") {
		t.Fatalf("names %s", got)
	}
	// The GM assistant's prompt has data of its own.
	tm, err := r.Get("assistant")
	if err != nil {
		t.Fatal(err)
	}
	out, err := tm.Render(map[string]any{"UserName": "Ann", "RoleName": "a player", "Player": true, "System": "mgt2e",
		"Tools": "document_search, dice_roll", "External": "dice_roll"})
	if err != nil || !strings.Contains(out, "Ann, who is a player") || !strings.Contains(out, "kept from players") || strings.Contains(out, "<no value>") {
		t.Errorf("assistant: %q, %v", out, err)
	}
	for _, name := range want {
		tm, err := r.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := tm.Render(data{Title: "T", Genre: "fantasy", Player: "Kestrel", System: "d20", Intents: "- look", Words: 100})
		if err != nil || out == "" || strings.Contains(out, "<no value>") {
			t.Errorf("%s: %q, %v", tm.ID(), out, err)
		}
	}
}

func TestPinsAndOverrides(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "narrator@2.tmpl"), []byte("Tell it tersely, {{.Player}}."), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	r, err := New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tm, _ := r.Get("narrator")
	if tm.ID() != "narrator@2" || tm.Source != filepath.Join(dir, "narrator@2.tmpl") {
		t.Fatalf("latest narrator: %s from %s", tm.ID(), tm.Source)
	}
	if out, _ := tm.Render(data{Player: "Kestrel"}); out != "Tell it tersely, Kestrel." {
		t.Fatalf("render %q", out)
	}
	pinned, err := New(dir, map[string]int{"narrator": 1})
	if err != nil {
		t.Fatal(err)
	}
	if tm, _ := pinned.Get("narrator"); tm.ID() != "narrator@1" {
		t.Fatalf("pinned: %s", tm.ID())
	}
	if _, err := New(dir, map[string]int{"narrator": 9}); err == nil || !strings.Contains(err.Error(), "versions of narrator: [1 2]") {
		t.Fatalf("pin to a missing version: %v", err)
	}
	if _, err := r.Get("oracle"); err == nil || !strings.Contains(err.Error(), "narrator") {
		t.Fatalf("unknown prompt: %v", err)
	}
}

func TestBadOverrides(t *testing.T) {
	for name, body := range map[string]string{"narrator.tmpl": "x", "narrator@zero.tmpl": "x", "narrator@3.tmpl": "{{.Player"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
		if _, err := New(dir, nil); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
	tm, _ := func() (*Template, error) { r, _ := New("", nil); return r.Get("dm") }()
	if _, err := tm.Render(struct{ Title string }{"x"}); err == nil {
		t.Error("rendering with missing fields should fail")
	}
}

func TestParsePins(t *testing.T) {
	got, err := ParsePins("narrator@2, interpreter@1")
	if err != nil || got["narrator"] != 2 || got["interpreter"] != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	if _, err := ParsePins("narrator"); err == nil {
		t.Fatal("want an error")
	}
}

// TestSeedPlaceholders checks that a prompt written with the seed's
// {player_stats} renders the stats it is given, and that rendering it
// without them is an error, not an empty line.
func TestSeedPlaceholders(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "narrator@7.tmpl"), []byte("Offer choices that fit these stats:\n{player_stats}\nKeep {other} as it is."), 0o644)
	r, err := New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tm, _ := r.Get("narrator")
	out, err := tm.Render(map[string]any{"PlayerStats": "charisma: 16 (+3)"})
	if err != nil || out != "Offer choices that fit these stats:\ncharisma: 16 (+3)\nKeep {other} as it is." {
		t.Fatalf("render %q, %v", out, err)
	}
	if _, err := tm.Render(map[string]any{}); err == nil {
		t.Error("rendered {player_stats} with no stats")
	}
}
