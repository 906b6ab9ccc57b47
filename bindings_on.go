//go:build bindings

package main

// bindingsBuild is true in the build `wails generate module` runs to
// generate the TypeScript bindings: it must not open a database.
const bindingsBuild = true
