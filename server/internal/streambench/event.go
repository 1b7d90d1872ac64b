package streambench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// parseEvent reads one line of a chat's SSE stream as hearth (and the
// peer proxy) write it, "data: " and a JSON object with a "type" and,
// for content, a "text". It returns the event's type and text; ok is
// false for a line that is not data (a blank line, a comment, another
// field). The common shape, {"type":"…"} or {"type":"…","text":"…"}
// with nothing to unescape, is read without encoding/json, which the
// clients would otherwise run for every token; anything else is decoded
// by encoding/json, so both ways give what encoding/json gives. The
// returned slices may alias line.
func parseEvent(line []byte) (typ, text []byte, ok bool, err error) {
	data, found := bytes.CutPrefix(line, []byte("data:"))
	if !found {
		return nil, nil, false, nil
	}
	data = bytes.TrimPrefix(data, []byte(" "))
	data = bytes.TrimRight(data, "\r\n")
	if typ, text, ok := fastEvent(data); ok {
		return typ, text, true, nil
	}
	var v struct {
		Type *string `json:"type"`
		Text string  `json:"text"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, nil, false, fmt.Errorf("event %.200q: %w", data, err)
	}
	if v.Type == nil {
		return nil, nil, false, fmt.Errorf("event %.200q has no type", data)
	}
	return []byte(*v.Type), []byte(v.Text), true, nil
}

// fastEvent reads data of exactly the form {"type":"T"} or
// {"type":"T","text":"X"} where T and X are plain JSON strings (valid
// UTF-8, no escapes, no control characters); ok is false otherwise.
func fastEvent(data []byte) (typ, text []byte, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(`{"type":"`))
	if !found {
		return nil, nil, false
	}
	typ, rest, found = plainString(rest)
	if !found {
		return nil, nil, false
	}
	if string(rest) == "}" {
		return typ, nil, true
	}
	rest, found = bytes.CutPrefix(rest, []byte(`,"text":"`))
	if !found {
		return nil, nil, false
	}
	text, rest, found = plainString(rest)
	if !found || string(rest) != "}" {
		return nil, nil, false
	}
	return typ, text, true
}

// plainString splits b at the first quote, if what comes before it is a
// JSON string's content that needs no decoding.
func plainString(b []byte) (s, rest []byte, ok bool) {
	for i, c := range b {
		switch {
		case c == '"':
			if !utf8.Valid(b[:i]) {
				return nil, nil, false
			}
			return b[:i], b[i+1:], true
		case c == '\\' || c < 0x20:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// stamps appends to out the model's write times in a token's text: "t"
// and 19 digits, as Model writes them.
func stamps(out []int64, text []byte) []int64 {
	for i := 0; i+20 <= len(text); i++ {
		if text[i] != 't' || (i > 0 && isDigit(text[i-1])) {
			continue
		}
		j := i + 1
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		if j-i-1 == 19 {
			if ns, err := strconv.ParseInt(string(text[i+1:j]), 10, 64); err == nil {
				out = append(out, ns)
			}
		}
		i = j - 1
	}
	return out
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
