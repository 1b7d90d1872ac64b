package ingest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
		err  error
	}{
		{"book.pdf", "%PDF-1.7 ...", PDF, nil},
		{"book.txt", "%PDF-1.4 ...", PDF, nil}, // bytes win over names
		{"book.epub", "PK\x03\x04rest", EPUB, nil},
		{"book.zip", "PK\x03\x04\x14\x00mimetypeapplication/epub+zip", EPUB, nil},
		{"book.zip", "PK\x03\x04 plain zip", "", ErrUnsupported},
		{"notes.md", "# Title", Markdown, nil},
		{"notes.MARKDOWN", "# Title", Markdown, nil},
		{"notes.txt", "plain", Text, nil},
		{"README", "plain", Text, nil},
		{"book.pdf", "not a pdf", "", ErrCorrupt},
		{"book.epub", "not a zip", "", ErrCorrupt},
		{"notes.txt", "bin\x00ary", "", ErrCorrupt},
		{"notes.md", "\xff\xfe\x80", "", ErrCorrupt},
		{"sheet.docx", "x", "", ErrUnsupported},
		{"empty.md", "", "", ErrEmpty},
	}
	for _, tt := range tests {
		got, err := Detect(tt.name, []byte(tt.data))
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Detect(%q, %.12q) = %q, %v; want %q, %v", tt.name, tt.data, got, err, tt.want, tt.err)
		}
		if err != nil && !strings.Contains(err.Error(), tt.name) {
			t.Errorf("error %q does not name the file", err)
		}
	}
}

func TestRegistry(t *testing.T) {
	var r Registry
	if _, err := r.Lookup(PDF); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("empty registry: %v", err)
	}
	want := &Document{Title: "x"}
	r.Register(Text, ExtractorFunc(func(context.Context, []byte, func(int, int)) (*Document, error) { return want, nil }))
	r.Register(EPUB, ExtractorFunc(nil))
	if !slices.Equal(r.Formats(), []string{EPUB, Text}) {
		t.Errorf("formats = %v", r.Formats())
	}
	e, err := r.Lookup(Text)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Extract(context.Background(), nil, nil); got != want {
		t.Errorf("the registered extractor was not returned")
	}
	if _, err := r.Lookup(PDF); err == nil || !strings.Contains(err.Error(), "[epub text]") {
		t.Errorf("lookup error should list the formats: %v", err)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("a.pdf", []byte("%PDF-1.7"))
	f.Add("a.epub", []byte("PK\x03\x04"))
	f.Add("a.md", []byte("# x"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		format, err := Detect(name, data)
		if (format == "") == (err == nil) {
			t.Fatalf("Detect(%q) = %q, %v", name, format, err)
		}
	})
}
