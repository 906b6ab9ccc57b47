package workspace

import (
	"errors"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/store"
)

// ErrInvalidInput: the request was refused because of what it asked for
// (a relative worktree folder, an unknown branch, an empty message ...).
var ErrInvalidInput = errors.New("invalid input")

// InputError is a validation failure. Its message names the problem for
// the user; Field says which input it is about; errors.Is matches both
// ErrInvalidInput and the cause (gitx.ErrInvalidPath ...).
type InputError struct {
	Field string
	Msg   string
	Err   error
}

func (e *InputError) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidInput) true.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

func invalid(field string, cause error, format string, args ...any) error {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// notFound rewrites a store.ErrNotFound into a message for the user.
func notFound(what, id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s not found: %s: %w", what, id, store.ErrNotFound)
	}
	return err
}
