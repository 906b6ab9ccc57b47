// Package acp drives any Agent Client Protocol agent (Gemini CLI --acp,
// codex-acp, claude-code-acp, opencode acp, goose, or one the user adds) over
// JSON-RPC on stdio, and normalizes the protocol's messages into agent events.
//
// The live connection is github.com/coder/acp-go-sdk; the agent's stdout and
// the client's own writes are teed line by line so every JSON-RPC message
// becomes one raw frame (format "acp") that the Normalizer reads, live and
// when stored history is re-normalized.
package acp
