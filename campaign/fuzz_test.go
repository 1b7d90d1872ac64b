package campaign

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// checkProblems fails on a problem that names no file or has no message.
func checkProblems(t *testing.T, probs []pack.Problem) {
	t.Helper()
	for _, p := range probs {
		if p.File == "" || p.Message == "" || p.Line < 0 || (p.Severity != pack.Error && p.Severity != pack.Warning) {
			t.Fatalf("bad problem %+v", p)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("stats/health.json", `{"id": "health", "range": {"min": 0, "max": 100}, "default": 100, "display": "bar"}`)
	f.Add("stat_mana.yml", "entity_type: stat\ndisplay_name: Mana\nrange: {min: 0, max: 50}\nstarting_value: 60\nvisible: false\n")
	f.Add("stats/hidden/x.json", `{"range": {"min": 5, "max": 1}}`)
	f.Fuzz(func(t *testing.T, name, in string) {
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".yml") {
			name = "stats/fuzz.json"
		}
		var errs pack.Problems
		fm, err := pack.ParseYAML([]byte(in))
		if err != nil {
			return
		}
		c := &Campaign{Stats: map[string]*world.StatDef{}, origin: map[string]string{}, src: map[string]source{}}
		id := c.loadStat(name, fm, &errs)
		checkProblems(t, errs)
		if d := c.Stats[id]; d != nil && errs.Count(pack.Error) == 0 {
			if d.Min > d.Max || d.Default < d.Min || d.Default > d.Max {
				t.Fatalf("accepted stat %+v", d)
			}
		}
	})
}

func FuzzParseBeat(f *testing.F) {
	f.Add("entity_id: vision\npriority: critical\nconditions:\n  scene_count_min: 2\n  requires_beat: [a]\n  stats: {x: \">= 3\"}\nconsequences:\n  - state_patch: {a: 1}\n")
	f.Add("conditions:\n  - suspicion > 20\n  - reputation.guild >= 5\n  - {location: \"not cave\"}\n")
	f.Add("priority: 9\nmin_scene: 5\nmax_scene: 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		b, probs := ParseBeat("plot_beat_fuzz.yml", []byte(in))
		checkProblems(t, probs)
		if len(pack.Problems(probs).Errors()) > 0 {
			return
		}
		if b.Priority < PriorityOptional || b.Priority > PriorityCritical || (b.MaxScene > 0 && b.MaxScene < b.MinScene) || b.ID == "" {
			t.Fatalf("accepted beat %+v", b)
		}
		for _, c := range b.Conditions {
			if c.Subject == "" && c.Kind != CondFlag && c.Kind != CondLocation && c.Kind != CondItem {
				t.Fatalf("condition without a subject: %+v", c)
			}
			if c.Kind == CondStat || c.Kind == CondReputation {
				if _, ok := c.Number(); !ok {
					t.Fatalf("accepted a non-number: %+v", c)
				}
			}
		}
	})
}

func FuzzReadArchive(f *testing.F) {
	members := []entry{{Name: "pack.yml", Body: "id: x\nversion: 1.0.0\nlicense: MIT\n"}, {Name: "lore_a.md", Body: "---\nentity_type: lore\n---\nA.\n"}}
	f.Add(zipOf(f, members))
	f.Add(tarGz(f, members))
	f.Add(zipOf(f, append(members, entry{Name: "../x", Body: "x"})))
	f.Add([]byte("PK\x05\x06"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		fsys, err := pack.ReadArchive(ctx, b)
		if err != nil {
			return
		}
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !fs.ValidPath(p) || strings.Contains(p, "..") && strings.Contains("/"+p+"/", "/../") {
				t.Fatalf("path %q escapes", p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk: %v", err)
		}
		files, err := walkFS(ctx, fsys, pack.ArchiveRoot(fsys))
		if err != nil {
			return
		}
		p, err := build(ctx, "fuzz", files, nil)
		if err != nil {
			t.Fatalf("build: %v", err)
		}
		checkProblems(t, p.Problems)
	})
}

// FuzzPackFile puts one fuzzed file, under a fuzzed name, in a pack and
// loads and chunks it: a malformed pack gives problems, never a panic.
func FuzzPackFile(f *testing.F) {
	f.Add("npcs/ann.md", "---\nlocation: hall\ninventory: {x: 1}\nsecret: s\n---\n# Ann\n\nShe waits.")
	f.Add("plot_beat_a.md", "---\nrequires: [a]\nconditions: [\"x >= 1\"]\n---\nBody.")
	f.Add("stats/hidden/x.json", `{"range": {"min": 0, "max": 3}}`)
	f.Add("art/a.png.meta.yml", "generated: true\nprovenance: {source_model: m, generated_at: 2026-01-01, seed_data: s}\n")
	f.Add("beats.yml", "- id: a\n  requires: [b]\n- id: b\n  requires: [a]\n")
	f.Add("creature_x.yml", "entity_type: creature\noverrides: other:x\nhit_points: 3\n")
	tok := counter(f)
	f.Fuzz(func(t *testing.T, name, body string) {
		clean := path.Clean(strings.TrimPrefix(name, "./"))
		if !fs.ValidPath(clean) || clean == "." || pack.IsManifest(clean) || clean == "art/a.png" || strings.HasPrefix("art/a.png", clean+"/") || len(body) > 1<<14 {
			return
		}
		m := fstest.MapFS{
			"pack.yml":  {Data: []byte("id: fz\nversion: 1.0.0\nlicense: MIT\n")},
			clean:       {Data: []byte(body)},
			"art/a.png": {Data: []byte("png")},
		}
		ctx := context.Background()
		files, err := walkFS(ctx, m, ".")
		if err != nil {
			t.Fatal(err)
		}
		p, err := build(ctx, "fuzz", files, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkProblems(t, p.Problems)
		for _, c := range p.Chunks(tok) {
			if c.Tokens > 512 || c.Pack != "fz" || !strings.HasPrefix(c.ID, "fz/") {
				t.Fatalf("chunk %+v", c)
			}
		}
		p.Index.Resolve("player.inventory."+name, body)
	})
}
