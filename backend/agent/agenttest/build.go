package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built are the fake agents BuildOnce built in this test binary, by
// package and name, and the directories they are in.
var built struct {
	sync.Mutex
	paths map[string]string
	errs  map[string]error
	dirs  []string
}

// BuildOnce builds the Go package pkg (as `go build` takes it, from the
// test's directory) into an executable named name, once per test binary,
// in a temporary directory, and returns its path. The package's TestMain
// is Main(m), which removes the directories after the tests.
func BuildOnce(t testing.TB, pkg, name string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	key := pkg + "\x00" + name
	if p, ok := built.paths[key]; ok {
		return p
	}
	if err, ok := built.errs[key]; ok {
		t.Fatalf("building %s: %v", pkg, err)
	}
	path, err := buildInto(pkg, name)
	if built.paths == nil {
		built.paths, built.errs = map[string]string{}, map[string]error{}
	}
	if err != nil {
		built.errs[key] = err
		t.Fatalf("building %s: %v", pkg, err)
	}
	built.paths[key] = path
	return path
}

func buildInto(pkg, name string) (string, error) {
	dir, err := os.MkdirTemp("", "jc-fake-"+name+"-")
	if err != nil {
		return "", err
	}
	built.dirs = append(built.dirs, dir)
	path := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return path, nil
}

// Main runs a package's tests, removes what BuildOnce built and exits with
// their status: a TestMain that has nothing else to do is Main(m).
func Main(m *testing.M) {
	code := m.Run()
	removeBuilt()
	os.Exit(code)
}

// removeBuilt removes what BuildOnce built (each binary left its ~4 MB
// directory in the temp directory at every test run).
func removeBuilt() {
	built.Lock()
	defer built.Unlock()
	for _, d := range built.dirs {
		os.RemoveAll(d)
	}
	built.dirs, built.paths, built.errs = nil, nil, nil
}
