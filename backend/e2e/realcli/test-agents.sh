#!/bin/sh
# Runs the real-CLI suite (`make test-agents`): installs the pinned Claude
# Code and OpenCode CLIs with npm into a local folder (default
# .tools/agents, gitignored; reused when the versions already match), then
# runs backend/e2e/realcli against them. It skips, loudly, only when npm
# cannot install the CLIs (no npm, no registry access).
set -u
CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.330}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
DIR=${JC_AGENTS_DIR:-$(pwd)/.tools/agents}
GO=${GO:-go}

installed() { # installed PACKAGE VERSION
	f="$DIR/node_modules/$1/package.json"
	[ -f "$f" ] && grep -q "\"version\": *\"$2\"" "$f"
}

if ! installed @anthropic-ai/claude-code "$CLAUDE_VERSION" || ! installed opencode-ai "$OPENCODE_VERSION"; then
	mkdir -p "$DIR"
	echo "test-agents: npm install @anthropic-ai/claude-code@$CLAUDE_VERSION opencode-ai@$OPENCODE_VERSION into $DIR"
	if ! command -v npm >/dev/null 2>&1 ||
		! npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
			"@anthropic-ai/claude-code@$CLAUDE_VERSION" "opencode-ai@$OPENCODE_VERSION" >"$DIR/npm-install.log" 2>&1; then
		echo "################################################################################"
		echo "## SKIPPING the real-CLI suite: npm could not install the agent CLIs."
		echo "## Claude Code $CLAUDE_VERSION and OpenCode $OPENCODE_VERSION were NOT tested."
		echo "################################################################################"
		tail -n 20 "$DIR/npm-install.log" 2>/dev/null
		exit 0
	fi
fi
BIN="$DIR/node_modules/.bin"
echo "test-agents: $("$BIN/claude" --version 2>&1), opencode $("$BIN/opencode" --version 2>&1)"
JC_REALCLI_BIN="$BIN" JC_REALCLI_INSTALL=1 exec "$GO" test -count=1 -v -timeout 10m ./backend/e2e/realcli/
