//go:build !dev

package main

// servePprof: profiles are served by dev builds only (pprof_dev.go).
func servePprof(func(string) string) {}
