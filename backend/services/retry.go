package services

import "github.com/jean-claude/jean-claude/backend/tasks"

// Retry sends an errored task's prompt again once its cause is fixed (the
// agent installed, signed in): the message its agent never received, else
// the last thing the user asked (tasks.Retry).
func (s *SessionService) Retry(taskID string) error {
	if err := need("taskId", taskID); err != nil {
		return err
	}
	return userErr(tasks.Retry(s.ctx, s.o, taskID))
}
