//go:build !linux || !cgo

package main

func setWebMemoryPressure(webMemoryPressure) bool { return false }

func webContextsGivenMemoryPressure() int { return 0 }

func newWebContext() bool { return false }

func webMemoryPressureSet() webMemoryPressure { return webMemoryPressure{} }
