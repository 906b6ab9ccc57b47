package acp

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// ConfigFile is a file the app writes before it starts the agent and
// names on the command line as Flag=<path> (one argument: the path is the
// app's, never a user value). Its content is a constant of the preset, so
// it is written to a fixed place, <user cache dir>/jean-claude/agent-files/
// <Name> (dir 0700, file 0600), and rewritten at every start: no clean-up,
// and an agent left running behind a relay keeps its file.
type ConfigFile struct {
	Name    string
	Content string
	Flag    string // e.g. "--policy"
}

// GeminiAskCommandsPolicy is the Gemini CLI policy (its policy engine's
// TOML) given to the Gemini (ACP) preset: in its `default` (the app's Ask)
// and `autoEdit` (accept-edits) modes, ask before every shell command.
// Gemini 0.61 otherwise turns "ask" into "allow" for commands it considers
// safe (`cat`, `ls`, …: its shell heuristics), and Ask must ask before any
// command (issue #13). The heuristics are skipped for a rule with an
// argsPattern, hence `argsPattern = ".*"`. In `yolo` and `plan` the rule
// does not apply.
const GeminiAskCommandsPolicy = `# Written by Jean-Claude: Ask asks before every shell command.
[[rule]]
toolName = "run_shell_command"
argsPattern = ".*"
decision = "ask_user"
priority = 900
modes = ["default", "autoEdit"]
`

// configFileArgs writes files and returns their arguments.
func configFileArgs(files []ConfigFile) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("agent config files: %w", err)
	}
	dir := filepath.Join(cache, "jean-claude", "agent-files")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent config files: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent config files: %w", err)
	}
	var args []string
	for _, f := range files {
		// Replaced whole (atomicfile): an agent starting meanwhile never
		// reads half a file.
		p := filepath.Join(dir, f.Name)
		if err := atomicfile.Write(p, []byte(f.Content)); err != nil {
			return nil, fmt.Errorf("agent config file %s: %w", f.Name, err)
		}
		args = append(args, f.Flag+"="+p)
	}
	return args, nil
}
