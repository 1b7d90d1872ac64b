package lorebook

import (
	"fmt"
	"strconv"
	"strings"
)

// knownDecorators are the V3 decorators Hearth acts on: SillyTavern's two
// (@@activate, @@dont_activate) and three that need nothing beyond what an
// activation already has. The others (@@depth, @@role, @@position, …) are
// about prompt placement or features Hearth does not model; they are
// reported as warnings so their fallbacks apply, as the spec asks.
var knownDecorators = map[string]bool{
	"activate":            true,
	"dont_activate":       true,
	"scan_depth":          true,
	"activate_only_after": true,
	"activate_only_every": true,
}

// parseDecorators takes the @@decorator lines from the top of content and
// returns the rest. Per the V3 spec: a decorator is a line starting with
// @@, its value follows a space; a line with @@@ is the fallback for the
// decorator above it and counts only when that one was not recognised; the
// first occurrence of a name wins; the decorator lines and the newlines
// around them are trimmed from the content.
func (e *Entry) parseDecorators(content string, b *Book) string {
	if !strings.HasPrefix(content, "@@") {
		return content
	}
	lines := strings.Split(content, "\n")
	rest := len(lines)
	fallback := false // the previous decorator was not recognised
	seen := map[string]bool{}
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		if !strings.HasPrefix(line, "@@") {
			rest = i
			break
		}
		isFallback := strings.HasPrefix(line, "@@@")
		if isFallback && !fallback {
			continue
		}
		name, value, _ := strings.Cut(strings.TrimLeft(line, "@"), " ")
		value = strings.TrimSpace(value)
		if !knownDecorators[name] {
			fallback = true
			b.warn(e.UID, fmt.Sprintf("decorator %q is not supported; ignored", line))
			continue
		}
		fallback = false
		if seen[name] {
			continue
		}
		if err := e.applyDecorator(name, value); err != nil {
			b.warn(e.UID, fmt.Sprintf("decorator %q: %v; ignored", line, err))
			fallback = true
			continue
		}
		seen[name] = true
		e.Decorators = append(e.Decorators, line)
	}
	if rest == len(lines) {
		return ""
	}
	return strings.Trim(strings.Join(lines[rest:], "\n"), "\r\n")
}

func (e *Entry) applyDecorator(name, value string) error {
	number := func() (int, error) {
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a whole number ≥ 0, got %q", value)
		}
		return n, nil
	}
	switch name {
	case "activate":
		e.activate = true
	case "dont_activate":
		e.dontAct = true
	case "scan_depth":
		n, err := number()
		if err != nil {
			return err
		}
		if e.ScanDepth == nil { // an explicit entry setting wins
			n = min(n, MaxScanDepth)
			e.ScanDepth = &n
		}
	case "activate_only_after":
		n, err := number()
		if err != nil {
			return err
		}
		e.onlyAfter = n
	case "activate_only_every":
		n, err := number()
		if err != nil {
			return err
		}
		e.onlyEvery = n
	}
	return nil
}
