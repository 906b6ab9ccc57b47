// Package opencode is the OpenCode backend: it runs one shared
// `opencode serve` process (server.go), talks to it over HTTP and its SSE
// event stream (client.go), drives sessions through the agent contract
// (backend.go) and normalizes OpenCode's events (normalize.go, whose doc
// comment holds the whole mapping table).
package opencode
