package agent

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrBadValue: a user value (model, session id) that could be read as a
// command-line flag or is not a plain token.
var ErrBadValue = errors.New("invalid value")

// ValidModel checks a model name before it reaches an agent: backends pass
// it joined to its flag (--model=VALUE), and this refuses what no model is
// called anyway (a leading "-", spaces, control characters, over 200
// bytes), so no value can become a flag whatever the CLI's parser does.
func ValidModel(model string) error {
	switch {
	case model == "":
		return nil
	case len(model) > 200:
		return fmt.Errorf("model name longer than 200 bytes: %w", ErrBadValue)
	case strings.HasPrefix(model, "-"):
		return fmt.Errorf("model %q starts with '-' (it would read as a flag): %w", model, ErrBadValue)
	case strings.IndexFunc(model, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("model %q contains spaces or control characters: %w", model, ErrBadValue)
	}
	return nil
}
