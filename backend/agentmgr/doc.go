// Package agentmgr manages the agent CLIs behind the Agents page: where
// each one is (a configured path, PATH, or the app's own npm-installed copy
// under <data dir>/agents), its version, a health check that starts it for
// real, installing and uninstalling npm-distributed agents into the data
// dir, the per-agent settings (binary path, extra arguments, environment,
// default model and mode) and generated config files (OpenCode's
// opencode.json, written into the data dir, never into a project), and
// the page's view of each agent (View: install state, registered backend,
// settings with secrets masked; the last known views kept for a fast
// first paint).
package agentmgr
