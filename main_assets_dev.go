//go:build !production

package main

import (
	"embed"
	"io/fs"
)

// assets is the built frontend, plain: development builds (make e2e, make
// soak, the bindings build) embed it or serve frontend/dist from disk with
// -assetdir. frontend/dist/.gitkeep (committed, and copied back by every
// vite build from frontend/public) keeps the pattern valid in a fresh clone
// before the frontend is built.
//
//go:embed all:frontend/dist
var assets embed.FS

// frontendAssets are the files the window loads.
func frontendAssets() fs.FS { return assets }
