package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// piped is hearth play with its input and output on pipes.
type piped struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	mu     sync.Mutex
	out    bytes.Buffer
	stderr bytes.Buffer
}

// startPlay starts a new game in data with env added to the environment.
func startPlay(t *testing.T, data string, env ...string) *piped {
	t.Helper()
	p := &piped{cmd: exec.Command(hearthBin, "play", "--new", "--seed", "1", "--data", data)}
	p.cmd.Env = append(os.Environ(), env...)
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	go io.Copy(&lockedWriter{mu: &p.mu, w: &p.out}, out)
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *piped) screen() (string, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String(), p.stderr.String()
}

// waitPrompt waits until the game has shown its prompt n times: the
// prompt is "> " at the end of the output, with nothing after it.
func (p *piped) waitPrompt(t *testing.T, n int) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard, not a measurement
	for {
		out, errs := p.screen()
		if strings.Count(out, "\n> ") >= n && strings.HasSuffix(out, "\n> ") {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("prompt %d never came:\n%s\nstderr:\n%s", n, out, errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *piped) quit(t *testing.T) {
	t.Helper()
	fmt.Fprintln(p.in, "/quit")
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			out, errs := p.screen()
			t.Fatalf("hearth play: %v\n%s\nstderr:\n%s", err, out, errs)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("hearth play did not leave while its index was building")
	}
}

var sceneLore = regexp.MustCompile(`Scene lore: (\d+) passages`)

// playUntilLore plays "look" until a turn's record has scene lore, and
// returns how many passages it had.
func playUntilLore(t *testing.T, p *piped, data string, prompts int) int {
	t.Helper()
	for turn := 1; turn <= 200; turn++ {
		fmt.Fprintln(p.in, "look")
		prompts++
		p.waitPrompt(t, prompts)
		out := run(t, nil, "context", strconv.Itoa(turn), "--data", data)
		if m := sceneLore.FindStringSubmatch(out); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		if !strings.Contains(out, "Scene lore: none yet, the lore index still building") {
			t.Fatalf("turn %d's context says nothing of its lore:\n%s", turn, out)
		}
	}
	t.Fatal("no turn had scene lore in 200 turns")
	return 0
}

// The first game of a fresh data directory shows its prompt while the
// lore index is still being built (held here before its first file), its
// turns say why they have no lore, and once the index is done the lore
// comes in.
func TestPlayPromptsBeforeTheIndexIsBuilt(t *testing.T) {
	data := t.TempDir()
	resume := filepath.Join(t.TempDir(), "resume")
	p := startPlay(t, data, indexPauseEnv+"=0", indexResumeEnv+"="+resume)
	p.waitPrompt(t, 1)
	if _, errs := p.screen(); !strings.Contains(errs, "Indexing the lore of the_lantern_of_saltmere, srd51") {
		t.Errorf("the game does not say it indexes while you play:\n%s", errs)
	}
	fmt.Fprintln(p.in, "look")
	p.waitPrompt(t, 2)
	out := run(t, nil, "context", "1", "--data", data)
	if !strings.Contains(out, "Scene lore: none yet, the lore index still building (0 of ") {
		t.Fatalf("turn 1 played while the index was held; its context:\n%s", out)
	}
	if err := os.WriteFile(resume, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := playUntilLore(t, p, data, 2); n == 0 {
		t.Error("the index is built and the scene still has no lore")
	}
	p.quit(t)
}

// Leaving the game while its index builds stops the build between files
// and keeps what was written; the next game builds the rest.
func TestPlayLeftWhileIndexingCarriesOn(t *testing.T) {
	data := t.TempDir()
	const heldAt = 30
	p := startPlay(t, data, indexPauseEnv+"="+strconv.Itoa(heldAt))
	p.waitPrompt(t, 1)
	// Play until a turn finds the build held, so the game is left mid-way.
	held := fmt.Sprintf("Scene lore: none yet, the lore index still building (%d of ", heldAt)
	for turn := 1; ; turn++ {
		if turn > 200 {
			t.Fatalf("the build was not held at file %d within 200 turns", heldAt)
		}
		fmt.Fprintln(p.in, "look")
		p.waitPrompt(t, turn+1)
		if strings.Contains(run(t, nil, "context", strconv.Itoa(turn), "--data", data), held) {
			break
		}
	}
	p.quit(t)
	if n := indexedFiles(t, data); n != heldAt {
		t.Fatalf("after leaving at file %d the index holds %d files", heldAt, n)
	}

	p = startPlay(t, data)
	p.waitPrompt(t, 1)
	if n := playUntilLore(t, p, data, 1); n == 0 {
		t.Error("the index is built and the scene still has no lore")
	}
	p.quit(t)
	if n := indexedFiles(t, data); n <= heldAt {
		t.Fatalf("after the second game the index holds %d files", n)
	}
	p = startPlay(t, data)
	p.waitPrompt(t, 1)
	p.quit(t)
	if _, errs := p.screen(); strings.Contains(errs, "Indexing") {
		t.Errorf("a game over a built index indexes again:\n%s", errs)
	}
}

// indexedFiles counts the files of the bundled campaign and its packs in
// the data directory's index.
func indexedFiles(t *testing.T, data string) int {
	t.Helper()
	ctx := context.Background()
	ix, err := sqliteindex.Open(ctx, filepath.Join(data, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n := 0
	for _, pack := range []string{"the_lantern_of_saltmere", "srd51"} {
		h, err := ix.Hashes(ctx, pack)
		if err != nil {
			t.Fatal(err)
		}
		n += len(h)
	}
	return n
}
