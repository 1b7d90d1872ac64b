//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controlling side the test
// types into, and the terminal the game runs on.
func openPTY(t *testing.T) (control, tty *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	if err := unix.IoctlSetPointerInt(int(control.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(control.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Fatal(err)
	}
	return control, tty
}

// screen collects what the game writes to its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows want n times in all.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q %d times:\n%s", want, n, s.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// On a real terminal a line can be edited and earlier lines come back
// with the up arrow, as in a shell: "lok", ←, "o" is "look", and ↑ on an
// empty prompt repeats it; escape sequences are never played as words.
func TestTerminalLineEditing(t *testing.T) {
	control, tty := openPTY(t)
	cmd := exec.Command(hearthBin, "play", "--new", "--seed", "1", "--data", t.TempDir())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the game holds it now
	var out screen
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := control.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	const room = "== Saltmere Quay =="
	out.waitFor(t, "> ", 1)
	out.waitFor(t, room, 1)
	control.Write([]byte("lok\x1b[Do\r")) // ← moves back one letter
	out.waitFor(t, room, 2)
	control.Write([]byte("\x1b[A\r")) // ↑ brings back "look"
	out.waitFor(t, room, 3)
	control.Write([]byte("inventory\r"))
	out.waitFor(t, "You carry:", 1)
	control.Write([]byte("quit\r"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hearth play: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("hearth play did not quit:\n%s", out.String())
	}
	screen := out.String()
	// Read line by line from a terminal, the keys would have been played
	// as the words "lok^[[Do" and "^[[A".
	for _, bad := range []string{"^[[", "I don't follow"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the screen shows %q:\n%s", bad, screen)
		}
	}
	if !strings.Contains(screen, "Saved at turn 2") {
		t.Errorf("two looks should have made two turns:\n%s", screen)
	}
}
