package workspace

import (
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
)

// invalid refuses an input (errors.Is(err, inputerr.ErrInvalid)).
func invalid(field string, cause error, format string, args ...any) error {
	return inputerr.New(field, cause, format, args...)
}

// notFound rewrites a store.ErrNotFound into a message for the user.
func notFound(what, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s not found: %s: %w", what, id, store.ErrNotFound)
	}
	return err
}
