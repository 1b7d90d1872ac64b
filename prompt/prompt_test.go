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
	if _, err := New(dir, map[string]int{"narrator": 9}); err == nil || !strings.Contains(err.Error(), "versions of narrator: [1 2 3]") {
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

// The second versions of the narrator and interpreter are candidates:
// they run where pinned, say what they changed, and the defaults stay
// the first versions until a measured run prefers them.
func TestVersionsPinsAndCandidates(t *testing.T) {
	d := data{Title: "Saltmere", Genre: "fantasy", Player: "Kestrel", System: "d20", Intents: "  look: Examines.", Words: 120}
	for _, tt := range []struct {
		name      string
		pins      map[string]int
		want      string
		candidate bool
		notes     string // in the notes; "" when there are none
		renders   string // in the rendered text
	}{
		{"narrator", nil, "narrator@1", false, "", "Two to four short paragraphs"},
		{"interpreter", nil, "interpreter@1", false, "", "Answer with one JSON object"},
		{"narrator", map[string]int{"narrator": 2}, "narrator@2", true, "hard word limit", "120 words at most"},
		{"interpreter", map[string]int{"interpreter": 2}, "interpreter@2", true, "one filled-in example", `{"intents": [{"type": "move"`},
		{"narrator", map[string]int{"interpreter": 2}, "narrator@1", false, "", "Kestrel"},
		{"dm", nil, "dm@2", false, "", "Saltmere"}, // the default is the newest non-candidate
	} {
		t.Run(tt.want, func(t *testing.T) {
			r, err := New("", tt.pins)
			if err != nil {
				t.Fatal(err)
			}
			tm, err := r.Get(tt.name)
			if err != nil || tm.ID() != tt.want {
				t.Fatalf("Get(%s) = %v, %v; want %s", tt.name, tm, err, tt.want)
			}
			if tm.Candidate != tt.candidate || (tt.notes == "") != (tm.Notes == "") || !strings.Contains(tm.Notes, tt.notes) || strings.Contains(tm.Notes, "Status") {
				t.Errorf("candidate %v, notes %q", tm.Candidate, tm.Notes)
			}
			out, err := tm.Render(d)
			if err != nil || !strings.Contains(out, tt.renders) || strings.Contains(out, "{{") || strings.Contains(out, "Status:") || strings.HasPrefix(out, "\n") {
				t.Errorf("render: %v\n%s", err, out)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	for _, tt := range []struct {
		body, notes string
		candidate   bool
	}{
		{"Tell it.", "", false},
		{"{{/* v2: shorter.\n  Status: candidate\n*/}}\nTell it.", "v2: shorter.", true},
		{"\n{{/* v3: clearer\nover two lines. */}}Tell it.", "v3: clearer over two lines.", false},
		{"{{/* Status: settled */}}Tell it.", "", false},
		{"{{/* never closed", "", false},
	} {
		notes, candidate := header(tt.body)
		if notes != tt.notes || candidate != tt.candidate {
			t.Errorf("header(%q) = %q, %v; want %q, %v", tt.body, notes, candidate, tt.notes, tt.candidate)
		}
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
