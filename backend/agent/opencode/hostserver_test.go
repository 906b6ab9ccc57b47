package opencode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A host's server gets the app's config file by value (the file is on
// this machine); a path that is not a file here, or a config already
// given by value, is left alone.
func TestHostConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.json")
	if err := os.WriteFile(p, []byte(`{"model":"fake/m"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := hostConfig([]string{"A=1", "OPENCODE_CONFIG=" + p, "B=2"})
	if want := []string{"A=1", "B=2", `OPENCODE_CONFIG_CONTENT={"model":"fake/m"}`}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, env := range [][]string{
		{"OPENCODE_CONFIG=/only/on/the/host.json"},
		{"OPENCODE_CONFIG=" + p, `OPENCODE_CONFIG_CONTENT={}`},
		{"A=1"},
	} {
		if got := hostConfig(env); !slices.Equal(got, env) {
			t.Errorf("hostConfig(%q) = %q, want it unchanged", env, got)
		}
	}
}
