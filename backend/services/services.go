// Package services holds the thin services the Wails frontend calls: they
// validate input, call the store and the agent registry, and map rows to
// JSON DTOs (camelCase, times in int64 milliseconds). Every exported method
// of a bound service returns (T, error) or error; the error's message is what
// the JavaScript promise rejects with, so it is written for the user.
package services

import "github.com/jean-claude/jean-claude/backend/inputerr"

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
	// EventProjectsUpdated (no payload) says the stored project list
	// changed: a project was added, renamed, removed or changed, by this
	// window or another (a dev-server page, the Hosts page, an import);
	// every window reads the list again.
	EventProjectsUpdated = "projects:updated"
)

// TaskDeleted is the payload of EventTaskDeleted.
type TaskDeleted struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
}

// ErrInvalidInput: the request was refused because of what it asked for
// (a missing path, an empty prompt, an unknown backend ...).
var ErrInvalidInput = inputerr.ErrInvalid

// InputError is a validation failure (inputerr.Error, shared with the
// packages the services call): Msg for the user, Field the input it is
// about; errors.Is matches ErrInvalidInput and the cause.
type InputError = inputerr.Error

func invalid(field string, cause error, format string, args ...any) error {
	return inputerr.New(field, cause, format, args...)
}

// nopEmitter drops events (no frontend attached).
type nopEmitter struct{}

func (nopEmitter) Emit(string, any) {}
