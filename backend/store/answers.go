package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// QuestionAnswer is the user's answer to a question: for each question of
// Request, in order, the labels chosen or the text typed. It is stored
// before the answer is sent (commit, then act), so the user's words are
// kept whatever fails after.
type QuestionAnswer struct {
	ID        int64         `json:"id"`
	TaskID    string        `json:"taskId"`
	RequestID string        `json:"requestId"`
	ToolID    string        `json:"toolId,omitempty"`
	Request   agent.Request `json:"request"`
	Answers   [][]string    `json:"answers"`
	CreatedAt int64         `json:"createdAt"`
}

// InsertQuestionAnswer stores a and returns it with its id.
func InsertQuestionAnswer(ctx context.Context, q SQLRunner, a QuestionAnswer) (QuestionAnswer, error) {
	req, err := json.Marshal(a.Request)
	if err != nil {
		return a, fmt.Errorf("store: encode question %s: %w", a.RequestID, err)
	}
	if a.Answers == nil {
		a.Answers = [][]string{}
	}
	ans, err := json.Marshal(a.Answers)
	if err != nil {
		return a, fmt.Errorf("store: encode answer to question %s: %w", a.RequestID, err)
	}
	err = q.QueryRowContext(ctx, `INSERT INTO question_answers (taskId, requestId, toolId, request, answers, createdAt)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, a.TaskID, a.RequestID, a.ToolID, string(req), string(ans), a.CreatedAt).Scan(&a.ID)
	if err != nil {
		return a, fmt.Errorf("store: insert answer to question %s: %w", a.RequestID, err)
	}
	return a, nil
}

// QuestionAnswers returns a task's answers to questions, oldest first.
func QuestionAnswers(ctx context.Context, q SQLRunner, taskID string) ([]QuestionAnswer, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, requestId, toolId, request, answers, createdAt
		FROM question_answers WHERE taskId = ? ORDER BY id`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: answers to questions of task %s: %w", taskID, err)
	}
	defer rows.Close()
	out := []QuestionAnswer{}
	for rows.Next() {
		a := QuestionAnswer{TaskID: taskID}
		var req, ans string
		if err := rows.Scan(&a.ID, &a.RequestID, &a.ToolID, &req, &ans, &a.CreatedAt); err != nil {
			return nil, fmt.Errorf("store: answers to questions of task %s: %w", taskID, err)
		}
		if err := json.Unmarshal([]byte(req), &a.Request); err != nil {
			return nil, fmt.Errorf("store: question %s: decode: %w", a.RequestID, err)
		}
		if err := json.Unmarshal([]byte(ans), &a.Answers); err != nil {
			return nil, fmt.Errorf("store: answer to question %s: decode: %w", a.RequestID, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: answers to questions of task %s: %w", taskID, err)
	}
	return out, nil
}
