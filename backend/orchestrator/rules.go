package orchestrator

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Subject is what an "always allow" rule is about: the part of a permission
// request that a rule records and later compares.
//
// How a request's subject is chosen, first match wins:
//
//   - input.command is a string (Bash and other shell tools): a prefix rule
//     on the command. It matches a later command that is exactly the
//     pattern, or the pattern followed by a space and more arguments, as long
//     as those extra arguments contain no shell control characters
//     (; & | ` $( > < or a line break). So "npm test" allows
//     "npm test -- --watch" but never "npm testx" or "npm test && rm -rf ~".
//   - input.file_path, input.filePath, input.path or input.notebook_path is a
//     string (file tools): an exact rule on that path.
//   - the request has Patterns (OpenCode): an exact rule on the patterns,
//     joined with newlines.
//   - anything else: an exact rule on the canonical JSON of the input.
//
// The tool name must always be equal. Task rules are tried before project
// rules.
//
// The user may edit what an "always" answer covers before it is made
// (RuleSpec, rulespec.go): an exact command, a command prefix, an exact path
// or a folder (any path inside it, after cleaning; a path with ".." never
// matches a folder rule).
type Subject struct {
	Kind    string // store.MatchPrefix or store.MatchExact
	Pattern string
	Type    string // SubjectCommand, SubjectPath or SubjectOther
}

// Subject types.
const (
	SubjectCommand = "command"
	SubjectPath    = "path"
	SubjectOther   = "other"
)

// SubjectOf returns the subject of a permission request.
func SubjectOf(req agent.Request) Subject {
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	if c, ok := in["command"].(string); ok && strings.TrimSpace(c) != "" {
		return Subject{Kind: store.MatchPrefix, Pattern: strings.TrimSpace(c), Type: SubjectCommand}
	}
	for _, k := range []string{"file_path", "filePath", "path", "notebook_path"} {
		if p, ok := in[k].(string); ok && p != "" {
			return Subject{Kind: store.MatchExact, Pattern: p, Type: SubjectPath}
		}
	}
	if len(req.Patterns) > 0 {
		return Subject{Kind: store.MatchExact, Pattern: strings.Join(req.Patterns, "\n"), Type: SubjectOther}
	}
	return Subject{Kind: store.MatchExact, Pattern: canonicalJSON(req.Input), Type: SubjectOther}
}

func canonicalJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

const shellControl = ";&|`$><\n\r"

// Matches reports whether rule r allows request req.
func Matches(r store.PermissionRule, req agent.Request) bool {
	if r.ToolName != req.ToolName {
		return false
	}
	return covers(r.MatchKind, r.Pattern, SubjectOf(req))
}

// covers reports whether a rule of kind and pattern covers subject s.
func covers(kind, pattern string, s Subject) bool {
	switch kind {
	case store.MatchPrefix:
		if s.Type != SubjectCommand || strings.ContainsAny(pattern, shellControl) {
			return false
		}
		if s.Pattern == pattern {
			return true
		}
		rest, ok := strings.CutPrefix(s.Pattern, pattern+" ")
		return ok && !strings.ContainsAny(rest, shellControl)
	case store.MatchExact:
		return s.Pattern == pattern
	case store.MatchFolder:
		return s.Type == SubjectPath && inFolder(s.Pattern, pattern)
	}
	return false
}

// inFolder reports whether path p is folder dir or inside it. A path with a
// ".." element never is.
func inFolder(p, dir string) bool {
	if hasDotDot(p) || hasDotDot(dir) || dir == "" {
		return false
	}
	p, dir = path.Clean(p), path.Clean(dir)
	if p == dir || dir == "/" && strings.HasPrefix(p, "/") {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

func hasDotDot(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// RuleText writes a rule's pattern as the user reads and edits it:
// "npm test:*" (prefix), "/w/src/" (folder), the pattern itself (exact).
func RuleText(kind, pattern string) string {
	switch kind {
	case store.MatchPrefix:
		return pattern + ":*"
	case store.MatchFolder:
		return strings.TrimSuffix(pattern, "/") + "/"
	}
	return pattern
}

// RuleLabel says a rule for people: "Bash(npm test) for this project".
func RuleLabel(r store.PermissionRule) string {
	pat := RuleText(r.MatchKind, r.Pattern)
	if len(pat) > 80 {
		pat = pat[:77] + "..."
	}
	where := "for this task"
	if r.Scope == store.ScopeProject {
		where = "for this project"
	}
	return fmt.Sprintf("%s(%s) %s", r.ToolName, pat, where)
}
