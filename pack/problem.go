package pack

import (
	"fmt"
	"strings"
)

// Severity says whether a problem stops a pack from loading.
type Severity string

const (
	Error   Severity = "error"   // the pack cannot be used until it is fixed
	Warning Severity = "warning" // the pack works; the author may want to look
)

// Problem is one thing wrong with a pack or campaign, where it is, and
// (in the message) what would be valid instead.
type Problem struct {
	File     string   `json:"file"`           // slash path inside the pack, or the pack itself
	Line     int      `json:"line,omitempty"` // 1-based; 0 when the whole file is meant
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// Error renders "file:line: message", the form editors jump to.
func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// Problems collects what a load finds, errors and warnings alike.
type Problems []Problem

func (p *Problems) Add(file string, line int, format string, args ...any) {
	p.put(Error, file, line, fmt.Sprintf(format, args...))
}

func (p *Problems) Warn(file string, line int, format string, args ...any) {
	p.put(Warning, file, line, fmt.Sprintf(format, args...))
}

func (p *Problems) put(sev Severity, file string, line int, msg string) {
	// Parser errors carry their own "line N: " prefix; make it file:N.
	if line == 0 {
		var n int
		if _, err := fmt.Sscanf(msg, "line %d:", &n); err == nil {
			line, msg = n, strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
	}
	*p = append(*p, Problem{File: file, Line: line, Severity: sev, Message: msg})
}

// errors returns the Problems of severity Error, as errors.
func (p Problems) Errors() []error {
	var out []error
	for _, x := range p {
		if x.Severity == Error {
			out = append(out, x)
		}
	}
	return out
}

// Count returns how many Problems have severity s.
func (p Problems) Count(s Severity) int {
	n := 0
	for _, x := range p {
		if x.Severity == s {
			n++
		}
	}
	return n
}
