package epub

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
)

// Limits cap what one book may unpack to. The zero value of a field means
// its default.
type Limits struct {
	MaxEntries    int   // entries in the archive; default 10,000
	MaxEntryBytes int64 // uncompressed bytes of one entry; default 32 MiB
	MaxTotalBytes int64 // uncompressed bytes read in all; default 256 MiB
	MaxImages     int   // images kept per book; default 500, negative: none
}

func (l Limits) norm() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = 10_000
	}
	if l.MaxEntryBytes <= 0 {
		l.MaxEntryBytes = 32 << 20
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 256 << 20
	}
	if l.MaxImages == 0 {
		l.MaxImages = 500
	}
	return l
}

// archive is an opened EPUB zip with its limits and what was read so far.
type archive struct {
	files  map[string]*zip.File
	limits Limits
	read   int64
}

func openArchive(data []byte, l Limits) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable zip archive (%v); it may be truncated", ingest.ErrCorrupt, err)
	}
	if len(zr.File) > l.MaxEntries {
		return nil, fmt.Errorf("%w: the archive has %d entries, more than the %d allowed", ingest.ErrTooLarge, len(zr.File), l.MaxEntries)
	}
	a := &archive{files: make(map[string]*zip.File, len(zr.File)), limits: l}
	var declared uint64
	for _, f := range zr.File {
		if err := checkName(f.Name); err != nil {
			return nil, err
		}
		declared += f.UncompressedSize64
		if f.UncompressedSize64 > uint64(l.MaxEntryBytes) {
			return nil, fmt.Errorf("%w: entry %q unpacks to %d bytes, more than the %d allowed for one entry", ingest.ErrTooLarge, f.Name, f.UncompressedSize64, l.MaxEntryBytes)
		}
		a.files[f.Name] = f
	}
	if declared > uint64(l.MaxTotalBytes) {
		return nil, fmt.Errorf("%w: the archive unpacks to %d bytes, more than the %d allowed", ingest.ErrTooLarge, declared, l.MaxTotalBytes)
	}
	return a, nil
}

// checkName refuses entry names that would leave the archive if unpacked.
func checkName(name string) error {
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return fmt.Errorf("%w: entry %q has an absolute path; refusing the archive", ingest.ErrCorrupt, name)
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == ".." {
			return fmt.Errorf("%w: entry %q climbs out of the archive with ../; refusing it", ingest.ErrCorrupt, name)
		}
	}
	return nil
}

// resolve turns href, relative to the file base, into an archive path,
// refusing one that leaves the archive.
func resolve(base, href string) (string, error) {
	if i := strings.IndexAny(href, "#?"); i >= 0 {
		href = href[:i]
	}
	if strings.Contains(href, "://") || strings.HasPrefix(href, "/") {
		return "", fmt.Errorf("%w: reference %q is not inside the book", ingest.ErrCorrupt, href)
	}
	href = unescape(href)
	p := path.Join(path.Dir(base), href)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%w: reference %q from %s leaves the book", ingest.ErrCorrupt, href, base)
	}
	return p, nil
}

// unescape decodes %XX escapes in an href, leaving malformed ones as they
// are: a name with a stray % is still a name.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// open reads one entry whole, enforcing the limits on the bytes actually
// inflated: the sizes in the zip directory can lie.
func (a *archive) open(name string) ([]byte, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s is missing from the book", ingest.ErrCorrupt, name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %v", ingest.ErrCorrupt, name, err)
	}
	defer rc.Close()
	limit := min(a.limits.MaxEntryBytes, a.limits.MaxTotalBytes-a.read)
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	a.read += int64(len(b))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: read %s: %v; the book may be truncated", ingest.ErrCorrupt, name, err)
	case int64(len(b)) > limit:
		return nil, fmt.Errorf("%w: %s unpacks to more than %d bytes (limits: %d per entry, %d in all)", ingest.ErrTooLarge, name, limit, a.limits.MaxEntryBytes, a.limits.MaxTotalBytes)
	}
	return b, nil
}
