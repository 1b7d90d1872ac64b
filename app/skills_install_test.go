package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/skill"
)

func TestInstallSkills(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	// A skill the user already has, under a bundled name: theirs stays.
	mine := filepath.Join(dir, "dice-roller")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "SKILL.md"), []byte("---\nname: dice-roller\ndescription: my own dice\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := app.InstallSkills(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"example-echo", "memory", "npc-perception", "player-choices", "portrait", "reputation", "storyteller"}
	if !slices.Equal(got, want) {
		t.Errorf("installed %v, want %v", got, want)
	}
	set, warns, err := skill.Discover(dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("discover: %v %v", err, warns)
	}
	if s := set.Get("dice-roller"); s == nil || s.Description != "my own dice" {
		t.Errorf("the user's dice-roller was replaced: %+v", s)
	}
	for _, name := range want {
		s := set.Get(name)
		if s == nil || len(s.Scripts) == 0 {
			t.Fatalf("%s: not discovered with scripts: %+v", name, s)
		}
		for _, sc := range s.Scripts {
			st, err := os.Stat(sc.Path)
			if err != nil || st.Mode().Perm()&0o111 == 0 {
				t.Errorf("%s is not executable: %v %v", sc.Path, st.Mode(), err)
			}
		}
	}
	// Again: nothing to do.
	if got, err := app.InstallSkills(dir); err != nil || len(got) != 0 {
		t.Errorf("second install: %v %v", got, err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary directories left: %v", leftovers)
	}
}
