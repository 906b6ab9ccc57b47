package tasks_test

import (
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/tasks"
)

// The rules of Create (defaults from the project and the agent, mode and
// model checks) are tested through services.TaskService
// (projects_tasks_test.go); the name is tested here.
func TestNameFromPrompt(t *testing.T) {
	long := strings.Repeat("é", 70)
	for prompt, want := range map[string]string{
		"  fix the parser \nit drops the last token": "fix the parser",
		long:                    strings.Repeat("é", 59) + "…",
		strings.Repeat("a", 60): strings.Repeat("a", 60),
	} {
		if got := tasks.NameFromPrompt(prompt); got != want {
			t.Errorf("NameFromPrompt(%q) = %q, want %q", prompt, got, want)
		}
	}
}
