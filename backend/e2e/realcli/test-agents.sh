#!/bin/sh
# Runs the real-CLI suite (`make test-agents`): installs the pinned agent
# CLIs with one npm call into a local folder (default .tools/agents,
# gitignored; reused when the versions already match), then runs
# backend/e2e/realcli against them, every agent in parallel. It skips,
# loudly, only when npm cannot install the CLIs (no npm, no registry access).
set -u
CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.330}
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
GEMINI_VERSION=${GEMINI_VERSION:-0.61.0}
CODEX_VERSION=${CODEX_VERSION:-0.169.0}
CODEX_ACP_VERSION=${CODEX_ACP_VERSION:-0.16.0}
CLAUDE_ACP_VERSION=${CLAUDE_ACP_VERSION:-0.16.2}
DIR=${JC_AGENTS_DIR:-$(pwd)/.tools/agents}
GO=${GO:-go}

PKGS="@anthropic-ai/claude-code@$CLAUDE_VERSION opencode-ai@$OPENCODE_VERSION @google/gemini-cli@$GEMINI_VERSION
@openai/codex@$CODEX_VERSION @zed-industries/codex-acp@$CODEX_ACP_VERSION @zed-industries/claude-code-acp@$CLAUDE_ACP_VERSION"

installed() { # installed PACKAGE@VERSION
	pkg=${1%@*} ver=${1##*@}
	f="$DIR/node_modules/$pkg/package.json"
	[ -f "$f" ] && grep -q "\"version\": *\"$ver\"" "$f"
}

missing=""
for p in $PKGS; do installed "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
	mkdir -p "$DIR"
	echo "test-agents: npm install$missing into $DIR"
	# shellcheck disable=SC2086 # one word per package
	if ! command -v npm >/dev/null 2>&1 ||
		! npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error $PKGS >"$DIR/npm-install.log" 2>&1; then
		echo "################################################################################"
		echo "## SKIPPING the real-CLI suite: npm could not install the agent CLIs."
		echo "## NOT tested:" $PKGS
		echo "################################################################################"
		tail -n 20 "$DIR/npm-install.log" 2>/dev/null
		exit 0
	fi
fi
BIN="$DIR/node_modules/.bin"
echo "test-agents: claude $("$BIN/claude" --version 2>&1), opencode $("$BIN/opencode" --version 2>&1)," \
	"gemini $("$BIN/gemini" --version 2>&1), $("$BIN/codex" --version 2>&1), codex-acp $CODEX_ACP_VERSION, claude-code-acp $CLAUDE_ACP_VERSION"
start=$(date +%s)
JC_REALCLI_BIN="$BIN" JC_REALCLI_INSTALL=1 "$GO" test -count=1 -v -parallel 8 -timeout 20m ./backend/e2e/realcli/
rc=$?
# The native forks against the same CLIs (issue 16): Claude Code
# --fork-session, Codex thread/fork (whole thread and at a turn), OpenCode's
# session fork at a message.
JC_REALCLI_BIN="$BIN" "$GO" test -count=1 -v -timeout 10m -run 'TestReal.*Fork' ./backend/history/importer/ ./backend/agent/opencode/ ||
	rc=$((rc == 0 ? 1 : rc))
echo "test-agents: $(($(date +%s) - start)) s (exit $rc)"
exit $rc
