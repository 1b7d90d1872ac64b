package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hearth config show on the real binary: the file found in the user's
// configuration directory, an environment variable and a flag each set a
// value, every value names where it came from, secrets are masked, and an
// unknown key names its file and line.
func TestConfigShowLayers(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	file := filepath.Join(xdg, "hearth", "config.toml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	body := "[server]\nport = 9100\n\n[models.narrator]\nprovider = \"openai\"\nmodel = \"gpt-x\"\napi_key = \"sk-very-secret\"\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(home, "data")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + xdg}

	cmd := exec.Command(hearthBin, "config", "show", "--data", data)
	cmd.Env = append(env, "HEARTH__LIMITS__RATE_LIMIT_RPM=30", "HEARTH__SERVER__PORT=9200")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("config show: %v\n%s", err, out)
	}
	tests := []struct{ layer, line string }{
		{"default", `host = "127.0.0.1"  # default`},
		{"file", `model = "gpt-x"  # ` + file + ":6"},
		{"environment over file", `port = 9200  # HEARTH__SERVER__PORT`},
		{"environment", `rate_limit_rpm = 30  # HEARTH__LIMITS__RATE_LIMIT_RPM`},
		{"flag", `data_dir = "` + data + `"  # flag --data`},
		{"secret", `api_key = "****"  # ` + file + ":7"},
		{"which file", "# file: " + file},
	}
	for _, tt := range tests {
		if !strings.Contains(string(out), tt.line) {
			t.Errorf("%s: no line %q in:\n%s", tt.layer, tt.line, out)
		}
	}
	if strings.Contains(string(out), "sk-very-secret") {
		t.Errorf("the secret is shown:\n%s", out)
	}

	bad := filepath.Join(home, "bad.toml")
	if err := os.WriteFile(bad, []byte("[server]\nport = 9100\nprot = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(hearthBin, "config", "show", "--config", bad)
	cmd.Env = env
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("unknown key: %v, want exit status 2\n%s", err, out)
	}
	if !strings.Contains(string(out), bad+":3: server.prot: unknown key") || !strings.Contains(string(out), "port") {
		t.Errorf("unknown key: the message names no file and line, or no valid keys:\n%s", out)
	}
}

// --version and /health name the revision the binary was built from, as
// git knows it, when it was built from a git checkout.
func TestVersionNamesRevision(t *testing.T) {
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the build has no revision to show", err)
	}
	// go build stamps a revision only where .git is a directory: not in a
	// linked worktree, whose .git is a file.
	gitDir, _ := exec.Command("git", "rev-parse", "--git-dir").Output()
	common, _ := exec.Command("git", "rev-parse", "--git-common-dir").Output()
	if filepath.Clean(strings.TrimSpace(string(gitDir))) != filepath.Clean(strings.TrimSpace(string(common))) {
		t.Skip("a linked git worktree: go build stamps no revision there")
	}
	want := strings.TrimSpace(string(rev))[:12]
	out := run(t, nil, "--version")
	if !strings.Contains(out, want) || strings.Contains(out, " dev") {
		t.Errorf("--version %q does not name revision %s", out, want)
	}

	url := startServe(t, t.TempDir())
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var health struct {
		Version string `json:"version"`
		Build   struct {
			Revision string `json:"revision"`
		} `json:"build"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&health); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(health.Build.Revision, want) || !strings.Contains(health.Version, want) {
		t.Errorf("/health version %q, build revision %q; want %s", health.Version, health.Build.Revision, want)
	}
}
