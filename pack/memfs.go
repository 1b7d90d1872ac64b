package pack

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"time"
)

// memFS is a read-only file system held in memory: an unpacked archive.
type memFS struct {
	files map[string][]byte
	dirs  map[string][]string // directory → names of its entries
}

func newMemFS() *memFS {
	return &memFS{files: map[string][]byte{}, dirs: map[string][]string{".": nil}}
}

// add stores a file, making its parent directories.
func (m *memFS) add(name string, b []byte) error {
	if _, isDir := m.dirs[name]; isDir {
		return fmt.Errorf("entry %q is both a file and a folder", name)
	}
	if err := m.mkdir(path.Dir(name)); err != nil {
		return err
	}
	m.files[name] = b
	m.link(name)
	return nil
}

func (m *memFS) mkdir(name string) error {
	if _, ok := m.dirs[name]; ok {
		return nil
	}
	if _, isFile := m.files[name]; isFile {
		return fmt.Errorf("entry %q is both a file and a folder", name)
	}
	if err := m.mkdir(path.Dir(name)); err != nil {
		return err
	}
	m.dirs[name] = nil
	m.link(name)
	return nil
}

// link lists name in its parent directory.
func (m *memFS) link(name string) {
	if name == "." {
		return
	}
	parent := path.Dir(name)
	m.dirs[parent] = append(m.dirs[parent], path.Base(name))
}

func (m *memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := m.files[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(b))}, r: bytes.NewReader(b)}, nil
	}
	if _, ok := m.dirs[name]; ok {
		return &memDir{info: memInfo{name: path.Base(name), dir: true}, fs: m, path: name}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	info memInfo
	fs   *memFS
	path string
	read int // entries already returned by ReadDir
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

// ReadDir returns the directory's entries sorted by name.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	names := slices.Sorted(slices.Values(d.fs.dirs[d.path]))
	var all []fs.DirEntry
	for _, name := range names {
		full := name
		if d.path != "." {
			full = d.path + "/" + name
		}
		info := memInfo{name: name}
		if _, ok := d.fs.dirs[full]; ok {
			info.dir = true
		} else {
			info.size = int64(len(d.fs.files[full]))
		}
		all = append(all, fs.FileInfoToDirEntry(info))
	}
	rest := all[min(d.read, len(all)):]
	if n <= 0 {
		d.read = len(all)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.read += len(rest)
	return rest, nil
}

var _ fs.ReadDirFile = (*memDir)(nil)
