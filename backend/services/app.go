package services

// AppInfo describes the running app.
type AppInfo struct {
	Version string `json:"version"`
	// DBPath is the SQLite file in use.
	DBPath string `json:"dbPath"`
}

// AppService answers questions about the app itself.
type AppService struct {
	info AppInfo
}

// NewAppService returns the app service.
func NewAppService(version, dbPath string) *AppService {
	return &AppService{info: AppInfo{Version: version, DBPath: dbPath}}
}

// Info returns the app's version and database location.
func (s *AppService) Info() (AppInfo, error) {
	return s.info, nil
}
