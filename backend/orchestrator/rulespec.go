package orchestrator

import (
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// RuleSpec is what an "always allow" answer covers, as the user saw and
// edited it before answering: a match kind (exact, prefix for commands,
// folder for paths) and its pattern. Without one the rule records the
// request's own subject (SubjectOf).
type RuleSpec struct {
	MatchKind string `json:"matchKind"`
	Pattern   string `json:"pattern"`
}

// RuleSubject returns what the rule made from an "always" answer to req
// records. A spec must suit the request (a prefix only for a command, a
// folder only for a path, no shell control characters in a prefix) and must
// cover the request it answers; otherwise the answer is refused with
// ErrInvalid and nothing is stored.
func RuleSubject(req agent.Request, spec *RuleSpec) (Subject, error) {
	s := SubjectOf(req)
	if spec == nil {
		return s, nil
	}
	pat := strings.TrimSpace(spec.Pattern)
	switch {
	case pat == "":
		return Subject{}, fmt.Errorf("orchestrator: rule pattern is empty: %w", ErrInvalid)
	case spec.MatchKind == store.MatchPrefix && s.Type != SubjectCommand:
		return Subject{}, fmt.Errorf("orchestrator: a prefix rule is for commands: %w", ErrInvalid)
	case spec.MatchKind == store.MatchPrefix && strings.ContainsAny(pat, shellControl):
		return Subject{}, fmt.Errorf("orchestrator: a prefix rule cannot contain shell control characters: %w", ErrInvalid)
	case spec.MatchKind == store.MatchFolder && s.Type != SubjectPath:
		return Subject{}, fmt.Errorf("orchestrator: a folder rule is for paths: %w", ErrInvalid)
	case spec.MatchKind == store.MatchFolder && hasDotDot(pat):
		return Subject{}, fmt.Errorf("orchestrator: a folder rule cannot contain \"..\": %w", ErrInvalid)
	case spec.MatchKind != store.MatchPrefix && spec.MatchKind != store.MatchFolder && spec.MatchKind != store.MatchExact:
		return Subject{}, fmt.Errorf("orchestrator: rule kind %q: %w", spec.MatchKind, ErrInvalid)
	}
	if spec.MatchKind == store.MatchFolder {
		pat = strings.TrimSuffix(pat, "/")
		if pat == "" {
			pat = "/"
		}
	}
	if !covers(spec.MatchKind, pat, s) {
		return Subject{}, fmt.Errorf("orchestrator: rule %q does not cover this request (%s): %w", RuleText(spec.MatchKind, pat), s.Pattern, ErrInvalid)
	}
	return Subject{Kind: spec.MatchKind, Pattern: pat, Type: s.Type}, nil
}
