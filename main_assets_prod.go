//go:build production

package main

import (
	"embed"
	"io/fs"

	"github.com/jean-claude/jean-claude/backend/gzfs"
)

// assetsGz is the built frontend, gzipped by the vite build
// (frontend/vite.config.ts, gzipDist): the binary is resident in memory in
// full, and the assets take 0.4 MB there instead of 1.3 (issue 20).
// frontend/distgz/.gitkeep (committed) keeps the pattern valid in a fresh
// clone before the frontend is built.
//
//go:embed all:frontend/distgz
var assetsGz embed.FS

// frontendAssets are the files the window loads, inflated on each request.
func frontendAssets() fs.FS {
	sub, err := fs.Sub(assetsGz, "frontend/distgz")
	if err != nil {
		panic(err) // a constant, valid path
	}
	return gzfs.New(sub)
}
