package hearthtest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
	Env     []string // added to the test's environment, after HEARTH__LOG__LEVEL=warn and GOTRACEBACK=all
	// Log receives every line the server writes to stderr.
	Log func(line string)
}

var serving = regexp.MustCompile(`serving on (http://\S+)`)

// Start runs the server until the test ends and returns its base URL.
func (s Server) Start(t testing.TB) string {
	t.Helper()
	url, _ := s.StartDump(t)
	return url
}

// StartDump is Start, and also returns dump, which has the server print
// its goroutines and exit (SIGQUIT) at once, its output going to Log. A
// failed test's server is dumped when the test's cleanups reach Start's,
// after those registered later (a browser closing, say): a test calls
// dump itself before then to see the server while its clients are still
// connected. Only the first call does anything.
func (s Server) StartDump(t testing.TB) (url string, dump func()) {
	t.Helper()
	cmd, url := s.Launch(t)
	var once sync.Once
	dump = func() {
		once.Do(func() {
			// SIGQUIT makes a Go program print all its goroutines and
			// exit; Launch's reader passes them to Log.
			cmd.Process.Signal(syscall.SIGQUIT)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	t.Cleanup(func() {
		if t.Failed() {
			// A test that failed waiting for the server gets the server's
			// goroutines in its log.
			dump()
			return
		}
		if cmd.ProcessState != nil {
			t.Error("hearth serve was dumped (SIGQUIT) although the test has not failed")
			return
		}
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
	return url, dump
}

// startWait is how long a server may take to say it serves; startup
// is quick, but a loaded 2-core machine can hold a process back a while.
const startWait = 3 * time.Minute

// Launch starts the server and returns it with its base URL once it
// serves; stopping it (a signal, or a kill -9 to test a crash) is the
// caller's. A server the test left running is killed when the test ends,
// and its log is read to the end before then, so Log is never called
// after the test.
func (s Server) Launch(t testing.TB) (*exec.Cmd, string) {
	t.Helper()
	args := append([]string{"serve", "--data", s.Data, "--host", "127.0.0.1", "--port", "0"}, s.Args...)
	cmd := exec.Command(s.Bin, args...)
	cmd.Dir = s.WorkDir
	cmd.Env = append(append(os.Environ(), "HEARTH__LOG__LEVEL=warn", "GOTRACEBACK=all"), s.Env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	eof := make(chan struct{}) // the server closed its stderr: it has exited
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if s.Log != nil {
				s.Log(sc.Text())
			}
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		// Keep draining after a read error, so a server writing its log
		// never blocks on a full pipe.
		io.Copy(io.Discard, stderr)
	}()
	// Registered before the caller's cleanups, so it runs after them
	// (Start's stops the server): by then the server has normally exited.
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		select {
		case <-eof:
		case <-time.After(30 * time.Second):
			t.Error("hearth serve's stderr stayed open 30s after the test")
		}
	})
	select {
	case a := <-addr:
		return cmd, a
	case <-eof:
		err := cmd.Wait()
		t.Fatalf("hearth serve %s exited before it served (%v); its log is above", strings.Join(args, " "), err)
	case <-time.After(startWait):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("hearth serve did not start within %s", startWait)
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
