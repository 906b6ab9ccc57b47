// Package inputerr is the error of a request refused because of what it
// asked for (a missing path, an empty message, an unknown branch ...),
// shared by the services and the domain packages they call, so a refusal
// keeps its words and its field on the way to the user.
package inputerr

import (
	"errors"
	"fmt"
)

// ErrInvalid: the request was refused because of what it asked for.
var ErrInvalid = errors.New("invalid input")

// Error is a validation failure. Its message names the problem for the
// user; Field says which input it is about; errors.Is matches both
// ErrInvalid and the cause (agent.ErrUnknownBackend, fs.ErrNotExist...).
type Error struct {
	Field string
	Msg   string
	Err   error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// New returns an *Error about field; cause may be nil.
func New(field string, cause error, format string, args ...any) error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...), Err: cause}
}
