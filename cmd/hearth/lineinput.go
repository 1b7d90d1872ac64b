package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// lineReader reads the player's lines. On a terminal it edits them as a
// shell does (←/→, Home/End, Backspace, Ctrl-W, Ctrl-U) and keeps a history
// (↑/↓); from a pipe or file it reads plain lines. ReadLine returns io.EOF
// at the end of input, and on Ctrl-C or Ctrl-D at a terminal.
type lineReader interface {
	ReadLine(prompt string) (string, error)
}

// newLineReader edits lines when in and out are the same terminal.
func newLineReader(in io.Reader, out io.Writer) lineReader {
	fin, ok1 := in.(*os.File)
	fout, ok2 := out.(*os.File)
	if ok1 && ok2 && term.IsTerminal(int(fin.Fd())) && term.IsTerminal(int(fout.Fd())) {
		return &termReader{fd: int(fin.Fd()), out: fout, t: term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{fin, fout}, "")}
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
