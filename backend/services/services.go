// Package services holds the thin services the Wails frontend calls: they
// validate input, call the store and the agent registry, and map rows to
// JSON DTOs (camelCase, times in int64 milliseconds). Every exported method
// of a bound service returns (T, error) or error; the error's message is what
// the JavaScript promise rejects with, so it is written for the user.
package services

import (
	"errors"
	"fmt"
)

// Emitter sends an event to the frontend. The Wails runtime implementation
// lives in app.go; tests use a recorder.
type Emitter interface {
	Emit(name string, payload any)
}

// Dialogs opens native dialogs. The Wails runtime implementation lives in
// app.go.
type Dialogs interface {
	// PickDirectory asks the user for a directory; "" means cancelled.
	PickDirectory(title string) (string, error)
}

// Event names the services emit (besides orchestrator.EventTaskUpdated,
// which carries the Task DTO of a created or changed task).
const (
	// EventTaskDeleted carries TaskDeleted.
	EventTaskDeleted = "task:deleted"
)

// TaskDeleted is the payload of EventTaskDeleted.
type TaskDeleted struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
}

// ErrInvalidInput: the request was refused because of what it asked for
// (a missing path, an empty prompt, an unknown backend ...).
var ErrInvalidInput = errors.New("invalid input")

// InputError is a validation failure. Its message names the problem for
// the user; Field says which input it is about; errors.Is matches both
// ErrInvalidInput and the cause (agent.ErrUnknownBackend, fs.ErrNotExist...).
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

// nopEmitter drops events (no frontend attached).
type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}
