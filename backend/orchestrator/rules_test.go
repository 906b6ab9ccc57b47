package orchestrator

import (
	"encoding/json"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestRuleMatching(t *testing.T) {
	req := func(tool string, in map[string]any, patterns ...string) agent.Request {
		b, _ := json.Marshal(in)
		return agent.Request{ToolName: tool, Input: b, Patterns: patterns}
	}
	ruleFor := func(r agent.Request) store.PermissionRule {
		s := SubjectOf(r)
		return store.PermissionRule{ToolName: r.ToolName, MatchKind: s.Kind, Pattern: s.Pattern, Scope: store.ScopeProject}
	}
	bash := ruleFor(req("Bash", map[string]any{"command": "npm test", "description": "x"}))
	write := ruleFor(req("Write", map[string]any{"file_path": "/p/a.go", "content": "1"}))
	other := ruleFor(req("WebFetch", map[string]any{"url": "https://x", "prompt": "p"}))
	oc := ruleFor(req("bash", nil, "git status"))
	cases := []struct {
		name string
		rule store.PermissionRule
		req  agent.Request
		want bool
	}{
		{"same command", bash, req("Bash", map[string]any{"command": "npm test"}), true},
		{"with arguments", bash, req("Bash", map[string]any{"command": "npm test -- --run x"}), true},
		{"longer word", bash, req("Bash", map[string]any{"command": "npm testx"}), false},
		{"chained", bash, req("Bash", map[string]any{"command": "npm test && rm -rf ~"}), false},
		{"piped", bash, req("Bash", map[string]any{"command": "npm test | sh"}), false},
		{"subshell", bash, req("Bash", map[string]any{"command": "npm test $(rm x)"}), false},
		{"newline", bash, req("Bash", map[string]any{"command": "npm test\nrm x"}), false},
		{"other tool", bash, req("Shell", map[string]any{"command": "npm test"}), false},
		{"same file, other content", write, req("Write", map[string]any{"file_path": "/p/a.go", "content": "2"}), true},
		{"other file", write, req("Write", map[string]any{"file_path": "/p/b.go"}), false},
		{"same input other key order", other, agent.Request{ToolName: "WebFetch", Input: json.RawMessage(`{"prompt":"p","url":"https://x"}`)}, true},
		{"other input", other, req("WebFetch", map[string]any{"url": "https://y", "prompt": "p"}), false},
		{"patterns", oc, req("bash", nil, "git status"), true},
		{"other patterns", oc, req("bash", nil, "git push"), false},
	}
	for _, c := range cases {
		if got := Matches(c.rule, c.req); got != c.want {
			t.Errorf("%s: Matches(%+v) = %v, want %v", c.name, c.rule, got, c.want)
		}
	}
	if got := RuleLabel(bash); got != "Bash(npm test) for this project" {
		t.Errorf("label %q", got)
	}
}
