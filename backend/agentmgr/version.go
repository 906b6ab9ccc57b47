package agentmgr

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// packageVersion is the version of the npm package that ships the binary
// at path: it follows symlinks (node_modules/.bin/x -> ../pkg/bin/x.js)
// and walks up to the nearest package.json of an installed package (one
// directly under node_modules, scoped or not). When want is not empty the
// package's name must be want. It returns "" when there is none.
//
// It is the version the Agents page shows for CLIs whose `--version` fails
// (codex-acp exits 2) or prints nothing (claude-code-acp).
func packageVersion(path, want string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		installed := filepath.Base(parent) == "node_modules" ||
			(filepath.Base(filepath.Dir(parent)) == "node_modules" && len(filepath.Base(parent)) > 1 && filepath.Base(parent)[0] == '@')
		if installed {
			return readPackageVersion(filepath.Join(dir, "package.json"), want)
		}
		if filepath.Base(dir) == "node_modules" {
			return ""
		}
		dir = parent
	}
}

func readPackageVersion(file, want string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	var p struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &p) != nil || (want != "" && p.Name != want) {
		return ""
	}
	return p.Version
}
