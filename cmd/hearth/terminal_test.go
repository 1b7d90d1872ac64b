//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hearth-rpg/hearth/internal/syncbuf"
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
type screen struct{ syncbuf.Buffer }

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

// waitForPrompt waits until the screen ends with the prompt: the game
// prints it only once the terminal is raw, and keys typed before that
// would be echoed and read as a plain line.
func (s *screen) waitForPrompt(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.HasSuffix(sgr.ReplaceAllString(s.String(), ""), "> ") {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never ended with the prompt:\n%s", s.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sgr matches the colour sequences a coloured prompt may carry.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// play runs hearth play on a fresh pseudo-terminal in data, types each
// of steps once the screen shows its cue, and returns the screen. env is
// added to the environment; without it, NO_COLOR=1 is.
func playOnTerminal(t *testing.T, data string, steps []step, env ...string) string {
	t.Helper()
	control, tty := openPTY(t)
	cmd := exec.Command(hearthBin, "play", "--seed", "1", "--data", data)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if env == nil {
		env = []string{"NO_COLOR=1"}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "TERM=xterm")
	cmd.Env = append(cmd.Env, env...)
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
	for _, st := range steps {
		out.waitFor(t, st.cue, st.times)
		out.waitForPrompt(t)
		control.Write([]byte(st.keys))
	}
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
	return out.String()
}

// step types keys once the screen shows cue for the times-th time.
type step struct {
	cue   string
	times int
	keys  string
}

// On a real terminal a line is edited and recalled as in a shell: "lok",
// ←, "o" is "look"; ↑ repeats it; Ctrl-C forgets a line; Tab completes a
// slash command and a name; and the next game in the same data directory
// brings the lines back with ↑.
func TestTerminalLineEditing(t *testing.T) {
	data := t.TempDir()
	const room, prompt = "== Saltmere Quay ==", "\n> "
	screen := playOnTerminal(t, data, []step{
		{room, 1, "lok\x1b[Do\r"},           // ← moves back one letter
		{room, 2, "\x1b[A\r"},               // ↑ brings back "look"
		{room, 3, "xyzzy\x03/inv\t\r"},      // Ctrl-C forgets xyzzy; Tab: /inventory
		{"You carry:", 1, "talk to Ne\t\r"}, // Tab: Nell
		{"turn 3", 1, "quit\r"},
	})
	// Read line by line, the keys would have been played as the words
	// "lok^[[Do", "^[[A" and "xyzzy^C/que" ("/que" alone is no command).
	for _, bad := range []string{"^[[", "I don't follow", "Unknown command"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the screen shows %q:\n%s", bad, screen)
		}
	}
	// Tab rewrote the line on the screen before Enter played it.
	if !strings.Contains(screen, "talk to Nell") {
		t.Errorf("Tab did not complete Ne to Nell:\n%s", screen)
	}
	if !strings.Contains(screen, "Saved at turn 3") {
		t.Errorf("look, look and talk should have made three turns:\n%s", screen)
	}
	// The next game: ↑ ↑ is "talk to Nell", the line before "quit".
	again := playOnTerminal(t, data, []step{
		{prompt, 1, "\x1b[A\x1b[A\r"},
		{"turn 4", 1, "quit\r"},
	})
	if !strings.Contains(again, "Saved at turn 4") {
		t.Errorf("↑ ↑ in the next game should have replayed the talk:\n%s", again)
	}
}

// On a terminal the headings, dice and status are coloured and the prose
// is not; NO_COLOR (any value) turns colour off on the same terminal.
func TestTerminalColours(t *testing.T) {
	steps := []step{{"== Saltmere Quay ==", 1, "search\r"}, {"turn 1", 1, "quit\r"}}
	coloured := playOnTerminal(t, t.TempDir(), steps, "NO_COLOR=")
	for _, want := range []string{sgrHeading + "== Saltmere Quay ==" + sgrReset, sgrDice + "[Investigation ", sgrStatus} {
		if !strings.Contains(coloured, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, coloured)
		}
	}
	if strings.Contains(coloured, sgrDice+"Wet stones") || strings.Contains(coloured, sgrHeading+"Wet stones") {
		t.Errorf("narration is coloured:\n%q", coloured)
	}
	plain := playOnTerminal(t, t.TempDir(), steps, "NO_COLOR=1")
	for _, sgr := range []string{sgrHeading, sgrDice, sgrStatus, sgrReset} {
		if strings.Contains(plain, sgr) {
			t.Errorf("with NO_COLOR=1 the terminal shows %q:\n%q", sgr, plain)
		}
	}
}
