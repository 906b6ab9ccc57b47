package services

import (
	"context"
	"sync"

	"github.com/jean-claude/jean-claude/backend/store"
)

// EventDBHealth carries a DBHealth once the background database check ends.
const EventDBHealth = "db:health"

// DBHealth is the result of the background integrity check of the database
// (PRAGMA quick_check), which the window shows as a banner when it fails.
type DBHealth struct {
	// Checked is false while the check runs.
	Checked bool `json:"checked"`
	OK      bool `json:"ok"`
	// Problems are quick_check's findings (at most 20), or the error that
	// kept the check from running.
	Problems []string `json:"problems"`
}

// AppInfo describes the running app.
type AppInfo struct {
	Version string `json:"version"`
	// DBPath is the SQLite file in use.
	DBPath string `json:"dbPath"`
}

// AppService answers questions about the app itself.
type AppService struct {
	info AppInfo

	mu     sync.Mutex
	health DBHealth
}

// NewAppService returns the app service.
func NewAppService(version, dbPath string) *AppService {
	return &AppService{info: AppInfo{Version: version, DBPath: dbPath}}
}

// Info returns the app's version and database location.
func (s *AppService) Info() (AppInfo, error) {
	return s.info, nil
}

// DatabaseHealth returns the result of the background database check
// (Checked false while it runs).
func (s *AppService) DatabaseHealth() (DBHealth, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.health
	h.Problems = append([]string{}, h.Problems...)
	return h, nil
}

// CheckDatabase runs PRAGMA quick_check on db (it reads the whole file, so
// call it in a goroutine: the window does not wait for it), keeps the result
// for DatabaseHealth and emits it as EventDBHealth. It is a function, not a
// method, so that Wails does not bind it.
func CheckDatabase(ctx context.Context, s *AppService, db *store.DB, emit Emitter) DBHealth {
	problems, err := store.QuickCheck(ctx, db.R)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 20 {
		problems = problems[:20]
	}
	h := DBHealth{Checked: true, OK: len(problems) == 0, Problems: problems}
	if h.Problems == nil {
		h.Problems = []string{}
	}
	s.mu.Lock()
	s.health = h
	s.mu.Unlock()
	if emit != nil {
		emit.Emit(EventDBHealth, h)
	}
	return h
}
