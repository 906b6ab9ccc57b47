//go:build linux && cgo

package main

/*
#include <malloc.h>
*/
import "C"

// releaseCHeap hands the free pages of every glibc malloc arena back to
// the OS (malloc_trim(0)); the C heap's live blocks are not moved.
func releaseCHeap() { C.malloc_trim(0) }
