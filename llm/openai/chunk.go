package openai

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// decodeChunk decodes one chat.completion.chunk. Nearly every chunk of a
// stream is a choice's delta of text, or the usage at its end, which
// decodeTextChunk reads in one pass without reflection (encoding/json
// took 3-7 µs a chunk, the largest cost of a streamed token after the
// system calls, and at a stream's end its deep calls grew the agent
// loop's fresh stack); anything else (tool calls, errors, escapes it
// cannot take, JSON it doubts) goes to encoding/json, so the result is
// always what encoding/json makes of it (FuzzDecodeChunk holds it to
// that).
func decodeChunk(data []byte, c *streamChunk) error {
	_, err := decodeChunkText(data, c, nil)
	return err
}

// decodeChunkText is decodeChunk appending the content of a text chunk
// read in one pass to text, each choice's Delta.Content a view of the
// bytes it appended, so that a token allocates nothing. It reports
// whether it did so; for any other chunk (decoded by encoding/json)
// nothing is appended. With text nil it is decodeChunk.
func decodeChunkText(data []byte, c *streamChunk, text *streamText) (bool, error) {
	var mark int
	if text != nil {
		mark = len(text.b)
	}
	if decodeTextChunk(data, c, text) {
		return text != nil, nil
	}
	if text != nil {
		// The views of a chunk not read are in c, about to be cleared.
		text.b = text.b[:mark]
	}
	*c = streamChunk{}
	return false, json.Unmarshal(data, c)
}

// decodeTextChunk reads a chunk whose known fields are choices with
// index, delta (content, refusal) and finish_reason, and usage; error
// absent. It reports false for anything else.
func decodeTextChunk(data []byte, c *streamChunk, text *streamText) bool {
	d := chunkDecoder{b: data, text: text}
	var seen fields
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return seen.first(0) && d.choices(c)
		case "usage":
			return seen.first(1) && (d.null() || d.usage(c))
		}
		// An error, even null, is encoding/json's to read: it keeps
		// the raw value.
		return d.other(key, "choices", "usage", "error")
	})
	d.space()
	return ok && d.i == len(d.b)
}

// fields marks the known fields of an object read: encoding/json merges
// a field given twice, which the fast path does not.
type fields uint8

func (f *fields) first(n uint) bool {
	if *f&(1<<n) != 0 {
		return false
	}
	*f |= 1 << n
	return true
}

// chunkDecoder reads JSON from b at i.
type chunkDecoder struct {
	b    []byte
	i    int
	text *streamText // where content goes; nil: each is allocated
}

// streamText is a stream's text, appended as its chunks are read. A
// token is handed out as a view of the bytes it appended and the answer
// as a view of them all, so neither allocates beyond the buffer's
// growth. Bytes once handed out are never written again: the buffer
// only grows, by copying to a new array, and the old one stays with the
// strings that point into it.
type streamText struct{ b []byte }

// add appends s and returns a view of it.
func (t *streamText) add(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	n := len(t.b)
	t.grow(len(s))
	t.b = append(t.b, s...)
	return unsafe.String(&t.b[n], len(s))
}

// addString appends s and returns a view of it.
func (t *streamText) addString(s string) string {
	if len(s) == 0 {
		return ""
	}
	n := len(t.b)
	t.grow(len(s))
	t.b = append(t.b, s...)
	return unsafe.String(&t.b[n], len(s))
}

// minStreamText is the least first buffer of a stream's text: small, for
// the answers of a token or two; a longer answer's buffer doubles from
// it in a few steps.
const minStreamText = 64

// grow makes room for n more bytes by doubling the buffer. append grows
// a byte slice past 256 bytes by about a quarter at a time, which for an
// answer of a few kilobytes threw away three times its size in
// buffers; doubled, about once its size.
func (t *streamText) grow(n int) {
	if len(t.b)+n <= cap(t.b) {
		return
	}
	b := make([]byte, len(t.b), max(2*cap(t.b), len(t.b)+n, minStreamText))
	copy(b, t.b)
	t.b = b
}

// String is the whole text.
func (t *streamText) String() string {
	if len(t.b) == 0 {
		return ""
	}
	return unsafe.String(&t.b[0], len(t.b))
}

func (d *chunkDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (d *chunkDecoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *chunkDecoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

// null reads a null.
func (d *chunkDecoder) null() bool { return d.peek() == 'n' && d.lit("null") }

// object reads an object, calling field at each key with the value next.
func (d *chunkDecoder) object(field func(key []byte) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		key, ok := d.raw()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		if !field(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// other skips the value of a key the chunk does not read, unless it
// matches one it does in another case (encoding/json would take it); a
// key beyond ASCII is left to encoding/json's Unicode case folding.
func (d *chunkDecoder) other(key []byte, known ...string) bool {
	for _, b := range key {
		if b >= utf8.RuneSelf {
			return false
		}
	}
	for _, k := range known {
		if asciiEqualFold(key, k) {
			return false
		}
	}
	return d.skip(0)
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (d *chunkDecoder) choices(c *streamChunk) bool {
	if d.null() {
		return true
	}
	if d.peek() != '[' {
		return false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		c.Choices = []chunkChoice{}
		return true
	}
	for {
		c.Choices = append(c.Choices, chunkChoice{})
		ch := &c.Choices[len(c.Choices)-1]
		var seen fields
		ok := d.object(func(key []byte) bool {
			switch string(key) {
			case "index":
				return seen.first(0) && (d.null() || d.int(&ch.Index))
			case "delta":
				var inner fields
				return seen.first(1) && (d.null() || d.object(func(key []byte) bool {
					switch string(key) {
					case "content":
						return inner.first(0) && d.optText(&ch.Delta.Content)
					case "refusal":
						return inner.first(1) && d.optStr(&ch.Delta.Refusal)
					}
					return d.other(key, "content", "refusal", "tool_calls")
				}))
			case "finish_reason":
				return seen.first(2) && d.optStr(&ch.FinishReason)
			}
			return d.other(key, "index", "delta", "finish_reason")
		})
		if !ok {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}

// usage reads a usage object's token counts.
func (d *chunkDecoder) usage(c *streamChunk) bool {
	u := new(chunkUsage)
	var seen fields
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return seen.first(0) && d.optInt(&u.PromptTokens)
		case "completion_tokens":
			return seen.first(1) && d.optInt(&u.CompletionTokens)
		case "prompt_tokens_details":
			var inner fields
			return seen.first(2) && (d.null() || d.object(func(key []byte) bool {
				if string(key) == "cached_tokens" {
					return inner.first(0) && d.optInt(&u.PromptTokensDetails.CachedTokens)
				}
				return d.other(key, "cached_tokens")
			}))
		}
		return d.other(key, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
	})
	if ok {
		c.Usage = u
	}
	return ok
}

// optInt reads an integer into v, or a null (leaving v).
func (d *chunkDecoder) optInt(v *int64) bool { return d.null() || d.int(v) }

// optStr reads a string into s, or a null (leaving s).
func (d *chunkDecoder) optStr(s *string) bool {
	if d.null() {
		return true
	}
	v, ok := d.str()
	if ok {
		*s = v
	}
	return ok
}

// optText is optStr for a content, which goes to d.text.
func (d *chunkDecoder) optText(s *string) bool {
	if d.text == nil || d.null() {
		return d.optStr(s)
	}
	b, ok := d.raw()
	if ok {
		*s = d.text.add(b)
	}
	return ok
}

// str reads a string of valid UTF-8 without escapes; a string with
// either is refused (encoding/json decodes it).
func (d *chunkDecoder) str() (string, bool) {
	b, ok := d.raw()
	return string(b), ok
}

// raw is str without the copy: the bytes are data's.
func (d *chunkDecoder) raw() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	ascii := true
	for i := start; i < len(d.b); i++ {
		switch b := d.b[i]; {
		case b == '"':
			s := d.b[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.i = i + 1
			return s, true
		case b == '\\' || b < 0x20:
			return nil, false
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// int reads an integer that fits an int64, without fraction or
// exponent.
func (d *chunkDecoder) int(v *int64) bool {
	d.space()
	i, neg := d.i, false
	if i < len(d.b) && d.b[i] == '-' {
		neg, i = true, i+1
	}
	start := i
	var n int64
	for ; i < len(d.b) && d.b[i] >= '0' && d.b[i] <= '9'; i++ {
		if i-start >= 18 {
			return false // may overflow: let encoding/json say
		}
		n = n*10 + int64(d.b[i]-'0')
	}
	if i == start || (d.b[start] == '0' && i-start > 1) {
		return false
	}
	if i < len(d.b) && (d.b[i] == '.' || d.b[i] == 'e' || d.b[i] == 'E') {
		return false
	}
	if neg {
		n = -n
	}
	*v, d.i = n, i
	return true
}

// maxDepth bounds the nesting skip follows; deeper values go to
// encoding/json.
const maxDepth = 16

// skip reads any JSON value strictly, keeping nothing.
func (d *chunkDecoder) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch d.peek() {
	case '{':
		return d.object(func([]byte) bool { return d.skip(depth + 1) })
	case '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				return true
			default:
				return false
			}
		}
	case '"':
		_, ok := d.raw()
		return ok
	case 't':
		return d.lit("true")
	case 'f':
		return d.lit("false")
	case 'n':
		return d.lit("null")
	}
	return d.number()
}

// number reads a JSON number.
func (d *chunkDecoder) number() bool {
	i := d.i
	digits := func() bool {
		start := i
		for i < len(d.b) && d.b[i] >= '0' && d.b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d.b) && d.b[i] == '-' {
		i++
	}
	if i < len(d.b) && d.b[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(d.b) && d.b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(d.b) && (d.b[i] == 'e' || d.b[i] == 'E') {
		i++
		if i < len(d.b) && (d.b[i] == '+' || d.b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	d.i = i
	return true
}
