package services

import (
	"context"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/store"
)

// HistoryService is the history across every agent (issue 16): full-text
// search over every task's messages.
type HistoryService struct {
	ctx context.Context
	db  *store.DB
}

// NewHistoryService returns the service over db.
func NewHistoryService(ctx context.Context, db *store.DB) *HistoryService {
	return &HistoryService{ctx: ctx, db: db}
}

// SearchInput is a search from the search box. From and To are message
// creation times in ms (0 = open); Before pages (the last hit's rowId).
type SearchInput struct {
	Text      string `json:"text"`
	ProjectID string `json:"projectId"`
	Agent     string `json:"agent"`
	Role      string `json:"role"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
	Limit     int    `json:"limit"`
	Before    int64  `json:"before"`
}

// Search returns the messages matching in, newest first; each hit's snippet
// marks matches between "\u0002" and "\u0003".
func (s *HistoryService) Search(in SearchInput) ([]store.SearchHit, error) {
	if in.Limit <= 0 || in.Limit > 200 {
		in.Limit = 50
	}
	hits, err := store.Search(s.ctx, s.db.R, store.SearchQuery{
		Text: in.Text, ProjectID: in.ProjectID, Agent: in.Agent, Role: in.Role,
		From: in.From, To: in.To, Limit: in.Limit, Before: in.Before,
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}
