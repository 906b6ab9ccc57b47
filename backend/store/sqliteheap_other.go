//go:build !(linux && (amd64 || arm64)) || libc.membrk || libc.memgrind

package store

// trimSQLiteHeap: elsewhere libc's allocator is another one (see
// sqliteheap_linux.go); nothing is trimmed.
func trimSQLiteHeap() error { return nil }
