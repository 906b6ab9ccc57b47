package gzfs_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/jean-claude/jean-claude/backend/gzfs"
)

func gz(t *testing.T, s string) *fstest.MapFile {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &fstest.MapFile{Data: b.Bytes()}
}

func tree(t *testing.T) fstest.MapFS {
	return fstest.MapFS{
		"index.html.gz":      gz(t, "<!doctype html><p>hello</p>"),
		"assets/index.js.gz": gz(t, "console.log(1)"),
		"assets/a.css.gz":    gz(t, "p{}"),
		".gitkeep":           &fstest.MapFile{}, // not gzipped: not listed
	}
}

// TestFS: the plain view passes the standard library's file system checks
// (open, stat, read, seek, directory listings agree) with the plain names.
func TestFS(t *testing.T) {
	if err := fstest.TestFS(gzfs.New(tree(t)), "index.html", "assets/index.js", "assets/a.css"); err != nil {
		t.Fatal(err)
	}
}

func TestOpenInflates(t *testing.T) {
	f, err := gzfs.New(tree(t)).Open("assets/index.js")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	data, _ := io.ReadAll(f)
	if string(data) != "console.log(1)" || st.Size() != int64(len(data)) || st.Name() != "index.js" {
		t.Errorf("read %q, stat %s %d", data, st.Name(), st.Size())
	}
	// The asset server sniffs, then seeks back.
	if _, err := f.(io.Seeker).Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if again, _ := io.ReadAll(f); string(again) != string(data) {
		t.Errorf("after seek: %q", again)
	}
}

func TestMissingAndPlainFiles(t *testing.T) {
	fsys := gzfs.New(tree(t))
	for _, name := range []string{"nope.js", "index.html.gz", ".gitkeep"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want not exist", name, err)
		}
	}
	if _, err := fs.Stat(fsys, "index.html"); err != nil {
		t.Errorf("Stat(index.html): %v", err) // how the asset server finds the root
	}
}

func TestCorruptIsAnError(t *testing.T) {
	fsys := gzfs.New(fstest.MapFS{"x.js.gz": &fstest.MapFile{Data: []byte("not gzip")}})
	if _, err := fsys.Open("x.js"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a corrupt file = %v, want an error other than not-exist", err)
	}
}
