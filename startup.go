package main

import (
	"os"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/jean-claude/jean-claude/backend/store"
)

// Window background colours: the themes' --jc-bg (frontend/src/styles/tokens.css).
var (
	lightBackground = options.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	darkBackground  = options.RGBA{R: 0x16, G: 0x17, B: 0x1b, A: 0xff}
)

// windowBackground is the colour the window shows before the page paints:
// the dark theme's when GTK is asked for a dark variant (GTK_THEME=Name:dark),
// else the light theme's (the default "system" theme follows GTK too).
func windowBackground() *options.RGBA {
	if strings.HasSuffix(strings.ToLower(os.Getenv("GTK_THEME")), ":dark") {
		return &darkBackground
	}
	return &lightBackground
}

// bootMiddleware inlines the project list into index.html; without a
// database (the bindings build) there is nothing to inline.
func bootMiddleware(db *store.DB) assetserver.Middleware {
	if db == nil {
		return nil
	}
	return snapshotMiddleware(store.NewProjects(db).List)
}
