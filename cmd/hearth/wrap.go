package main

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// maxWidth caps line length even on wide terminals: prose reads best
// under a hundred columns.
const maxWidth = 100

// wrapWidth is the column to wrap at for w, or 0 to leave text alone (a
// pipe or a file: transcripts keep one paragraph per line).
func wrapWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 20 {
		return 80
	}
	return min(width-1, maxWidth)
}

// wrap breaks each line of s at spaces so no line is wider than width
// (a single longer word stays whole). Newlines in s are kept.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		col := 0
		indent := len(line) - len(strings.TrimLeft(line, " "))
		for j, word := range strings.Fields(line) {
			n := utf8.RuneCountInString(word)
			switch {
			case j == 0:
				b.WriteString(line[:indent])
				col = indent
			case col+1+n > width:
				b.WriteByte('\n')
				b.WriteString(strings.Repeat(" ", indent))
				col = indent
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += n
		}
	}
	return b.String()
}
