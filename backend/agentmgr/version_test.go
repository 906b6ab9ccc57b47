package agentmgr

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npmPackage lays out an installed npm package under root/node_modules
// with a bin linked from node_modules/.bin, like npm does.
func npmPackage(t *testing.T, root, pkg, version, binRel, command, body string) {
	t.Helper()
	dir := filepath.Join(root, "node_modules", filepath.FromSlash(pkg))
	script(t, filepath.Join(dir, filepath.Dir(binRel)), filepath.Base(binRel), body)
	pj := `{"name": "` + pkg + `", "version": "` + version + `", "bin": {"` + command + `": "` + binRel + `"}}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pj), 0o644); err != nil {
		t.Fatal(err)
	}
	// A package.json inside the package (not the package's own) is skipped.
	if err := os.WriteFile(filepath.Join(dir, filepath.Dir(binRel), "package.json"), []byte(`{"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(bin, filepath.Join(dir, binRel))
	if err := os.Symlink(rel, filepath.Join(bin, command)); err != nil {
		t.Fatal(err)
	}
}

// When `--version` fails (codex-acp: exit 2) or prints nothing
// (claude-code-acp), the Agents page shows the npm package's version.
func TestVersionFromPackageJSON(t *testing.T) {
	root := t.TempDir()
	npmPackage(t, root, "@zed-industries/codex-acp", CodexACPVersion, "bin/codex-acp.js", "codex-acp",
		"echo \"error: unexpected argument '--version' found\" >&2; exit 2\n")
	npmPackage(t, root, "@zed-industries/claude-code-acp", ClaudeCodeACPVersion, "dist/index.js", "claude-code-acp", "exit 0\n")
	// An agent with no known package (user-added) takes the version of
	// whichever installed package ships its binary.
	npmPackage(t, root, "goose-acp-wrapper", "9.9.9", "bin/goose", "goose", "exit 0\n")
	bin := filepath.Join(root, "node_modules", ".bin")
	m := New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(bin)})
	ctx := context.Background()
	specs := map[string]Spec{}
	for _, s := range Specs(nil) {
		specs[s.Command] = s
	}
	for cmd, want := range map[string]string{"codex-acp": CodexACPVersion, "claude-code-acp": ClaudeCodeACPVersion} {
		st := m.Status(ctx, specs[cmd])
		if !st.Found || st.Version != want || st.Error != "" {
			t.Errorf("%s: %+v, want version %s from package.json and no error", cmd, st, want)
		}
	}
	if st := m.Status(ctx, specs["goose"]); st.Version != "9.9.9" {
		t.Errorf("goose: %+v", st)
	}
	// A binary outside any npm package that prints nothing has no version;
	// a failing one keeps its error.
	plain := t.TempDir()
	script(t, plain, "codex-acp", "exit 2\n")
	m = New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(plain)})
	if st := m.Status(ctx, specs["codex-acp"]); st.Version != "" || !strings.Contains(st.Error, "exit status 2") {
		t.Errorf("plain codex-acp: %+v", st)
	}
	// A known agent's binary shipped by another package: not its version.
	npmPackage(t, plain, "some-wrapper", "1.2.3", "bin/cca.js", "claude-code-acp", "exit 0\n")
	m = New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(filepath.Join(plain, "node_modules", ".bin"))})
	if st := m.Status(ctx, specs["claude-code-acp"]); st.Version != "" {
		t.Errorf("claude-code-acp from another package: %+v", st)
	}
	// `--version` still wins when it answers.
	npmPackage(t, plain, "@google/gemini-cli", "0.0.1", "bundle/gemini.js", "gemini", "echo 0.61.0\n")
	m = New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(filepath.Join(plain, "node_modules", ".bin"))})
	if st := m.Status(ctx, specs["gemini"]); st.Version != "0.61.0" {
		t.Errorf("gemini: %+v", st)
	}
}
