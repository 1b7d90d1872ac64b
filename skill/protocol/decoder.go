package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line a Decoder accepts unless told
// otherwise: 1 MiB.
const DefaultMaxLine = 1 << 20

// A Decoder reads events from an NDJSON stream.
type Decoder struct {
	sc   *bufio.Scanner
	max  int
	line int
	n    int64
	err  error
}

// NewDecoder returns a Decoder reading r with lines of at most
// DefaultMaxLine bytes.
func NewDecoder(r io.Reader) *Decoder { return NewDecoderSize(r, DefaultMaxLine) }

// NewDecoderSize returns a Decoder that rejects lines longer than maxLine
// bytes (the newline excluded).
func NewDecoderSize(r io.Reader, maxLine int) *Decoder {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	sc := bufio.NewScanner(r)
	// The scanner needs room for the newline too.
	sc.Buffer(make([]byte, 0, min(maxLine+1, 64<<10)), maxLine+1)
	return &Decoder{sc: sc, max: maxLine}
}

// Next returns the next event. It skips blank lines, returns io.EOF at the
// end of the stream, a *DecodeError for a line that breaks the protocol and
// other errors from the reader. After an error every call returns it again.
func (d *Decoder) Next() (Event, error) {
	if d.err != nil {
		return nil, d.err
	}
	for d.sc.Scan() {
		d.line++
		b := d.sc.Bytes()
		d.n += int64(len(b)) + 1
		if len(b) > d.max {
			d.err = d.tooLong()
			return nil, d.err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		ev, err := Parse(b)
		if err != nil {
			var de *DecodeError
			if errors.As(err, &de) {
				de.Line = d.line
			}
			d.err = err
			return nil, err
		}
		return ev, nil
	}
	switch err := d.sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		d.line++
		d.err = d.tooLong()
	case err != nil:
		d.err = fmt.Errorf("reading events after line %d: %w", d.line, err)
	default:
		d.err = io.EOF
	}
	return nil, d.err
}

func (d *Decoder) tooLong() error {
	return &DecodeError{Line: d.line, Code: CodeLineTooLong,
		Msg: fmt.Sprintf("line is longer than %d bytes; write large data to a file and emit an asset event", d.max)}
}

// Line returns the number of lines read so far.
func (d *Decoder) Line() int { return d.line }

// InputOffset returns the number of bytes of the lines read so far.
func (d *Decoder) InputOffset() int64 { return d.n }

// Skip reads past the next line without parsing it, for the lines a script
// writes after done, which the runtime no longer accepts. It returns io.EOF
// at the end of the stream.
func (d *Decoder) Skip() error {
	if d.err != nil {
		return d.err
	}
	if d.sc.Scan() {
		d.line++
		d.n += int64(len(d.sc.Bytes())) + 1
		return nil
	}
	if err := d.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			d.line++
			d.err = d.tooLong()
		} else {
			d.err = fmt.Errorf("reading events after line %d: %w", d.line, err)
		}
		return d.err
	}
	d.err = io.EOF
	return d.err
}
