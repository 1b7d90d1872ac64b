package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// entry is one archive member; the zero Type is a regular file.
type entry struct {
	name, body, link string
	typ              byte // tar type flag
	mode             fs.FileMode
}

// dirEntries lists a directory's files as archive entries under prefix.
func tarGz(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644}
		if e.typ == 0 {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipOf(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestArchiveLimits(t *testing.T) {
	lim := limits{files: 3, fileSize: 100, assetSize: 1000, total: 250}
	tests := []struct {
		name    string
		entries []entry
		want    string
	}{
		{"total", []entry{{name: "a.md", body: strings.Repeat("a", 100)}, {name: "b.md", body: strings.Repeat("b", 100)}, {name: "c.md", body: strings.Repeat("c", 100)}},
			"more than 250 bytes uncompressed, the limit for a whole pack; stopped reading at c.md"},
		{"entries", []entry{{name: "a"}, {name: "b"}, {name: "c"}, {name: "d"}}, "more than 3 entries, the limit"},
		{"asset", []entry{{name: "art/a.png", body: strings.Repeat("p", 240)}}, ""},
		{"file", []entry{{name: "a.md", body: strings.Repeat("a", 101)}}, `entry "a.md" is over 100 bytes`},
	}
	for _, tt := range tests {
		for _, kind := range []string{"zip", "tar"} {
			var fsys *memFS
			var err error
			if kind == "zip" {
				b := zipOf(t, tt.entries)
				fsys, err = readZip(context.Background(), bytes.NewReader(b), int64(len(b)), lim)
			} else {
				fsys, err = readTarGz(context.Background(), bytes.NewReader(tarGz(t, tt.entries)), lim)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s %s: %v", tt.name, kind, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("%s %s: error %v, want %q", tt.name, kind, err, tt.want)
			case tt.want == "":
				if b, err := fs.ReadFile(fsys, "art/a.png"); err != nil || len(b) != 240 {
					t.Errorf("%s %s: read back %d bytes, %v", tt.name, kind, len(b), err)
				}
			}
		}
	}
}

func TestMemFS(t *testing.T) {
	fsys, err := ReadArchive(context.Background(), zipOf(t, []entry{{name: "a/b/c.md", body: "c"}, {name: "a/d.md", body: "d"}, {name: "e/", body: ""}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		got = append(got, p)
		return err
	})
	if err != nil || strings.Join(got, " ") != ". a a/b a/b/c.md a/d.md e" {
		t.Errorf("walk: %v %v", got, err)
	}
	if b, err := fs.ReadFile(fsys, "a/b/c.md"); err != nil || string(b) != "c" {
		t.Errorf("read: %q %v", b, err)
	}
	if _, err := fsys.Open("../x"); err == nil {
		t.Error("opened ../x")
	}
}
