// Package agenttest holds test helpers for agent backends: fake agent
// processes that replay recordings, built once per test binary.
//
// # Fake claude
//
// BuildFakeClaude builds fakeclaude (./fakeclaude) into a cache
// directory as an executable named "claude" and returns its path; pass it
// as claude.Options{Binary: path} or put its directory first on PATH. It
// behaves like `claude --input-format stream-json --output-format
// stream-json --verbose --permission-prompt-tool stdio`:
//
//   - control_request initialize, interrupt, set_permission_mode (answered,
//     then a system/status line with the new permissionMode), set_model and
//     mcp_status are answered like the real CLI; any other subtype gets an
//     error control_response ("Unsupported control request subtype: X").
//   - Each user line on stdin starts the next turn of the script: the
//     recording's lines up to and including its next result line (its
//     control_response lines are dropped). A user line that arrives during
//     a turn is queued. When the script has no turns left (or there is no
//     script), a turn is generated: system/init, one assistant text
//     ("You said: <text>") and a success result.
//   - A can_use_tool control_request in the script is written and the fake
//     then WAITS for the host's control_response with that request_id.
//     allow continues the recording; deny turns the recording's tool_result
//     for that tool into an is_error result carrying the deny message
//     (unless it already is one), and deny + interrupt also ends the turn
//     with an interrupted result right after it.
//   - interrupt during a turn drops the rest of it and writes a user
//     "[Request interrupted by user]" line and a result with subtype
//     error_during_execution, terminal_reason aborted_streaming.
//   - At stdin EOF it finishes the running turn (and queued ones) unless
//     it waits on a permission or hangs, then exits 0.
//
// Environment variables:
//
//	FAKE_CLAUDE_SCRIPT=path       the recording to replay (stdout .jsonl);
//	                              ClaudeRecording(t, name) gives the bundled
//	                              ones: bidi_perm_allow, bidi_perm_deny,
//	                              bidi_main_bypass (two turns), bidi_write_allow
//	FAKE_CLAUDE_CRASH_AFTER=N     after writing N stdout lines, print
//	                              "fakeclaude: simulated crash after N lines" on
//	                              stderr and exit 1
//	FAKE_CLAUDE_LINE_DELAY=d      wait d (a Go duration, "5ms") before each line
//	FAKE_CLAUDE_HANG=1            each turn writes system/init then blocks until
//	                              interrupted (or killed)
//	FAKE_CLAUDE_REPEAT=N          each turn streams N synthetic lines as fast as
//	                              possible (cycling assistant text, assistant
//	                              Bash tool_use, user tool_result; ~300 bytes
//	                              each), then a result: for benchmarks
//	FAKE_CLAUDE_STAMP=1           with FAKE_CLAUDE_REPEAT (synthetic shape): each
//	                              text line says "Step i at t=N", N its write
//	                              time in Unix nanoseconds (19 digits), for
//	                              stdout-to-emit latency across processes
//	FAKE_CLAUDE_REPEAT_SHAPE=recorded  with FAKE_CLAUDE_REPEAT: the N lines
//	                              cycle through a real recorded turn streamed
//	                              with partial messages (stream_event deltas,
//	                              whole blocks, a tool call and its result)
//	FAKE_CLAUDE_SPAWN_CHILD=1     start a grandchild `sleep 300` in the same
//	                              process group (its pid is printed on stderr),
//	                              to test process-group cleanup
//	FAKE_CLAUDE_STUBBORN=1        ignore SIGTERM/SIGINT, stdin EOF and interrupt
//	                              (answered, but the turn goes on): only SIGKILL
//	                              ends it, to test stop escalation
//	FAKE_CLAUDE_ARGS_FILE=path    write {"args": [...], "cwd": ..., "env":
//	                              {IS_SANDBOX, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC}}
//	                              there at startup
//	FAKE_CLAUDE_STDIN_LOG=path    append every stdin line it reads to path (to
//	                              assert what the host sent)
//	FAKE_CLAUDE_MCP_PROGRESS=text the first turn calls report_progress(text) on
//	                              the jean-claude server of --mcp-config (the
//	                              app's MCP server, read at the start as Claude
//	                              Code does), with its tool_use/result lines
//	FAKE_CLAUDE_MCP_WHEN=text     every turn whose prompt holds text calls it
//	                              (a resumed process's turns too), in place
//	                              of the first turn
package agenttest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var fakeClaude struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// pkgDir is this package's source directory.
func pkgDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// BuildFakeClaude builds the fake claude once per test binary and returns
// the path of the executable (named "claude"). The build is cached under
// the user cache directory, keyed by a hash of the fake's source and the
// Go version, so later test runs reuse it.
func BuildFakeClaude(t testing.TB) string {
	t.Helper()
	fakeClaude.once.Do(func() {
		fakeClaude.path, fakeClaude.out, fakeClaude.err = buildFakeClaude()
	})
	if fakeClaude.err != nil {
		t.Fatalf("building fake claude: %v\n%s", fakeClaude.err, fakeClaude.out)
	}
	return fakeClaude.path
}

func buildFakeClaude() (string, []byte, error) {
	src, err := os.ReadFile(filepath.Join(pkgDir(), "fakeclaude", "main.go"))
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(append(src, runtime.Version()...))
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "jean-claude-test", "fakeclaude-"+hex.EncodeToString(sum[:8]))
	path := filepath.Join(dir, "claude")
	if st, err := os.Stat(path); err == nil && st.Mode()&0o111 != 0 {
		return path, nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	// Build beside the final name, then rename: concurrent test binaries
	// never see a half-written executable.
	tmp, err := os.CreateTemp(dir, "claude-build-*")
	if err != nil {
		return "", nil, err
	}
	tmp.Close()
	cmd := exec.Command(goBin, "build", "-o", tmp.Name(), "./fakeclaude")
	cmd.Dir = pkgDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return "", out, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", nil, err
	}
	return path, nil, nil
}

// ClaudeRecording returns the absolute path of a bundled claude recording
// (testdata/claude/NAME.jsonl), for FAKE_CLAUDE_SCRIPT.
func ClaudeRecording(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(pkgDir(), "testdata", "claude", name+".jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("claude recording %q: %v", name, err)
	}
	return p
}
