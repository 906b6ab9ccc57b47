package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
)

// The binary is copied once, verified, reused, replaced when outdated or
// corrupted, and the cached copy runs on the host.
func TestDeploy(t *testing.T) {
	p, srv := newPool(t)
	c, _ := p.Client(sshdtest.Alias)
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "jean-claude")
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\necho v1 \"$@\"\n"), 0o755))

	d, err := c.Deploy(ctx, bin)
	if err != nil || !d.Copied {
		t.Fatalf("first Deploy = %+v, %v", d, err)
	}
	wantDir := filepath.Join(srv.Home, ".cache", "jean-claude", "bin")
	if d.Path != filepath.Join(wantDir, d.SHA256) {
		t.Fatalf("path = %s, want under %s", d.Path, wantDir)
	}
	out, err := c.Output(ctx, d.Path, "relay")
	if err != nil || strings.TrimSpace(string(out)) != "v1 relay" {
		t.Fatalf("run cached binary: %q %v", out, err)
	}
	if d2, err := c.Deploy(ctx, bin); err != nil || d2.Copied || d2.Path != d.Path {
		t.Fatalf("second Deploy = %+v, %v (want reuse)", d2, err)
	}
	// Corrupted cache entry: copied again.
	must(t, os.WriteFile(d.Path, []byte("garbage"), 0o700))
	if d3, err := c.Deploy(ctx, bin); err != nil || !d3.Copied {
		t.Fatalf("Deploy over corrupt copy = %+v, %v", d3, err)
	}
	// A new build: a new entry.
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\necho v2\n"), 0o755))
	d4, err := c.Deploy(ctx, bin)
	if err != nil || !d4.Copied || d4.Path == d.Path {
		t.Fatalf("Deploy of new build = %+v, %v", d4, err)
	}
	ents, _ := os.ReadDir(wantDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".upload-") {
			t.Errorf("temporary upload left: %s", e.Name())
		}
	}
	st, _ := os.Stat(d4.Path)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("mode = %v", st.Mode())
	}
}

func TestBinaryFor(t *testing.T) {
	dir := t.TempDir()
	if p, err := BinaryFor(runtimeGOOS, runtimeGOARCH, "/self", dir); err != nil || p != "/self" {
		t.Fatalf("same platform: %s %v", p, err)
	}
	if _, err := BinaryFor("linux", "riscv64", "/self", dir); err == nil {
		t.Fatal("no cross build: want ErrNoBinary")
	}
	cross := filepath.Join(dir, "jean-claude-linux-riscv64")
	must(t, os.WriteFile(cross, []byte("x"), 0o755))
	if p, err := BinaryFor("linux", "riscv64", "/self", dir); err != nil || p != cross {
		t.Fatalf("cross build: %s %v", p, err)
	}
}

// The headless relay beside the app is preferred, for every platform.
func TestBinaryForPrefersHeadless(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "jean-claude")
	for _, n := range []string{"jean-claude", "jean-claude-relay-linux-arm64", "jean-claude-relay-" + runtimeGOOS + "-" + runtimeGOARCH} {
		must(t, os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o755))
	}
	for _, c := range [][2]string{{"linux", "arm64"}, {runtimeGOOS, runtimeGOARCH}} {
		got, err := BinaryFor(c[0], c[1], self, dir)
		if want := filepath.Join(dir, "jean-claude-relay-"+c[0]+"-"+c[1]); err != nil || got != want {
			t.Fatalf("BinaryFor(%s/%s) = %q, %v; want %q", c[0], c[1], got, err, want)
		}
	}
}
