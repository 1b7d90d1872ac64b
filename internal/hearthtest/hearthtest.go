package hearthtest

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// Build compiles the hearth command in pkgDir (a path such as
// "../cmd/hearth") into a temporary directory and returns the binary and
// a function that removes it. The revision is stamped as a user's
// "go build" stamps it, even where GOFLAGS turns stamping off.
func Build(pkgDir string) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "hearth-bin-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "hearth")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, pkgDir)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build hearth: %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// Server configures one "hearth serve".
type Server struct {
	Bin     string   // the binary from Build
	Data    string   // --data
	WorkDir string   // the process's working directory; "" for the test's
	Args    []string // more flags
	Env     []string // added to the test's environment, after HEARTH__LOG__LEVEL=warn
	// Log receives every line the server writes to stderr.
	Log func(line string)
}

var serving = regexp.MustCompile(`serving on (http://\S+)`)

// Start runs the server until the test ends and returns its base URL.
func (s Server) Start(t testing.TB) string {
	t.Helper()
	cmd, url := s.Launch(t)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("hearth serve did not shut down cleanly: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Error("hearth serve did not stop within 30s of SIGTERM")
		}
	})
	return url
}

// Launch starts the server and returns it with its base URL once it
// serves; stopping it (a signal, or a kill -9 to test a crash) is the
// caller's.
func (s Server) Launch(t testing.TB) (*exec.Cmd, string) {
	t.Helper()
	args := append([]string{"serve", "--data", s.Data, "--host", "127.0.0.1", "--port", "0"}, s.Args...)
	cmd := exec.Command(s.Bin, args...)
	cmd.Dir = s.WorkDir
	cmd.Env = append(append(os.Environ(), "HEARTH__LOG__LEVEL=warn"), s.Env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if s.Log != nil {
				s.Log(sc.Text())
			}
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, a
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("hearth serve did not start within 60s")
	}
	return nil, ""
}

// Bearer adds an API key to every request it carries.
type Bearer struct {
	Key  string
	Next http.RoundTripper // nil: http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Key)
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}
