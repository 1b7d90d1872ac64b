package ingest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Formats a Document can come from.
const (
	PDF      = "pdf"
	EPUB     = "epub"
	Markdown = "markdown"
	Text     = "text"
)

// Detect names the format of a file from its leading bytes, then its
// extension. Magic numbers win over names: a PDF called .txt is a PDF.
func Detect(name string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return PDF, nil
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		if ext == ".epub" || bytes.Contains(data[:min(len(data), 128)], []byte("application/epub+zip")) {
			return EPUB, nil
		}
		return "", fmt.Errorf("%s: %w: a zip archive that is not an EPUB", name, ErrUnsupported)
	}
	switch ext {
	case ".pdf":
		return "", fmt.Errorf("%s: %w: the name says PDF but it does not start with %%PDF-", name, ErrCorrupt)
	case ".epub":
		return "", fmt.Errorf("%s: %w: the name says EPUB but it is not a zip archive", name, ErrCorrupt)
	case ".md", ".markdown", ".mdown":
		return checkText(name, Markdown, data)
	case ".txt", ".text", "":
		return checkText(name, Text, data)
	}
	return "", fmt.Errorf("%s: %w %q: Hearth reads .pdf, .epub, .md and .txt files", name, ErrUnsupported, ext)
}

// checkText refuses binary data under a text name.
func checkText(name, format string, data []byte) (string, error) {
	head := data
	if len(head) > 4096 { // a prefix: a rune may be cut at its end
		head = trimPartialRune(head[:4096])
	}
	if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head) {
		return "", fmt.Errorf("%s: %w: it is not UTF-8 text", name, ErrCorrupt)
	}
	return format, nil
}

// trimPartialRune drops a rune cut in half at the end of a prefix, and
// no more than that.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}
