package streambench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Child is a running harness child: the fake model at ModelURL and the
// clients that run plans against a server.
type Child struct {
	ModelURL string

	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	once   sync.Once
	err    error // from Wait
}

// Start runs exe (a test binary whose TestMain calls MaybeChild) as the
// harness's child and waits for its fake model to listen. When ctx ends
// the child's input closes, so it exits (writing its CPU profile, if
// asked for one), and it is killed if it has not within 5 s; Close reaps
// it. (testing cancels a benchmark's context before its cleanups run.)
func Start(ctx context.Context, exe string) (*Child, error) {
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvRole+"=child")
	cmd.WaitDelay = 5 * time.Second
	return start(cmd)
}

func start(cmd *exec.Cmd) (*Child, error) {
	c := &Child{cmd: cmd, stderr: &tail{max: 16 << 10}}
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if cmd.Cancel != nil { // made by exec.CommandContext: end it gently first
		cmd.Cancel = in.Close
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("streambench: start %s: %w", cmd.Path, err)
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 64<<10)
	var m message
	if err := c.read(&m); err != nil {
		return nil, c.fail(err)
	}
	if m.Model == "" {
		return nil, c.fail(fmt.Errorf("the child's first message is %+v, not its model's address", m))
	}
	c.ModelURL = m.Model
	return c, nil
}

// Run hands the child a plan and returns what its clients measured. At
// each mark the child waits while onMark runs (the parent reads its own
// CPU and memory there): "steady" and "end" bound the window of a
// streaming run, "start" and "end" a burst. A failed run reaps the child
// and its error carries the child's stderr.
func (c *Child) Run(p Plan, onMark func(mark string)) (Result, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return Result{}, err
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return Result{}, c.fail(fmt.Errorf("send plan: %w", err))
	}
	for {
		var m message
		if err := c.read(&m); err != nil {
			return Result{}, c.fail(err)
		}
		switch {
		case m.Error != "":
			return Result{}, c.fail(errors.New(m.Error))
		case m.Result != nil:
			return *m.Result, nil
		case m.Mark != "":
			if onMark != nil {
				onMark(m.Mark)
			}
			if _, err := c.in.Write([]byte("ack\n")); err != nil {
				return Result{}, c.fail(fmt.Errorf("ack %s: %w", m.Mark, err))
			}
		default:
			return Result{}, c.fail(fmt.Errorf("unexpected message %+v", m))
		}
	}
}

// read reads one message line.
func (c *Child) read(m *message) error {
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		if err == io.EOF {
			return errors.New("the child closed its output")
		}
		return err
	}
	if err := json.Unmarshal(line, m); err != nil {
		return fmt.Errorf("the child wrote %.200q: %w", line, err)
	}
	return nil
}

// fail reaps the child and wraps err with how it ended and its stderr.
func (c *Child) fail(err error) error {
	c.kill()
	return fmt.Errorf("streambench child: %w (%v); its stderr:\n%s", err, c.err, c.stderr.String())
}

// Close ends the child: its input closes, so it exits; one that does
// not within 10 s is killed. It is safe to call more than once.
func (c *Child) Close() error {
	c.once.Do(func() {
		c.in.Close()
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case c.err = <-done:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			c.err = <-done
		}
	})
	return c.err
}

// kill kills the child and reaps it.
func (c *Child) kill() {
	c.once.Do(func() {
		c.in.Close()
		c.cmd.Process.Kill()
		c.err = c.cmd.Wait()
	})
}

// Pid is the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Exited reports whether the child has been reaped.
func (c *Child) Exited() bool { return c.cmd.ProcessState != nil }

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if n := t.b.Len() - t.max; n > 0 {
		t.b.Next(n)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
