package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/pack"
)

func TestValidateSaltmere(t *testing.T) {
	r, err := Validate(context.Background(), saltmere)
	if err != nil {
		t.Fatal(err)
	}
	// The bundled campaign validates clean: no errors, no warnings.
	if !r.OK() || len(r.Problems) != 0 {
		t.Errorf("saltmere:\n%s", r.Text())
	}
	s := r.Summary
	want := map[string]int{"location": 7, "npc": 5, "creature": 1, "pc": 1, "item": 11, "quest": 1, "faction": 1, "lore": 2, "consequence": 3, "stat": 3}
	if !reflect.DeepEqual(s.Entities, want) || s.Stats != 3 || s.Items != 11 || s.Files != 37 || s.Chunks == 0 || s.Tokens < s.Chunks {
		t.Errorf("summary %+v", s)
	}
	if r.Pack != "the_lantern_of_saltmere" || !r.Campaign {
		t.Errorf("report %s campaign %v", r.Pack, r.Campaign)
	}
}

func TestValidateReportsLines(t *testing.T) {
	files := packFiles()
	files["locations/heath.md"] = "---\nentity_type: location\nname: Blasted Heath\nexits:\n  - {to: bog}\n---\nWind.\n"
	files["items/staff.yml"] = "label: Staff\nweight: heavy\n"
	files["stats/grit.json"] = "{\n  \"id\": \"grit\",\n  \"range\": {\"min\": 5, \"max\": 1}\n}\n"
	files["npcs/crone.md"] = "---\nentity_type: hag\n---\nAn old woman.\n"
	files["stats/nerve.json"] = "{\"range\": {\"min\": 0, \"max\": 5}}"
	files["stats/nerve.yml"] = "range: {min: 0, max: 5}\n"
	files["art/x.png.meta.yml"] = "generated: true\n"
	files["art/x.png"] = "x"
	dir := writeCampaign(t, files)
	r, err := Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"art/x.png.meta.yml:1: error: Generated asset missing provenance (generated=true requires provenance.source_model, provenance.generated_at, provenance.seed_data)",
		"items/staff.yml:2: error: weight should be a number, not string",
		`locations/heath.md:4: error: location "bog" does not exist; known locations: heath`, // the line of its key
		"npcs/crone.md:2: warning: entity_type hag is not used in play (kept as text only); play uses character, npc,",
		"pack.yml: warning: Campaign contains 1 AI-generated asset(s).",
		`stats/grit.json:3: error: stat "grit": range max 1 is below min 5`,
		`stats/nerve.yml:1: error: stat "nerve" is defined twice; the other is at stats/nerve.json`,
	}
	text := r.Text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("report:\n%s\nwant a line with %q", text, w)
		}
	}
	if r.OK() || r.Summary.Errors != 5 || r.Summary.Warnings != 2 || !strings.Contains(text, "5 error(s), 2 warning(s): FAILED") {
		t.Errorf("summary %+v", r.Summary)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Problems, r.Problems) || back.Summary.Errors != 5 {
		t.Errorf("JSON round trip: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), `{"file":"items/staff.yml","line":2,"severity":"error","message":"weight should be a number, not string"}`) {
		t.Errorf("JSON: %s", b)
	}

	// An archive that cannot be read is a report with one error.
	bomb := writeArchive(t, "bomb.zip", zipOf(t, []entry{{Name: "a.md", Body: strings.Repeat("\x00", pack.MaxFileSize+1)}}))
	r, err = Validate(context.Background(), bomb)
	if err != nil || r.OK() || len(r.Problems) != 1 || r.Problems[0].File != "bomb.zip" {
		t.Errorf("bomb: %v %+v", err, r)
	}
	if _, err := Validate(context.Background(), filepath.Join(dir, "nowhere")); err == nil {
		t.Error("validated a missing path")
	}
}

// writePack1000 writes a pack of 1,000 files: locations, NPCs, items,
// lore with a few paragraphs each, stats and plot beats.
func writePack1000(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	prose := strings.Repeat("The fog rolls in off the grey water and the lamps along the quay burn low. ", 6)
	write("pack.yml", "id: big\nname: Big Pack\nversion: 1.0.0\nlicense: CC0-1.0\n")
	n := 1
	for i := 0; n < 1000; i++ {
		switch i % 6 {
		case 0:
			write(fmt.Sprintf("locations/place%d.md", i), fmt.Sprintf("---\nentity_type: location\nname: Place %d\nexits:\n  - {to: place%d}\n---\n# Place %d\n\n%s\n\n## Around\n\n%s\n", i, i-i%6, i, prose, prose))
		case 1:
			write(fmt.Sprintf("npcs/npc%d.md", i), fmt.Sprintf("---\nname: Person %d\nlocation: place%d\ninventory: {thing%d: 1}\nsecret: Knows about place %d.\n---\n%s\n\n%s\n", i, i-1, i+1, i-1, prose, prose))
		case 2:
			write(fmt.Sprintf("items/thing%d.json", i), fmt.Sprintf(`{"id": "thing%d", "label": "Thing %d", "type": "misc", "behavioral_prompt": %q}`, i, i, prose))
		case 3:
			write(fmt.Sprintf("lore/lore%d.md", i), fmt.Sprintf("---\nentity_type: lore\nvisibility: player\n---\n%s\n\n%s\n\n%s\n", prose, prose, prose))
		case 4:
			write(fmt.Sprintf("stats/stat%d.json", i), fmt.Sprintf(`{"id": "stat%d", "range": {"min": 0, "max": 10}, "default": 3}`, i))
		case 5:
			req := ""
			if i > 5 {
				req = fmt.Sprintf("requires: [beat%d]\n", i-6)
			}
			write(fmt.Sprintf("plot_beat_beat%d.yml", i), fmt.Sprintf("entity_type: plot_beat\nentity_id: beat%d\ndescription: Something happens.\npriority: low\n%sconditions: {min_scene: 1}\n", i, req))
		}
		n++
	}
	return dir
}

// BenchmarkValidate1000 validates a 1,000-file pack: loading, checking
// and chunking (seed 001 §6.2.16 asks for under 2 s).
func BenchmarkValidate1000(b *testing.B) {
	dir := writePack1000(b)
	counter(b) // load the encoding outside the timing
	ctx := context.Background()
	var r Report
	for b.Loop() {
		var err error
		if r, err = Validate(ctx, dir); err != nil {
			b.Fatal(err)
		}
	}
	if !r.OK() || r.Summary.Files != 1000 {
		b.Fatalf("the generated pack is not clean:\n%.2000s", r.Text())
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(r.Summary.Chunks), "chunks")
	b.ReportMetric(float64(r.Summary.Tokens), "tokens")
}

// With a pack finder, a campaign that uses its packs' entities is bound
// to them as a game would be, and what stops that is in the report.
func TestValidateWithPacks(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for _, n := range []string{"campaign.yml", "character_ash.md", "location_burrow.md", "location_gate.md", "items/lamp.json"} {
		b, err := os.ReadFile(filepath.Join(warren, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	// finds the test packs by id, but those named in gone.
	finder := func(gone ...string) PackFinder {
		return func(ctx context.Context, _, id string) (*Pack, error) {
			for _, g := range gone {
				if id == g {
					return nil, fmt.Errorf("no pack %s here", id)
				}
			}
			return LoadPack(ctx, filepath.Join("testdata", "packs", id))
		}
	}
	tests := []struct {
		name   string
		change map[string]string
		find   PackFinder
		want   []string // the errors, as "file:line: message"
	}{
		{"bound", nil, finder(), nil},
		{"no finder checks what Validate does", nil, nil, nil},
		{"a pack not found", nil, finder("homebrew"), []string{"campaign.yml:6: no pack homebrew here"}},
		{"a version the campaign does not allow", map[string]string{"campaign.yml": strings.Replace(files["campaign.yml"], `"homebrew ^0.3"`, `"homebrew ^0.4"`, 1)}, finder(),
			[]string{`campaign.yml:6: requires homebrew ^0.4, but homebrew is version 0.3.0`}},
		{"an entity no pack has", map[string]string{"location_gate.md": "---\nname: The Gate\nexits:\n  - {to: burrow}\nitems: {dragon_egg: 1}\n---\nA gate.\n"}, finder(),
			[]string{`location_gate.md:5: item "dragon_egg" is not in the campaign nor in its packs (homebrew, bestiary)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := map[string]string{}
			for k, v := range files {
				fs[k] = v
			}
			for k, v := range tt.change {
				fs[k] = v
			}
			r, err := ValidateWithPacks(ctx, writeCampaign(t, fs), tt.find)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range r.Problems {
				if p.Severity == pack.Error {
					got = append(got, p.Error())
				}
			}
			if !reflect.DeepEqual(got, tt.want) || r.OK() != (len(tt.want) == 0) {
				t.Errorf("errors %q (ok %v); want %q", got, r.OK(), tt.want)
			}
		})
	}
}
