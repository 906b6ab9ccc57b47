package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWritePrivateOverWiderFile: the file is 0600 even when it replaces a
// 0644 one, and holds the new data.
func TestWritePrivateOverWiderFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" || fi.Mode().Perm() != Private {
		t.Fatalf("%q mode %v, want \"new\" mode %v", b, fi.Mode().Perm(), os.FileMode(Private))
	}
}

// TestConcurrentWritersNeverTear: writers of one path at once (each its own
// content) leave one whole content, never a mix or a short file, and no
// temporary file behind. A fixed temporary name (path + ".tmp", as four
// of the app's writers used) fails this: one writer renames another's
// half-written file, or finds its own temporary gone.
func TestConcurrentWritersNeverTear(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "meta.json")
	const writers, rounds, size = 8, 50, 64 << 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		data := bytes.Repeat([]byte{byte('a' + w)}, size)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				if err := Write(p, data); err != nil {
					errs <- err
				}
				b, err := os.ReadFile(p)
				if err != nil || len(b) != size || bytes.Count(b, b[:1]) != size {
					errs <- fmt.Errorf("read %d bytes (%v), not one writer's whole content", len(b), err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files left: %d, want only meta.json", len(ents))
	}
}

// TestFailedWriteKeepsOldContent: a write that cannot finish (here the
// destination is a directory: the rename fails) says why, keeps what was
// there and leaves no temporary file.
func TestFailedWriteKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "taken")
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "inside"), []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Write(p, []byte("new"))
	if err == nil {
		t.Fatal("wrote over a directory")
	}
	if b, _ := os.ReadFile(filepath.Join(p, "inside")); string(b) != "kept" {
		t.Fatalf("old content lost: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files left: %d, want the directory only", len(ents))
	}
}

// TestMissingDirIsNotExist: the error of a write into a missing directory
// is errors.Is fs.ErrNotExist (callers create their directory first).
func TestMissingDirIsNotExist(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "none", "f.json"), []byte("x"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want fs.ErrNotExist", err)
	}
}
