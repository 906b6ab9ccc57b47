package orchestrator

import (
	"context"
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
	kind, pat, err := checkSpec(*spec, s.Type)
	if err != nil {
		return Subject{}, err
	}
	if !covers(kind, pat, s) {
		return Subject{}, fmt.Errorf("orchestrator: rule %q does not cover this request (%s): %w", RuleText(kind, pat), s.Pattern, ErrInvalid)
	}
	return Subject{Kind: kind, Pattern: pat, Type: s.Type}, nil
}

// checkSpec validates what a rule about a subject of type subjectType may
// cover and returns its kind and cleaned pattern: a prefix only for a command
// and without shell control characters, a folder only for a path and without
// "..". Errors wrap ErrInvalid.
func checkSpec(spec RuleSpec, subjectType string) (kind, pattern string, err error) {
	pat := strings.TrimSpace(spec.Pattern)
	switch {
	case pat == "":
		return "", "", fmt.Errorf("orchestrator: rule pattern is empty: %w", ErrInvalid)
	case spec.MatchKind == store.MatchPrefix && subjectType != SubjectCommand:
		return "", "", fmt.Errorf("orchestrator: a prefix rule is for commands: %w", ErrInvalid)
	case spec.MatchKind == store.MatchPrefix && strings.ContainsAny(pat, shellControl):
		return "", "", fmt.Errorf("orchestrator: a prefix rule cannot contain shell control characters: %w", ErrInvalid)
	case spec.MatchKind == store.MatchFolder && subjectType != SubjectPath:
		return "", "", fmt.Errorf("orchestrator: a folder rule is for paths: %w", ErrInvalid)
	case spec.MatchKind == store.MatchFolder && hasDotDot(pat):
		return "", "", fmt.Errorf("orchestrator: a folder rule cannot contain \"..\": %w", ErrInvalid)
	case spec.MatchKind != store.MatchPrefix && spec.MatchKind != store.MatchFolder && spec.MatchKind != store.MatchExact:
		return "", "", fmt.Errorf("orchestrator: rule kind %q: %w", spec.MatchKind, ErrInvalid)
	}
	if spec.MatchKind == store.MatchFolder {
		pat = strings.TrimSuffix(pat, "/")
		if pat == "" {
			pat = "/"
		}
	}
	return spec.MatchKind, pat, nil
}

// EditRule changes what an existing "always allow" rule covers, with the
// same checks as when it was made (checkSpec, by the rule's subject type).
// Later requests are matched against the edited rule; answers already given
// stay as they were.
func (o *Orchestrator) EditRule(ctx context.Context, id string, spec RuleSpec) (store.PermissionRule, error) {
	var out store.PermissionRule
	err := o.db.Tx(ctx, func(tx *txT) error {
		r, err := store.Rule(ctx, tx, id)
		if err != nil {
			return err
		}
		kind, pat, err := checkSpec(spec, r.SubjectType)
		if err != nil {
			return err
		}
		if err := store.UpdateRule(ctx, tx, id, kind, pat); err != nil {
			return err
		}
		r.MatchKind, r.Pattern = kind, pat
		out = r
		return nil
	})
	return out, err
}
