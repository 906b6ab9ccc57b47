package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
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
	if got := RuleLabel(bash); got != "Bash(npm test:*) for this project" {
		t.Errorf("label %q", got)
	}
}

func TestRuleSpecs(t *testing.T) {
	req := func(tool string, in map[string]any) agent.Request {
		b, _ := json.Marshal(in)
		return agent.Request{ToolName: tool, Input: b}
	}
	first := req("Bash", map[string]any{"command": "npm test -- --coverage"})
	s, err := RuleSubject(first, &RuleSpec{MatchKind: store.MatchPrefix, Pattern: "npm test"})
	if err != nil {
		t.Fatal(err)
	}
	prefix := store.PermissionRule{ToolName: "Bash", MatchKind: s.Kind, Pattern: s.Pattern, Scope: store.ScopeTask}
	if !Matches(prefix, req("Bash", map[string]any{"command": "npm test --watch"})) {
		t.Error("a prefix rule npm test:* must cover a second, different npm test command")
	}
	if Matches(prefix, req("Bash", map[string]any{"command": "npm run build"})) {
		t.Error("npm test:* covers npm run build")
	}
	if got := RuleLabel(prefix); got != "Bash(npm test:*) for this task" {
		t.Errorf("label %q", got)
	}
	exact, err := RuleSubject(first, &RuleSpec{MatchKind: store.MatchExact, Pattern: "npm test -- --coverage"})
	if err != nil || exact.Kind != store.MatchExact {
		t.Fatal(exact, err)
	}
	if covers(exact.Kind, exact.Pattern, SubjectOf(req("Bash", map[string]any{"command": "npm test -- --coverage x"}))) {
		t.Error("an exact command rule covers more arguments")
	}
	write := req("Write", map[string]any{"file_path": "/w/src/a.go"})
	f, err := RuleSubject(write, &RuleSpec{MatchKind: store.MatchFolder, Pattern: "/w/src/"})
	if err != nil || f.Pattern != "/w/src" {
		t.Fatal(f, err)
	}
	folder := store.PermissionRule{ToolName: "Write", MatchKind: f.Kind, Pattern: f.Pattern}
	for p, want := range map[string]bool{"/w/src/deep/b.go": true, "/w/src": true, "/w/srcx/b.go": false, "/w/src/../../etc/passwd": false, "/etc/passwd": false} {
		if got := Matches(folder, req("Write", map[string]any{"file_path": p})); got != want {
			t.Errorf("folder /w/src/ on %s = %v, want %v", p, got, want)
		}
	}
	bad := []struct {
		req  agent.Request
		spec RuleSpec
	}{
		{first, RuleSpec{MatchKind: store.MatchPrefix, Pattern: "npm run"}},       // does not cover the request
		{first, RuleSpec{MatchKind: store.MatchPrefix, Pattern: "npm test; rm"}},  // control characters
		{first, RuleSpec{MatchKind: store.MatchFolder, Pattern: "/"}},             // folder for a command
		{write, RuleSpec{MatchKind: store.MatchPrefix, Pattern: "/w"}},            // prefix for a path
		{write, RuleSpec{MatchKind: store.MatchFolder, Pattern: "/w/src/../../"}}, // escape
		{write, RuleSpec{MatchKind: store.MatchFolder, Pattern: "/other"}},        // does not cover
		{write, RuleSpec{MatchKind: "regex", Pattern: ".*"}},                      // unknown kind
		{write, RuleSpec{MatchKind: store.MatchExact, Pattern: " "}},              // empty
	}
	for _, b := range bad {
		if _, err := RuleSubject(b.req, &b.spec); !errors.Is(err, ErrInvalid) {
			t.Errorf("RuleSubject(%+v) = %v, want ErrInvalid", b.spec, err)
		}
	}
}

// A rule made by an "always" answer can be edited later, with the checks of
// its subject type, and the edited rule is what answers the next request.
func TestEditRuleAfterItIsMade(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(permEv("r1", "Bash", "npm test"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow, Scope: store.ScopeTask,
		Rule: &RuleSpec{MatchKind: store.MatchExact, Pattern: "npm test"}}); err != nil {
		t.Fatal(err)
	}
	rules, err := store.ProjectRules(ctx, h.db.R, "p1")
	if err != nil || len(rules) != 1 || rules[0].SubjectType != SubjectCommand || rules[0].MatchKind != store.MatchExact {
		t.Fatalf("rules = %+v, %v", rules, err)
	}
	id := rules[0].ID
	for _, bad := range []RuleSpec{
		{MatchKind: store.MatchFolder, Pattern: "/w"},      // a folder is for paths
		{MatchKind: store.MatchPrefix, Pattern: "npm; rm"}, // shell control
		{MatchKind: store.MatchPrefix, Pattern: "  "},      // empty
		{MatchKind: "glob", Pattern: "npm *"},              // unknown kind
	} {
		if _, err := h.o.EditRule(ctx, id, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("EditRule(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	got, err := h.o.EditRule(ctx, id, RuleSpec{MatchKind: store.MatchPrefix, Pattern: " npm "})
	if err != nil || got.MatchKind != store.MatchPrefix || got.Pattern != "npm" {
		t.Fatalf("EditRule = %+v, %v", got, err)
	}
	if _, err := h.o.EditRule(ctx, "rule-nope", RuleSpec{MatchKind: store.MatchExact, Pattern: "x"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown rule: %v", err)
	}
	// The edited prefix answers a different command by itself.
	s.send(permEv("r2", "Bash", "npm run lint"))
	waitFor(t, "auto answer", func() bool { return len(s.callsOf("RespondToPermission")) == 2 })
	if r := s.callsOf("RespondToPermission")[1].([2]any); r[0] != "r2" || r[1].(agent.PermissionResponse).Behavior != agent.Allow {
		t.Fatalf("auto answer = %+v", r)
	}
}
