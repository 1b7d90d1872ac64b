package skill

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// TestSkillHotReload edits a skill's script and SKILL.md between two
// calls through one Live: the second call runs the edited script and sees
// the edited manifest, with no restart.
func TestSkillHotReload(t *testing.T) {
	dir := t.TempDir()
	script := func(word string) string {
		return "#!/bin/sh\nread -r _\necho '{\"version\":\"0\",\"type\":\"done\",\"ok\":true,\"summary\":\"" + word + "\"}'\n"
	}
	writeTree(t, dir, map[string]string{
		"bell/SKILL.md":      "---\nname: bell\ndescription: Rings once.\n---\n",
		"bell/scripts/ring*": script("ding"),
	})
	live, warns, err := NewLive(dir, nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	call := func() (string, *Skill) {
		t.Helper()
		set := live.Current()
		sk, _, err := set.Resolve("skills/bell/scripts/ring")
		if err != nil {
			t.Fatal(err)
		}
		inv, err := sk.Prepare("ring", Call{RequestID: "r"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(t.Context(), inv)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := res.Events[len(res.Events)-1].(*protocol.Done)
		if d == nil {
			t.Fatalf("no done: %v", res.Events)
		}
		return d.Summary, sk
	}
	if got, sk := call(); got != "ding" || sk.Description != "Rings once." {
		t.Fatalf("first call: %q, %q", got, sk.Description)
	}
	first := live.Current()
	writeTree(t, dir, map[string]string{
		"bell/SKILL.md":      "---\nname: bell\ndescription: Rings twice, louder.\n---\n",
		"bell/scripts/ring*": script("ding-dong"),
	})
	got, sk := call()
	if got != "ding-dong" || sk.Description != "Rings twice, louder." {
		t.Errorf("after the edit: %q, %q", got, sk.Description)
	}
	if live.Current() == first {
		t.Error("the set was not rediscovered")
	}
	// A script added while running is offered to the planner.
	writeTree(t, dir, map[string]string{"bell/scripts/chime*": script("chime")})
	if s := live.Summaries(nil); len(s) != 1 || !strings.Contains(strings.Join(s[0].Scripts, ","), "chime") {
		t.Errorf("summaries after adding a script: %+v", s)
	}
	// Unchanged files: the same set, no rediscovery.
	if a, b := live.Current(), live.Current(); a != b {
		t.Error("rediscovered without a change")
	}
}
