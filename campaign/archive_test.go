package campaign

import (
	"archive/tar"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/internal/archivetest"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/tokens"
)

type entry = archivetest.Entry

// dirEntries lists a directory's files as archive entries under prefix.
func dirEntries(t testing.TB, dir, prefix string) []entry {
	t.Helper()
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entry{Name: prefix + filepath.ToSlash(rel), Body: string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tarGz(t testing.TB, entries []entry) []byte { return archivetest.TarGz(t, entries) }

func zipOf(t testing.TB, entries []entry) []byte { return archivetest.Zip(t, entries) }

func writeArchive(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fingerprint is what must not change with how a pack is stored.
func fingerprint(t testing.TB, p *Pack) string {
	t.Helper()
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(struct {
		M pack.Manifest
		F []File
		B []Beat
		A []Asset
		C any
		K any
	}{p.Manifest, p.Files, p.Beats, p.Assets, p.Content.Characters, p.Chunks(tok)})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestArchivesLoadLikeTheDirectory(t *testing.T) {
	dir := loadPack(t, bestiary)
	want := fingerprint(t, dir)
	flat := dirEntries(t, bestiary, "")
	nested := dirEntries(t, bestiary, "bestiary/") // made from the pack's folder
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"pack.tar.gz", tarGz(t, flat)},
		{"pack.tgz", tarGz(t, nested)},
		{"bestiary.campaign.gz", tarGz(t, flat)},
		{"pack.zip", zipOf(t, flat)},
		{"nested.zip", zipOf(t, nested)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := loadPack(t, writeArchive(t, tt.name, tt.b))
			if got := fingerprint(t, p); got != want {
				t.Errorf("loads differently from the directory:\n got %.300s\nwant %.300s", got, want)
			}
		})
	}
	// A campaign from an archive plays like the directory.
	c := loadPack(t, writeArchive(t, "saltmere.zip", zipOf(t, dirEntries(t, saltmere, ""))))
	if c.Content.Meta.Title != "The Lantern of Saltmere" || len(c.Content.Locations) != 7 {
		t.Errorf("saltmere from a zip: %+v", c.Content.Meta)
	}
}

func TestHostileArchives(t *testing.T) {
	ok := []entry{{Name: "pack.yml", Body: "id: x\nversion: 1.0.0\nlicense: MIT\n"}}
	with := func(es ...entry) []entry { return append(append([]entry{}, ok...), es...) }
	tests := []struct {
		name, file string
		b          []byte
		want       string
	}{
		{"dot-dot in tar", "evil.tar.gz", tarGz(t, with(entry{Name: "../evil.md", Body: "x"})),
			`entry "../evil.md" reaches outside the archive (..)`},
		{"dot-dot in zip", "evil.zip", zipOf(t, with(entry{Name: "lore/../../evil.md", Body: "x"})),
			`entry "lore/../../evil.md" reaches outside the archive (..)`},
		{"absolute path", "abs.tar.gz", tarGz(t, with(entry{Name: "/etc/passwd", Body: "x"})),
			`entry "/etc/passwd" has an absolute path`},
		{"windows path", "win.zip", zipOf(t, with(entry{Name: `C:\evil.md`, Body: "x"})),
			`use / between folders`},
		{"symlink in tar", "link.tar.gz", tarGz(t, with(entry{Name: "lore.md", Type: tar.TypeSymlink, Link: "/etc/passwd"})),
			`entry "lore.md" is a link (to "/etc/passwd"); archives may hold only files and folders`},
		{"hard link in tar", "hard.tar.gz", tarGz(t, with(entry{Name: "lore.md", Type: tar.TypeLink, Link: "pack.yml"})),
			`entry "lore.md" is a link`},
		{"symlink in zip", "link.zip", zipOf(t, with(entry{Name: "lore.md", Body: "/etc/passwd", Mode: fs.ModeSymlink | 0o777})),
			`entry "lore.md" is a link`},
		{"device in tar", "dev.tar.gz", tarGz(t, with(entry{Name: "null", Type: tar.TypeChar})),
			`entry "null" is a device or pipe`},
		{"duplicate", "dup.zip", zipOf(t, with(ok[0])), `entry "pack.yml" appears twice`},
		{"not an archive", "pack.zip", []byte("just text"), "not a directory, a gzip tar (.tar.gz, .tgz, .campaign.gz) or a zip archive"},
		{"zip bomb", "bomb.zip", zipOf(t, with(entry{Name: "lore.md", Body: strings.Repeat("\x00", pack.MaxFileSize+1)})),
			`entry "lore.md" is over 1048576 bytes uncompressed, the limit for one file; stopped reading it`},
		{"gzip bomb", "bomb.tar.gz", tarGz(t, with(entry{Name: "lore.md", Body: strings.Repeat("a", pack.MaxFileSize+1)})),
			`entry "lore.md" is over 1048576 bytes uncompressed, the limit for one file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeArchive(t, tt.file, tt.b)
			_, err := LoadPack(context.Background(), path)
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q\nwant it to name %s and say %q", err, path, tt.want)
			}
		})
	}
	// The bomb is small on disk: the limit is on what it unpacks to.
	if b := zipOf(t, with(entry{Name: "lore.md", Body: strings.Repeat("\x00", pack.MaxFileSize+1)})); len(b) > 8<<10 {
		t.Errorf("the test's zip bomb is %d bytes; it should compress well", len(b))
	}
}
