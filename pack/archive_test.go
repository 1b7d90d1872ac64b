package pack

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/internal/archivetest"
)

type entry = archivetest.Entry

// dirEntries lists a directory's files as archive entries under prefix.
func tarGz(t testing.TB, entries []entry) []byte { return archivetest.TarGz(t, entries) }

func zipOf(t testing.TB, entries []entry) []byte { return archivetest.Zip(t, entries) }

func TestArchiveLimits(t *testing.T) {
	lim := limits{files: 3, fileSize: 100, assetSize: 1000, total: 250}
	tests := []struct {
		name    string
		entries []entry
		want    string
	}{
		{"total", []entry{{Name: "a.md", Body: strings.Repeat("a", 100)}, {Name: "b.md", Body: strings.Repeat("b", 100)}, {Name: "c.md", Body: strings.Repeat("c", 100)}},
			"more than 250 bytes uncompressed, the limit for a whole pack; stopped reading at c.md"},
		{"entries", []entry{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}, "more than 3 entries, the limit"},
		{"asset", []entry{{Name: "art/a.png", Body: strings.Repeat("p", 240)}}, ""},
		{"file", []entry{{Name: "a.md", Body: strings.Repeat("a", 101)}}, `entry "a.md" is over 100 bytes`},
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
	fsys, err := ReadArchive(context.Background(), zipOf(t, []entry{{Name: "a/b/c.md", Body: "c"}, {Name: "a/d.md", Body: "d"}, {Name: "e/", Body: ""}}))
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
