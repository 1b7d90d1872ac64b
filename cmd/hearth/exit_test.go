package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/store"
)

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"ok", nil, 0},
		{"plain error", errors.New("disk full"), 1},
		{"internal", &hearth.Error{Code: hearth.Internal, Message: "x"}, 1},
		{"usage", usageError{errors.New("unknown flag --frob")}, 2},
		{"invalid", hearth.Errorf(hearth.Invalid, "branch name %q", "a b"), 2},
		{"not found, wrapped", fmt.Errorf("open game x: %w", store.ErrNotFound), 3},
		{"unauthorized", hearth.Errorf(hearth.Unauthorized, "bad key"), 4},
		{"forbidden", hearth.Errorf(hearth.Forbidden, "players may not"), 4},
		{"conflict", fmt.Errorf("add: %w", store.ErrConflict), 5},
		{"unavailable", hearth.Errorf(hearth.Unavailable, "ollama is not answering"), 6},
		{"localized wrapper keeps the code", userMessage{"Spiel nicht gefunden", store.ErrNotFound}, 3},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// The real binary exits with the code's status.
func TestExitStatusOfBinary(t *testing.T) {
	cmd := exec.Command(hearthBin, "export", "no-such-game")
	cmd.Env = append(os.Environ(), "HEARTH_DATA="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("hearth export no-such-game: %v, want exit status 3\n%s", err, out)
	}
	help := run(t, nil, "--help")
	if !strings.Contains(help, "Exit status:") || !strings.Contains(help, "3  not found") {
		t.Errorf("--help does not document the exit statuses:\n%s", help)
	}
}

// --version and "hearth version" show what go build stamped: the VCS
// revision when the binary was built inside a git checkout.
func TestVersionOfBinary(t *testing.T) {
	info, err := exec.Command("go", "version", "-m", hearthBin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rev string
	if m := regexp.MustCompile(`\tbuild\tvcs\.revision=([0-9a-f]{40})\n`).FindSubmatch(info); m != nil {
		rev = string(m[1])
	}
	if why := stampsVCS(t); why == "" && rev == "" {
		t.Fatalf("built inside a git checkout, but go build stamped no revision:\n%s", info)
	} else if why != "" {
		t.Logf("go build stamps no revision here (%s); checking the fallback", why)
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out := run(t, nil, args...)
		first := strings.SplitN(out, "\n", 2)[0]
		switch {
		case rev != "" && !regexp.MustCompile(`\(`+rev[:12]+`(\+dirty)?, \d{4}-\d\d-\d\dT`).MatchString(first):
			t.Errorf("hearth %s = %q, want revision %s and its time", args[0], first, rev[:12])
		case rev == "" && first != "hearth version (devel)" && first != "hearth (devel)":
			t.Errorf("hearth %s = %q, want the module version (devel)", args[0], first)
		case strings.Contains(first, " dev"):
			t.Errorf("hearth %s = %q says dev", args[0], first)
		}
	}
}

// stampsVCS says why go build would not stamp VCS information for this
// package, or "" when it would: inside a git checkout whose .git is a
// directory (go does not stamp in git worktrees) with buildvcs not off.
func stampsVCS(t *testing.T) string {
	flags, err := exec.Command("go", "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(flags), "-buildvcs=false") {
		return "GOFLAGS has -buildvcs=false"
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "no git"
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			if !fi.IsDir() {
				return "a git worktree"
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "not in a git checkout"
		}
		dir = parent
	}
}

// Mistakes in a command's arguments are usage errors, as flag mistakes
// are: exit status 2, what was wrong and where the help is. (Cobra
// answered an unknown subcommand below the root with the group's help
// and status 0, and wrong arguments with status 1.)
func TestArgumentMistakesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"bogus"}, []string{`unknown command "bogus" for "hearth"`, "Run 'hearth --help' for usage."}},
		{[]string{"plya"}, []string{`unknown command "plya" for "hearth"; did you mean play?`}},
		{[]string{"library", "read", "7"}, []string{`unknown command "read" for "hearth library"`, "Run 'hearth library --help' for usage."}},
		{[]string{"user", "ad", "ann"}, []string{`did you mean add?`}},
		{[]string{"search"}, []string{"accepts 1 arg(s), received 0", "Run 'hearth search --help' for usage."}},
		{[]string{"version", "extra"}, []string{`unknown command "extra" for "hearth version"`}},
	} {
		cmd := exec.Command(hearthBin, tc.args...)
		cmd.Env = append(os.Environ(), "HEARTH_DATA="+t.TempDir())
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("hearth %s: %v, want exit status 2\n%s", strings.Join(tc.args, " "), err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("hearth %s: %q is not in\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
	}
	// A group alone still shows its help.
	if out := run(t, nil, "library"); !strings.Contains(out, "Available Commands:") {
		t.Errorf("hearth library:\n%s", out)
	}
}
