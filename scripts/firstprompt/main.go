// Command firstprompt measures how long `hearth play` takes to show its
// first prompt on a fresh data directory: it runs the binary with its
// input on a pipe, stops the clock when the output ends with the prompt,
// and then quits the game. Each run gets a new data directory, so every
// run is a first run.
//
//	go build -o /tmp/hearth ./cmd/hearth
//	go run ./scripts/firstprompt -bin /tmp/hearth -runs 7
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "hearth", "the hearth binary to run")
	runs := flag.Int("runs", 5, "how many fresh data directories to try")
	wait := flag.Bool("wait", false, "after the prompt, also time until the game has exited on /quit")
	flag.Parse()
	var walls, cpus []time.Duration
	for i := range *runs {
		wall, cpu, err := once(context.Background(), *bin, *wait)
		if err != nil {
			fmt.Fprintf(os.Stderr, "run %d: %v\n", i+1, err)
			os.Exit(1)
		}
		fmt.Printf("run %d: %d ms, %d ms CPU\n", i+1, wall.Milliseconds(), cpu.Milliseconds())
		walls, cpus = append(walls, wall), append(cpus, cpu)
	}
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"wall", walls}, {"CPU (user+sys) at the prompt", cpus}} {
		slices.Sort(m.ds)
		fmt.Printf("first prompt, %s, %d runs: min %d ms, p50 %d ms, max %d ms\n",
			m.name, len(m.ds), m.ds[0].Milliseconds(), m.ds[len(m.ds)/2].Milliseconds(), m.ds[len(m.ds)-1].Milliseconds())
	}
}

// once plays one fresh game up to its first prompt.
func once(ctx context.Context, bin string, wait bool) (wall, cpu time.Duration, err error) {
	dir, err := os.MkdirTemp("", "hearth-firstprompt-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "play", "--new", "--seed", "1", "--data", dir)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "NO_COLOR=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	// The prompt is "> " at the end of what was written so far, with no
	// newline after it: read bytes, not lines.
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.HasSuffix(seen, []byte("\n> ")) {
		n, err := out.Read(buf)
		seen = append(seen, buf[:n]...)
		if err != nil {
			cmd.Wait()
			return 0, 0, fmt.Errorf("no prompt before %v:\n%s\n%s", err, seen, stderr.Bytes())
		}
	}
	took := time.Since(start)
	cpu, cerr := cpuTime(cmd.Process.Pid)
	fmt.Fprintln(in, "/quit")
	in.Close()
	go io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("hearth play: %v\n%s", err, stderr.Bytes())
	}
	if wait {
		took = time.Since(start)
	}
	if cerr != nil {
		return 0, 0, cerr
	}
	return took, cpu, nil
}

// cpuTime is the user+system CPU time the process has used so far, from
// /proc (Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 12th and 13th of them.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	const hz = 100 // USER_HZ on Linux
	return time.Duration(u+s) * time.Second / hz, nil
}
