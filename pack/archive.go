package pack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// limits bound what an archive may unpack to, so a hostile one (a zip
// bomb, a million empty entries) stops with an error instead of filling
// memory.
type limits struct {
	files     int   // entries
	fileSize  int64 // one text or structured file
	assetSize int64 // one image, sound or video
	total     int64 // all entries, uncompressed
}

var defaultLimits = limits{files: MaxFiles, fileSize: MaxFileSize, assetSize: MaxAssetSize, total: MaxPackSize}

// OpenArchive reads a .tar.gz, .tgz, .campaign.gz or .zip into memory and
// returns it as a file system. Nothing is written to disk. Entries may
// not be links or devices, nor name absolute paths or reach above the
// archive's root; sizes are checked as the bytes come, never trusted
// from headers.
func OpenArchive(ctx context.Context, name string) (fs.FS, error) {
	return openArchive(ctx, name, defaultLimits)
}

func openArchive(ctx context.Context, name string, lim limits) (fs.FS, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("pack %s: %w", name, err)
	}
	var fsys *memFS
	switch {
	case n >= 4 && string(magic[:4]) == "PK\x03\x04", n >= 4 && string(magic[:4]) == "PK\x05\x06":
		fsys, err = readZip(ctx, f, fi.Size(), lim)
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		fsys, err = readTarGz(ctx, f, lim)
	default:
		return nil, fmt.Errorf("pack %s: not a directory, a gzip tar (.tar.gz, .tgz, .campaign.gz) or a zip archive", name)
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", name, err)
	}
	return fsys, nil
}

// ReadArchive reads an archive's bytes as OpenArchive reads a file, with
// the default limits. It is what the fuzz target exercises, and what a
// server can use for an upload.
func ReadArchive(ctx context.Context, b []byte) (fs.FS, error) {
	var (
		fsys *memFS
		err  error
	)
	switch {
	case bytes.HasPrefix(b, []byte("PK")):
		fsys, err = readZip(ctx, bytes.NewReader(b), int64(len(b)), defaultLimits)
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		fsys, err = readTarGz(ctx, bytes.NewReader(b), defaultLimits)
	default:
		return nil, errors.New("not a gzip tar or a zip archive")
	}
	if err != nil {
		return nil, err
	}
	return fsys, nil
}

// unpacker adds checked entries to a memFS.
type unpacker struct {
	ctx   context.Context
	lim   limits
	fs    *memFS
	total int64
}

func newUnpacker(ctx context.Context, lim limits) *unpacker {
	return &unpacker{ctx: ctx, lim: lim, fs: newMemFS()}
}

// entryName checks an entry's name and returns it cleaned; dir reports a
// directory entry.
func entryName(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("an entry has an empty or invalid name")
	}
	if strings.Contains(name, `\`) {
		return "", fmt.Errorf("entry %q: use / between folders, not \\", name)
	}
	if path.IsAbs(name) || (len(name) > 1 && name[1] == ':') {
		return "", fmt.Errorf("entry %q has an absolute path; an archive's paths are relative to its root", name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", fmt.Errorf("entry %q reaches outside the archive (..); an archive's paths stay inside its root", name)
		}
	}
	clean := path.Clean(strings.TrimPrefix(name, "./"))
	if clean == "." {
		return "", nil
	}
	if !fs.ValidPath(clean) {
		return "", fmt.Errorf("entry %q is not a valid path", name)
	}
	return clean, nil
}

// add reads one regular file, enforcing the limits on what is actually
// read.
func (u *unpacker) add(name string, r io.Reader) error {
	if err := u.ctx.Err(); err != nil {
		return err
	}
	clean, err := entryName(name)
	if err != nil {
		return err
	}
	if clean == "" {
		return nil
	}
	if len(u.fs.files) >= u.lim.files {
		return fmt.Errorf("more than %d entries, the limit", u.lim.files)
	}
	if _, dup := u.fs.files[clean]; dup {
		return fmt.Errorf("entry %q appears twice", clean)
	}
	limit := u.lim.fileSize
	if AssetType(strings.ToLower(path.Ext(clean))) != "" {
		limit = u.lim.assetSize
	}
	byTotal := u.lim.total-u.total < limit
	limit = min(limit, u.lim.total-u.total)
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return fmt.Errorf("entry %q: %w", clean, err)
	}
	if int64(len(b)) > limit {
		if byTotal {
			return fmt.Errorf("more than %d bytes uncompressed, the limit for a whole pack; stopped reading at %s", u.lim.total, clean)
		}
		return fmt.Errorf("entry %q is over %d bytes uncompressed, the limit for one file; stopped reading it", clean, limit)
	}
	u.total += int64(len(b))
	return u.fs.add(clean, b)
}

func (u *unpacker) dir(name string) error {
	clean, err := entryName(name)
	if err != nil || clean == "" {
		return err
	}
	return u.fs.mkdir(clean)
}

func readTarGz(ctx context.Context, r io.Reader, lim limits) (*memFS, error) {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	u := newUnpacker(ctx, lim)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the tar: %w", err)
		}
		switch h.Typeflag {
		case tar.TypeReg: // the reader reports old-style regular files (TypeRegA) as TypeReg
			if err := u.add(h.Name, tr); err != nil {
				return nil, err
			}
		case tar.TypeDir:
			if err := u.dir(h.Name); err != nil {
				return nil, err
			}
		case tar.TypeSymlink, tar.TypeLink:
			return nil, fmt.Errorf("entry %q is a link (to %q); archives may hold only files and folders", h.Name, h.Linkname)
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return nil, fmt.Errorf("entry %q is a device or pipe; archives may hold only files and folders", h.Name)
		default:
			return nil, fmt.Errorf("entry %q has tar type %q, which is not a file or folder", h.Name, string(h.Typeflag))
		}
	}
	return u.fs, nil
}

func readZip(ctx context.Context, r io.ReaderAt, size int64, lim limits) (*memFS, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("reading the zip: %w", err)
	}
	if len(zr.File) > lim.files {
		return nil, fmt.Errorf("more than %d entries, the limit", lim.files)
	}
	u := newUnpacker(ctx, lim)
	for _, f := range zr.File {
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("entry %q is a link; archives may hold only files and folders", f.Name)
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			if err := u.dir(f.Name); err != nil {
				return nil, err
			}
			continue
		case !mode.IsRegular():
			return nil, fmt.Errorf("entry %q is a device or pipe; archives may hold only files and folders", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", f.Name, err)
		}
		err = u.add(f.Name, rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	return u.fs, nil
}

// ArchiveRoot is where a pack sits in an unpacked archive: its root, or
// the one folder that holds everything when the archive was made from
// the pack's folder (mypack/pack.yml).
func ArchiveRoot(fsys fs.FS) string {
	for _, n := range manifestNames {
		if _, err := fs.Stat(fsys, n); err == nil {
			return "."
		}
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err == nil && len(entries) == 1 && entries[0].IsDir() {
		return entries[0].Name()
	}
	return "."
}
