package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Timeouts of these tests. long bounds a script expected to end by itself
// (or to be stopped by Run for what it printed): it is a hang guard only,
// so a loaded machine never turns a pass into a timeout. short is used
// only where the timeout is the expected outcome and the script outlives
// it by far (it sleeps 1000 s).
const (
	long  = time.Minute
	short = 300 * time.Millisecond
)

func script(name string) string { return filepath.Join("testdata", "scripts", name) }

// assertGone fails unless the invocation's process group has no process
// left.
func assertGone(t *testing.T, res Result) {
	t.Helper()
	if res.PGID <= 0 {
		t.Fatalf("no process group recorded (PGID %d)", res.PGID)
	}
	if err := syscall.Kill(-res.PGID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still has processes after Run returned (kill 0: %v)", res.PGID, err)
	}
}

func types(evs []protocol.Event) []protocol.Type {
	var ts []protocol.Type
	for _, e := range evs {
		ts = append(ts, e.Type())
	}
	return ts
}

func TestRunMinimalTool(t *testing.T) {
	t.Parallel()
	var streamed []protocol.Type
	res, err := Run(t.Context(), Invocation{
		Skill: "torch", Script: script("minimal"), Timeout: long,
		OnEvent: func(e protocol.Event) { streamed = append(streamed, e.Type()) },
	})
	if err != nil {
		t.Fatalf("Run: %v (stderr %q)", err, res.Stderr)
	}
	want := []protocol.Type{protocol.TypeLog, protocol.TypeStatePatch, protocol.TypeDone}
	if got := types(res.Events); !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if !reflect.DeepEqual(streamed, want) {
		t.Errorf("OnEvent saw %v, want %v", streamed, want)
	}
	if res.Done == nil || !res.Done.OK || res.Done.Summary != "Torch lit." || res.ExitCode != 0 {
		t.Errorf("done %+v exit %d; want ok with summary, exit 0", res.Done, res.ExitCode)
	}
	patch := res.Events[1].(*protocol.StatePatch).Patch
	if !reflect.DeepEqual(patch, map[string]any{"flags": map[string]any{"torchLit": true}}) {
		t.Errorf("patch %v", patch)
	}
	assertGone(t, res)
}

func TestRunPassesInputOnStdin(t *testing.T) {
	t.Parallel()
	in := []byte(`{"requestId":"r1","tool":"stdin","input":{"notation":"2d6"}}` + "\n")
	res, err := Run(t.Context(), Invocation{Script: script("stdin"), Input: in, Timeout: long})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := res.Events[0].(*protocol.StatePatch).Patch["received"]
	want := map[string]any{"requestId": "r1", "tool": "stdin", "input": map[string]any{"notation": "2d6"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("script received %v, want %v", got, want)
	}
	assertGone(t, res)
}

// TestRunFailures is the must-show list: each script ends in its
// documented state and leaves no process behind. Only "hang" may end by
// its timeout; every other script must be stopped by what it does, so its
// timeout is the long hang guard.
func TestRunFailures(t *testing.T) {
	tests := []struct {
		script   string
		category Category
		code     string
		msg      string
		events   int // events accepted before the end; -1: see below
	}{
		{"crash", ProcessError, CodeExitStatus, "exited with status 3; stderr: panic: the goblin ate the dice", 1},
		{"segv", ProcessError, CodeSignaled, "killed by signal segmentation fault", 1},
		{"hang", Timeout, CodeTimeout, "timed out after 300ms", -1},
		{"garbage", InvalidJSON, protocol.CodeInvalidJSON, "line 2: not valid JSON", 1},
		{"unknown", InvalidJSON, protocol.CodeUnknownType, `line 1: unknown event type "teleport"`, 0},
		{"flood", ProcessError, CodeOutputLimit, "output limit", -1},
		{"nodone", ProcessError, CodeMissingDone, "exited 0 without a done event", 1},
		{"failed", ToolFailure, "NO_TARGET", "reported failure NO_TARGET: there is nobody to persuade", 2},
		{"badexit", ProcessError, CodeExitStatus, "exited with status 1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			timeout := long
			if tt.category == Timeout {
				timeout = short
			}
			var streamed int
			res, err := Run(t.Context(), Invocation{
				Skill: "test", Script: script(tt.script), Timeout: timeout,
				Limits:  Limits{MaxOutput: 64 << 10},
				OnEvent: func(protocol.Event) { streamed++ },
			})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Run error = %v, want *Error", err)
			}
			if e.Category != tt.category || e.Code != tt.code || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %s/%s %q, want %s/%s containing %q", e.Category, e.Code, e.Msg, tt.category, tt.code, tt.msg)
			}
			if tt.events >= 0 && len(res.Events) != tt.events {
				t.Errorf("%d events accepted, want %d: %v", len(res.Events), tt.events, types(res.Events))
			}
			// Whether sh printed before a short timeout is up to the
			// scheduler; what it did print must be kept.
			if len(res.Events) != streamed {
				t.Errorf("%d events kept, %d streamed", len(res.Events), streamed)
			}
			if tt.script == "flood" && int64(len(res.Events))*100 > 64<<10 {
				t.Errorf("flood kept %d events, more than the 64 KiB limit allows", len(res.Events))
			}
			if CategoryOf(err) != tt.category || res.Category != tt.category {
				t.Errorf("CategoryOf = %s, Result.Category = %s", CategoryOf(err), res.Category)
			}
			assertGone(t, res)
		})
	}
}

func TestRunForkedChildDoesNotOutliveIt(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Invocation{Script: script("fork"), Timeout: long})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Done == nil || res.Done.Summary != "left a child behind" {
		t.Errorf("done = %+v", res.Done)
	}
	// The child held stdout open: Run must not have waited for it to end
	// (it sleeps 1000 s), and it must be gone.
	assertGone(t, res)
}

func TestRunIgnoresEventsAfterDone(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Invocation{Script: script("afterdone"), Timeout: long})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Events) != 1 || res.Ignored != 2 {
		t.Errorf("events %v, ignored %d; want only done and 2 ignored lines", types(res.Events), res.Ignored)
	}
	assertGone(t, res)
}

func TestRunKeepsTheEndOfStderr(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Invocation{Script: script("stderrflood"), Timeout: long, Limits: Limits{MaxStderr: 1024}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Stderr) > 1024+len("…") || !strings.HasSuffix(res.Stderr, "last words\n") || !strings.HasPrefix(res.Stderr, "…") {
		t.Errorf("stderr tail is %d bytes: %q…", len(res.Stderr), res.Stderr[:min(80, len(res.Stderr))])
	}
}

func TestRunScriptThatNeverReadsLargeInput(t *testing.T) {
	t.Parallel()
	in := []byte(`{"input":{"blob":"` + strings.Repeat("x", 1<<20) + `"}}`)
	res, err := Run(t.Context(), Invocation{Script: script("noread"), Input: in, Timeout: long})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	assertGone(t, res)
}

func TestRunCanceledByCaller(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Cancel once the script has started and spoken, not after a delay
	// that may end before it starts.
	res, err := Run(ctx, Invocation{Script: script("hang"), Timeout: long,
		OnEvent: func(protocol.Event) { cancel() }})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCanceled {
		t.Fatalf("Run error = %v, want code %s", err, CodeCanceled)
	}
	assertGone(t, res)
}

func TestRunPlanDeadlineIsATimeout(t *testing.T) {
	t.Parallel()
	// The plan's deadline passes once the script has started and spoken.
	ctx, expire := withDeadlineSignal(t.Context())
	defer expire()
	res, err := Run(ctx, Invocation{Script: script("hang"), Timeout: long,
		OnEvent: func(protocol.Event) { expire() }})
	var e *Error
	if !errors.As(err, &e) || e.Category != Timeout || !strings.Contains(e.Msg, "plan ran out of time") {
		t.Fatalf("Run error = %v, want category timeout", err)
	}
	assertGone(t, res)
}

func TestRunStartFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, path := range []string{"", filepath.Join(dir, "missing"), notExec} {
		_, err := Run(t.Context(), Invocation{Script: path})
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeStartFailed || e.Category != ProcessError {
			t.Errorf("Run(%q) error = %v, want %s", path, err, CodeStartFailed)
		}
	}
}

func TestRunAssets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o600)
	os.MkdirAll(data, 0o755)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(data, "link.txt")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, path string
		ok              bool
	}{
		{"absolute inside", data, filepath.Join(data, "hello.txt"), true},
		{"relative to Dir", data, "hello.txt", true},
		{"dot-dot escape", data, "../../" + filepath.Base(outside) + "/secret.txt", false},
		{"absolute outside", data, filepath.Join(outside, "secret.txt"), false},
		{"symlink escape", data, filepath.Join(data, "link.txt"), false},
		{"missing file", data, filepath.Join(data, "nope.txt"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append(BaseEnv(), "ASSET_DIR="+data, "ASSET_PATH="+tt.path)
			res, err := Run(t.Context(), Invocation{
				Script: script("asset"), Env: env, Dir: tt.dir, Timeout: long,
				AssetRoots: []string{data},
			})
			if tt.ok {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				a := res.Events[0].(*protocol.Asset)
				if a.Path != filepath.Join(data, "hello.txt") {
					t.Errorf("asset path = %s, want the absolute path", a.Path)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeAssetPath {
				t.Fatalf("Run error = %v, want %s", err, CodeAssetPath)
			}
			if len(res.Events) != 0 {
				t.Errorf("the refused asset was kept: %v", types(res.Events))
			}
		})
	}
}

func TestBaseEnvDropsSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("LC_ALL", "C")
	env := strings.Join(BaseEnv(), "\n")
	if strings.Contains(env, "sk-secret") {
		t.Error("BaseEnv passed OPENAI_API_KEY")
	}
	if !strings.Contains(env, "LC_ALL=C") || !strings.Contains(env, "PATH=") {
		t.Errorf("BaseEnv lacks PATH or LC_ALL: %s", env)
	}
}

func TestTail(t *testing.T) {
	tl := &tail{max: 5}
	for _, s := range []string{"ab", "cd", "efg", "0123456789", "x"} {
		tl.Write([]byte(s))
	}
	if got := tl.String(); got != "…6789x" {
		t.Errorf("tail = %q, want …6789x", got)
	}
	tl = &tail{max: 5}
	tl.Write([]byte("abc"))
	if got := tl.String(); got != "abc" {
		t.Errorf("tail = %q, want abc", got)
	}
}

// deadlineSignal is a context whose deadline passes when the test says so:
// it ends with context.DeadlineExceeded, as a plan's deadline would.
type deadlineSignal struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func withDeadlineSignal(parent context.Context) (context.Context, func()) {
	c := &deadlineSignal{Context: parent, done: make(chan struct{})}
	return c, func() { c.once.Do(func() { close(c.done) }) }
}

func (c *deadlineSignal) Done() <-chan struct{} { return c.done }

func (c *deadlineSignal) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
