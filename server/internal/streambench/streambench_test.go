package streambench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/deadport"
)

func TestMain(m *testing.M) {
	MaybeChild()
	os.Exit(m.Run())
}

func startChild(t *testing.T) *Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The child's clients, through the proxy, get every token with its lag,
// and the parent sees the run's marks in order.
func TestRunThroughProxy(t *testing.T) {
	c := startChild(t)
	proxy := httptest.NewServer(Proxy(c.ModelURL, &http.Client{}))
	defer proxy.Close()
	for _, tc := range []struct {
		burst bool
		marks []string
	}{
		{false, []string{"steady", "end"}},
		{true, []string{"start", "end"}},
	} {
		var marks []string
		res, err := c.Run(Plan{Burst: tc.burst, Chats: 3, Tokens: 25, Every: 50 * time.Millisecond, Spacing: time.Millisecond, URL: proxy.URL, Body: "{}"},
			func(m string) { marks = append(marks, m) })
		if err != nil {
			t.Fatalf("burst %v: %v", tc.burst, err)
		}
		if !slices.Equal(marks, tc.marks) {
			t.Errorf("burst %v: marks %v, want %v", tc.burst, marks, tc.marks)
		}
		if !tc.burst && res.Live != 3 {
			t.Errorf("%d chats streaming at the steady mark, want 3", res.Live)
		}
		if len(res.First) != 3 || len(res.Lags) != 75 {
			t.Errorf("burst %v: %d first tokens and %d lags, want 3 and 75", tc.burst, len(res.First), len(res.Lags))
		}
		for _, d := range append(res.First, res.Lags...) {
			if d <= 0 || d > time.Minute {
				t.Errorf("burst %v: a latency of %v", tc.burst, d)
				break
			}
		}
		if res.WindowTokens <= 0 {
			t.Errorf("burst %v: %d tokens in the window", tc.burst, res.WindowTokens)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("the child ended with %v", err)
	}
}

// A run that fails in the child comes back with the child's stderr, and
// the child is reaped.
func TestChildErrorCarriesStderr(t *testing.T) {
	c := startChild(t)
	// A port held but never listening: no other test can take it.
	dead := "http://" + deadport.Addr(t)
	_, err := c.Run(Plan{Chats: 1, Tokens: 1, Every: time.Millisecond, URL: dead, Body: "{}"}, nil)
	if err == nil {
		t.Fatal("a run against a closed port succeeded")
	}
	// "run failed" is written only to the child's stderr.
	if !strings.Contains(err.Error(), "streambench child: run failed") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("the error does not carry the child's stderr: %v", err)
	}
	checkReaped(t, c.cmd)
}

// A child that dies before it serves is reaped, its stderr in the error.
func TestCrashedChildIsReaped(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvRole+"=child", EnvRole+"_CRASH=1")
	_, err = start(cmd)
	if err == nil || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("got %v, want the child's stderr", err)
	}
	checkReaped(t, cmd)
}

// Cancelling the parent's context kills a child in the middle of a run.
func TestCancelKillsChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Start(ctx, exe)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	proxy := httptest.NewServer(Proxy(c.ModelURL, &http.Client{}))
	defer proxy.Close()
	// A run of a minute; cancelled at its first mark.
	_, err = c.Run(Plan{Chats: 2, Tokens: 1200, Every: 50 * time.Millisecond, URL: proxy.URL, Body: "{}"}, func(string) { cancel() })
	if err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	checkReaped(t, c.cmd)
}

// checkReaped fails unless cmd's process has been waited for and is gone.
func checkReaped(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if cmd.ProcessState == nil {
		t.Fatalf("child %d was not reaped", cmd.Process.Pid)
	}
	if alive(cmd.Process.Pid) {
		t.Errorf("child %d is still alive", cmd.Process.Pid)
	}
}

// The child writes its CPU profile when asked, also when its benchmark
// ends by cancelling its context, and refuses a bad core count with an
// error naming the variable.
func TestChildEnvironment(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "child.prof")
	t.Setenv(EnvCPUProfile, prof)
	t.Setenv(EnvProcs, "1")
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Start(ctx, exe)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(Proxy(c.ModelURL, &http.Client{}))
	defer proxy.Close()
	if _, err := c.Run(Plan{Chats: 2, Tokens: 3, Every: time.Millisecond, Spacing: time.Millisecond, URL: proxy.URL, Body: "{}"}, nil); err != nil {
		t.Fatal(err)
	}
	cancel() // as testing does before a benchmark's cleanups
	c.Close()
	checkReaped(t, c.cmd)
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof's profiles are gzipped
		t.Errorf("the child's profile is %d bytes, not a gzipped pprof profile", len(b))
	}

	t.Setenv(EnvProcs, "none")
	_, err = Start(context.Background(), exe)
	if err == nil || !strings.Contains(err.Error(), EnvProcs+`="none"`) {
		t.Errorf("a bad core count: %v", err)
	}
}
