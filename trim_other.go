//go:build !linux || !cgo

package main

// releaseCHeap: only glibc's arenas are trimmed (trim_linux.go).
func releaseCHeap() {}
