package pdfread

import (
	"errors"
	"fmt"
	"strconv"
)

// Object is a PDF object: nil, bool, int64, float64, String, Name,
// Array, Dict, Ref or *Stream.
type Object any

// Name is a PDF name without its slash.
type Name string

// String is a PDF string's bytes.
type String []byte

// Array is a PDF array.
type Array []Object

// Dict is a PDF dictionary.
type Dict map[Name]Object

// Ref is an indirect reference.
type Ref struct{ Num, Gen int }

// Stream is a stream object: its dictionary and its undecoded bytes.
type Stream struct {
	Dict Dict
	Raw  []byte
	ref  Ref
}

// ErrUnsupported marks input this package does not read but PDFium may:
// callers fall back.
var ErrUnsupported = errors.New("pdfread: unsupported")

// ErrMalformed marks input that breaks the PDF syntax or a limit.
var ErrMalformed = errors.New("pdfread: malformed")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Limits bound the work done on one file.
const (
	maxDepth        = 64       // nesting of arrays and dictionaries
	maxDecoded      = 64 << 20 // bytes of one decoded stream
	maxFormDepth    = 12       // Form XObjects inside each other
	maxOpsPerPage   = 4 << 20  // content tokens read for one page
	maxPageTreeSize = 1 << 20  // nodes visited in the page tree
	maxRefChain     = 32       // references followed to reach an object
	maxCharsPerPage = 1 << 20
)

func num(o Object) (float64, bool) {
	switch v := o.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func (r Ref) String() string { return strconv.Itoa(r.Num) + " " + strconv.Itoa(r.Gen) + " R" }
