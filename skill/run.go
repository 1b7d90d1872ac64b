package skill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// DefaultTimeout is the per-invocation timeout of seed 001 §2.5.
const DefaultTimeout = 30 * time.Second

// Limits bound what one invocation may produce. Zero fields take the
// defaults.
type Limits struct {
	MaxLine   int   // bytes of one stdout line; default protocol.DefaultMaxLine (1 MiB)
	MaxOutput int64 // bytes of stdout in all; default 16 MiB
	MaxEvents int   // events; default 10,000
	MaxStderr int   // bytes of stderr kept, the last ones; default 64 KiB
}

func (l Limits) withDefaults() Limits {
	if l.MaxLine <= 0 {
		l.MaxLine = protocol.DefaultMaxLine
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = 16 << 20
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = 10000
	}
	if l.MaxStderr <= 0 {
		l.MaxStderr = 64 << 10
	}
	return l
}

// Invocation is one run of one script.
type Invocation struct {
	Skill  string   // the skill's name, for messages
	Script string   // path of the executable; a relative path is taken from Hearth's working directory, never looked up in PATH
	Args   []string // arguments after the script's name
	Input  []byte   // written to stdin, which is then closed (a protocol.Input document)
	Env    []string // the whole environment, "KEY=value"; nil means BaseEnv()
	Dir    string   // working directory; relative asset paths resolve from it

	// Timeout bounds the invocation; 0 means DefaultTimeout.
	Timeout time.Duration
	// AssetRoots are the directories asset paths must resolve within (the
	// skill's data directory, the campaign directory). With none, every
	// asset event fails the invocation.
	AssetRoots []string
	// OnEvent, if set, is called with each event as it is read, from one
	// goroutine, before Run returns.
	OnEvent func(protocol.Event)
	Limits  Limits
}

// Result is what an invocation produced, whether or not it succeeded.
type Result struct {
	// Events are the events accepted, in order, ending with Done if there
	// was one. Asset paths are rewritten to the absolute paths checked.
	Events   []protocol.Event
	Done     *protocol.Done
	ExitCode int           // -1 if the process did not exit by itself
	Stderr   string        // the end of stderr
	Duration time.Duration // from start to the group being gone
	PGID     int           // the process group the script ran in
	Ignored  int           // lines written after done, not read
	Category Category      // why it failed, as the returned *Error says; "" on success
}

// pipeGrace is how long Run waits for stdout and stderr to reach end of
// file once the process group is dead; only a process that left the group
// can hold them open longer.
const pipeGrace = 500 * time.Millisecond

// reapLimit bounds the wait for a killed group to disappear. Unless Hearth
// is a subreaper, orphaned members are init's to reap, which may take
// longer; they are dead already, so Run does not wait for that.
const reapLimit = 500 * time.Millisecond

// Run runs one script and returns what it produced. The error is nil only
// when the script emitted done with ok true and exited 0; otherwise it is
// an *Error whose Category says why, and the Result holds everything
// produced up to then.
//
// The script runs in a new process group. Run returns only after that
// group has been killed and (when Hearth is a subreaper, see
// BecomeSubreaper) reaped, so no process of the invocation outlives it. A
// process that moves itself to another group or session escapes this.
func Run(ctx context.Context, inv Invocation) (Result, error) {
	res := Result{ExitCode: -1}
	fail := func(cat Category, code, msg string, err error) *Error {
		return &Error{Skill: inv.Skill, Script: filepath.Base(inv.Script), Category: cat, Code: code, Msg: msg, Err: err}
	}
	if inv.Script == "" {
		return res, fail(ProcessError, CodeStartFailed, "no script to run", nil)
	}
	script, err := filepath.Abs(inv.Script)
	if err != nil {
		return res, fail(ProcessError, CodeStartFailed, fmt.Sprintf("script path %q: %v", inv.Script, err), err)
	}
	if inv.Timeout <= 0 {
		inv.Timeout = DefaultTimeout
	}
	lim := inv.Limits.withDefaults()
	if inv.Env == nil {
		inv.Env = BaseEnv()
	}
	if err := ctx.Err(); err != nil {
		return res, fail(ProcessError, CodeCanceled, "not started: "+err.Error(), err)
	}

	var files pipes
	defer files.closeAll()
	stdinR, stdinW, err := files.pipe()
	if err != nil {
		return res, fail(ProcessError, CodeStartFailed, "creating pipes: "+err.Error(), err)
	}
	stdoutR, stdoutW, err := files.pipe()
	if err != nil {
		return res, fail(ProcessError, CodeStartFailed, "creating pipes: "+err.Error(), err)
	}
	stderrR, stderrW, err := files.pipe()
	if err != nil {
		return res, fail(ProcessError, CodeStartFailed, "creating pipes: "+err.Error(), err)
	}

	// The child gets the pipes as plain files, so exec starts no copying
	// goroutines and Wait returns as soon as the script itself exits, even
	// if a grandchild still holds stdout.
	cmd := &exec.Cmd{
		Path:   script,
		Args:   append([]string{script}, inv.Args...),
		Env:    inv.Env,
		Dir:    inv.Dir,
		Stdin:  stdinR,
		Stdout: stdoutW,
		Stderr: stderrW,
	}
	setGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fail(ProcessError, CodeStartFailed, fmt.Sprintf("cannot start %s: %v", inv.Script, err), err)
	}
	pgid := cmd.Process.Pid
	res.PGID = pgid
	// Close our copies of the child's ends, so end of file means every
	// process holding them is gone.
	files.close(stdinR, stdoutW, stderrW)

	go func() {
		// A script that never reads stdin leaves this blocked until the
		// group dies and the write fails; that is fine.
		stdinW.Write(inv.Input)
		files.close(stdinW)
	}()

	errs := &tail{max: lim.MaxStderr}
	stderrDone := make(chan struct{})
	go func() {
		io.Copy(errs, stderrR)
		close(stderrDone)
	}()

	rd := &reader{inv: &inv, lim: lim, res: &res, stop: make(chan struct{}), done: make(chan struct{})}
	rd.assets = map[string]bool{}
	go rd.read(stdoutR)

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	tctx, cancel := context.WithTimeout(ctx, inv.Timeout)
	defer cancel()
	var (
		cause   *Error
		waitErr error
		ctxDone = tctx.Done()
		stop    = rd.stop
	)
	for running := true; running; {
		select {
		case <-ctxDone:
			ctxDone = nil
			if cause == nil {
				cause = ctxCause(ctx, tctx, inv.Timeout, fail)
			}
			killGroup(pgid)
		case <-stop:
			stop = nil
			if cause == nil {
				cause = rd.failure()
			}
			killGroup(pgid)
		case waitErr = <-exited:
			running = false
		}
	}
	// The script has exited: whatever it left running goes with it.
	killGroup(pgid)
	grace := time.NewTimer(pipeGrace)
	defer grace.Stop()
	for _, ch := range []chan struct{}{rd.done, stderrDone} {
		select {
		case <-ch:
		case <-grace.C:
			files.close(stdoutR, stderrR) // a process outside the group holds them
			<-ch
		}
	}
	reapGroup(pgid, reapLimit)
	res.Duration = time.Since(start)
	res.Stderr = errs.String()
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
	}
	if cause == nil {
		cause = rd.failure() // a failure found after the exit
	}
	if cause != nil {
		res.Category = cause.Category
		return res, cause
	}
	if err := exitError(res, waitErr, fail); err != nil {
		res.Category = err.Category
		return res, err
	}
	return res, nil
}

// ctxCause says why the context ended: the invocation's own timeout, or
// the caller's deadline or cancellation.
func ctxCause(parent, tctx context.Context, timeout time.Duration, fail func(Category, string, string, error) *Error) *Error {
	switch {
	case parent.Err() == nil || errors.Is(parent.Err(), context.DeadlineExceeded):
		if parent.Err() == nil {
			return fail(Timeout, CodeTimeout, fmt.Sprintf("timed out after %v and was killed", timeout), tctx.Err())
		}
		return fail(Timeout, CodeTimeout, "killed: the plan ran out of time", parent.Err())
	default:
		return fail(ProcessError, CodeCanceled, "killed: the caller canceled", parent.Err())
	}
}

// exitError judges an invocation that ended by itself (seed 001 §2.1.5):
// a non-zero exit is a protocol failure whatever was emitted; exit 0
// without done is a premature end; done with ok false is a tool failure.
func exitError(res Result, waitErr error, fail func(Category, string, string, error) *Error) *Error {
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if sig := signalOf(ee); sig != "" {
			return fail(ProcessError, CodeSignaled, "killed by signal "+sig+stderrHint(res), waitErr)
		}
		return fail(ProcessError, CodeExitStatus, fmt.Sprintf("exited with status %d%s", ee.ExitCode(), stderrHint(res)), waitErr)
	}
	if waitErr != nil {
		return fail(ProcessError, CodeExitStatus, "waiting for the script: "+waitErr.Error(), waitErr)
	}
	if res.Done == nil {
		return fail(ProcessError, CodeMissingDone, `exited 0 without a done event; end with {"version":"0","type":"done","ok":true}`, nil)
	}
	if !res.Done.OK {
		code, msg := CodeDoneNotOK, "reported failure (done with ok false)"
		if e := lastError(res.Events); e != nil {
			code = e.ErrorCode
			msg = "reported failure: " + e.ErrorMessage
			if e.ErrorCode != "" {
				msg = fmt.Sprintf("reported failure %s: %s", e.ErrorCode, e.ErrorMessage)
			}
		} else if res.Done.Summary != "" {
			msg = "reported failure: " + res.Done.Summary
		}
		if code == "" {
			code = CodeDoneNotOK
		}
		return fail(ToolFailure, code, msg, nil)
	}
	return nil
}

func lastError(evs []protocol.Event) *protocol.ErrorEvent {
	for i := len(evs) - 1; i >= 0; i-- {
		if e, ok := evs[i].(*protocol.ErrorEvent); ok {
			return e
		}
	}
	return nil
}

// stderrHint adds the last line of stderr to a message.
func stderrHint(res Result) string {
	s := strings.TrimSpace(res.Stderr)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return "; stderr: " + s
}

// pipes tracks the pipe ends Run opened so each is closed exactly once.
type pipes struct {
	mu    sync.Mutex
	files []*os.File
}

func (p *pipes) pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err == nil {
		p.mu.Lock()
		p.files = append(p.files, r, w)
		p.mu.Unlock()
	}
	return r, w, err
}

func (p *pipes) close(fs ...*os.File) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range fs {
		for i, g := range p.files {
			if g == f {
				f.Close()
				p.files = append(p.files[:i], p.files[i+1:]...)
				break
			}
		}
	}
}

func (p *pipes) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.files {
		f.Close()
	}
	p.files = nil
}

// BaseEnv is the environment every script starts from: the variables of
// Hearth's own environment that programs need to run (PATH, HOME, locale,
// temporary directory, Go's build settings for Go skills, the hearth
// binary as EnvExe), and nothing else, so Hearth's own secrets never reach a skill.
func BaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if passEnv(k) {
			env = append(env, kv)
		}
	}
	return env
}

func passEnv(k string) bool {
	switch k {
	case EnvExe, "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TZ", "TMPDIR", "TERM",
		"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB", "GOPRIVATE":
		return true
	}
	return strings.HasPrefix(k, "LC_")
}
