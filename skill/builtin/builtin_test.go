package builtin_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill/builtin"
)

// TestEveryGoSkillIsBuiltIn keeps skills/ and this package in step: a
// shipped skill with a Go program has it here, and its scripts exec it
// through hearth.
func TestEveryGoSkillIsBuiltIn(t *testing.T) {
	dirs, err := os.ReadDir("../../skills")
	if err != nil {
		t.Fatal(err)
	}
	var goSkills []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join("../../skills", d.Name(), "src")); err == nil {
			goSkills = append(goSkills, d.Name())
		}
	}
	if strings.Join(goSkills, ",") != strings.Join(builtin.Names(), ",") {
		t.Errorf("Go skills %v, built in %v", goSkills, builtin.Names())
	}
	for _, name := range goSkills {
		if _, ok := builtin.Lookup(name); !ok {
			t.Errorf("%s has no built-in program", name)
		}
		scripts, _ := filepath.Glob(filepath.Join("../../skills", name, "scripts", "*"))
		for _, s := range scripts {
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `exec "$HEARTH_EXE" skill builtin `+name+` "$@"`) {
				t.Errorf("%s does not exec the built-in %s", s, name)
			}
		}
	}
	if _, ok := builtin.Lookup("example-echo"); ok {
		t.Error("example-echo is a shell skill, not a built-in")
	}
}

func TestProgramSpeaksTheProtocol(t *testing.T) {
	run, _ := builtin.Lookup("dice-roller")
	var out, errb bytes.Buffer
	code := run(strings.NewReader(`{"requestId":"r","tool":"roll","input":{"notation":"2d6","seed":3}}`), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), `"type":"done","requestId":"r","ok":true`) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}
