// Package gzfs serves a tree of gzipped files as the plain files they
// hold: the production binary embeds the built frontend gzipped (issue 20:
// the binary is resident in memory in full, and 1.3 MB of plain assets are
// 0.4 MB gzipped), and the asset server reads it through this.
//
// A file NAME is stored as NAME.gz; Open("NAME") inflates it whole into
// memory and returns a seekable file of the plain bytes (the asset server
// sniffs the first bytes, then seeks back). Directories are the tree's own,
// listed with the .gz suffixes removed.
package gzfs

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// Suffix ends every stored file's name.
const Suffix = ".gz"

// FS is the plain view of a tree of gzipped files.
type FS struct {
	gz fs.FS
}

// New returns the plain view of gz.
func New(gz fs.FS) FS { return FS{gz: gz} }

// Open opens a directory of the tree, or inflates NAME.gz.
func (f FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if st, err := fs.Stat(f.gz, name); err == nil && st.IsDir() {
		d, err := f.gz.Open(name)
		if err != nil {
			return nil, err
		}
		return &dir{File: d, fsys: f, name: name}, nil
	}
	data, mod, err := f.inflate(name)
	if err != nil {
		return nil, err
	}
	return &file{Reader: bytes.NewReader(data), info: info{name: path.Base(name), size: int64(len(data)), mod: mod}}, nil
}

// ReadDir lists a directory with the plain names.
func (f FS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(f.gz, name)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e)
			continue
		}
		if plain, ok := strings.CutSuffix(e.Name(), Suffix); ok {
			out = append(out, entry{fsys: f, path: path.Join(name, plain)})
		}
	}
	return out, nil
}

// inflate reads NAME.gz whole.
func (f FS) inflate(name string) ([]byte, time.Time, error) {
	src, err := f.gz.Open(name + Suffix)
	if err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	defer src.Close()
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("gzfs: %s: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("gzfs: %s: %w", name, err)
	}
	return data, zr.ModTime, nil
}

// stat describes NAME.gz's plain file without inflating it: gzip's
// trailer holds the plain size (mod 4 GiB), its header the time.
func (f FS) stat(name string) (fs.FileInfo, error) {
	b, err := fs.ReadFile(f.gz, name+Suffix)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil || len(b) < 4 {
		return nil, fmt.Errorf("gzfs: %s: not gzip: %v", name, err)
	}
	size := binary.LittleEndian.Uint32(b[len(b)-4:])
	return info{name: path.Base(name), size: int64(size), mod: zr.ModTime}, nil
}

// entry is a listed file; its Info reads the gzip trailer.
type entry struct {
	fsys FS
	path string
}

func (e entry) Name() string               { return path.Base(e.path) }
func (e entry) IsDir() bool                { return false }
func (e entry) Type() fs.FileMode          { return 0 }
func (e entry) Info() (fs.FileInfo, error) { return e.fsys.stat(e.path) }

// file is an inflated file.
type file struct {
	*bytes.Reader
	info info
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

// dir is a directory of the tree; ReadDir lists the plain names.
type dir struct {
	fs.File
	fsys    FS
	name    string
	entries []fs.DirEntry
	loaded  bool
}

func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.loaded {
		entries, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.loaded = entries, true
	}
	if n <= 0 {
		rest := d.entries
		d.entries = nil
		return rest, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}

// info describes an inflated file (size: its plain size).
type info struct {
	name string
	size int64
	mod  time.Time
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return 0o444 }
func (i info) ModTime() time.Time { return i.mod }
func (i info) IsDir() bool        { return false }
func (i info) Sys() any           { return nil }
