package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// lineReader reads the player's lines. On a terminal it edits them as a
// shell does (←/→, Home/End, Backspace, Ctrl-W, Ctrl-U; Ctrl-C clears the
// line), keeps a history (↑/↓) that outlives the process, and completes
// words with Tab; from a pipe or file it reads plain lines. ReadLine
// returns io.EOF at the end of input, and on Ctrl-D at an empty prompt.
type lineReader interface {
	ReadLine(prompt string) (string, error)
}

// lineOptions configure the terminal reader; a plain reader ignores them.
type lineOptions struct {
	// HistoryFile keeps the lines typed, one per line; "" keeps them for
	// this run only.
	HistoryFile string
	// Complete lists the words Tab may complete the word before the
	// cursor to, given the line so far.
	Complete func(line string) []string
}

// maxHistory bounds the lines kept, in memory and in the file.
const maxHistory = 500

// newLineReader edits lines when in and out are the same terminal.
func newLineReader(in io.Reader, out io.Writer, o lineOptions) lineReader {
	fin, ok1 := in.(*os.File)
	fout, ok2 := out.(*os.File)
	if ok1 && ok2 && term.IsTerminal(int(fin.Fd())) && term.IsTerminal(int(fout.Fd())) {
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{ctrlC{fin}, fout}, "")
		h := loadHistory(o.HistoryFile)
		t.History = h
		if o.Complete != nil {
			t.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
				if key != '\t' {
					return "", 0, false
				}
				return complete(line, pos, o.Complete(line[:pos]))
			}
		}
		return &termReader{fd: int(fin.Fd()), out: fout, t: t}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	return &plainReader{sc: sc, out: out}
}

type plainReader struct {
	sc  *bufio.Scanner
	out io.Writer
}

func (p *plainReader) ReadLine(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	if !p.sc.Scan() {
		if err := p.sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
	return p.sc.Text(), nil
}

// termReader puts the terminal in raw mode only while a line is typed, so
// the game's own output is written as usual between prompts.
type termReader struct {
	fd  int
	out *os.File
	t   *term.Terminal
}

func (r *termReader) ReadLine(prompt string) (string, error) {
	if w, h, err := term.GetSize(int(r.out.Fd())); err == nil {
		r.t.SetSize(w, h)
	}
	r.t.SetPrompt(prompt)
	old, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", err
	}
	line, err := r.t.ReadLine()
	term.Restore(r.fd, old)
	if errors.Is(err, term.ErrPasteIndicator) {
		err = nil // a pasted line is still a line
	}
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	return line, err
}

// ctrlC turns Ctrl-C into "end of line, erase to its start": the shell's
// "forget this line", where the terminal package would end the input.
type ctrlC struct{ r io.Reader }

func (c ctrlC) Read(p []byte) (int, error) {
	// Room for the two bytes one Ctrl-C becomes.
	buf := make([]byte, max(1, len(p)/2))
	n, err := c.r.Read(buf)
	out := p[:0]
	for _, b := range buf[:n] {
		if b == 3 {
			out = append(out, 5, 21) // Ctrl-E, Ctrl-U
			continue
		}
		out = append(out, b)
	}
	return len(out), err
}

// history is the terminal's history, appended to a file as lines come so
// the next game (in the same data directory) can bring them back.
type history struct {
	lines []string // oldest first
	file  string
}

func loadHistory(file string) *history {
	h := &history{file: file}
	if file == "" {
		return h
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return h
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && utf8.ValidString(l) {
			h.lines = append(h.lines, l)
		}
	}
	if len(h.lines) > maxHistory {
		h.lines = h.lines[len(h.lines)-maxHistory:]
		h.rewrite()
	}
	return h
}

func (h *history) Add(entry string) {
	entry = strings.TrimSpace(entry)
	if entry == "" || strings.ContainsAny(entry, "\r\n") || (len(h.lines) > 0 && h.lines[len(h.lines)-1] == entry) {
		return
	}
	h.lines = append(h.lines, entry)
	if len(h.lines) > 2*maxHistory {
		h.lines = h.lines[len(h.lines)-maxHistory:]
		h.rewrite()
		return
	}
	if h.file == "" {
		return
	}
	// History is a convenience: a file that cannot be written only means
	// the next game starts without it.
	f, err := os.OpenFile(h.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, entry)
	f.Close()
}

func (h *history) rewrite() {
	if h.file == "" {
		return
	}
	tmp := h.file + ".tmp"
	if os.WriteFile(tmp, []byte(strings.Join(h.lines, "\n")+"\n"), 0o600) == nil {
		os.Rename(tmp, h.file)
	}
}

func (h *history) Len() int { return len(h.lines) }

func (h *history) At(i int) string { return h.lines[len(h.lines)-1-i] }

// complete replaces the word before the cursor with the one candidate it
// begins, or with the longest prefix they share; several candidates with
// nothing more in common leave the line as it is.
func complete(line string, pos int, candidates []string) (string, int, bool) {
	start := strings.LastIndexAny(line[:pos], " \t") + 1
	word := strings.ToLower(line[start:pos])
	var matches []string
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), word) && len(c) > len(word) {
			matches = append(matches, c)
		}
	}
	if len(matches) == 0 {
		return "", 0, false
	}
	sort.Strings(matches)
	fill := matches[0]
	if len(matches) == 1 {
		fill += " "
	} else {
		for _, m := range matches[1:] {
			fill = commonPrefix(fill, m)
		}
		if len(fill) <= len(word) {
			return "", 0, false
		}
	}
	out := line[:start] + fill + line[pos:]
	return out, start + len(fill), true
}

func commonPrefix(a, b string) string {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && strings.EqualFold(string(ra[n]), string(rb[n])) {
		n++
	}
	return string(ra[:n])
}
