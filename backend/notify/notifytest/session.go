package notifytest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const childEnv = "JEAN_CLAUDE_NOTIFYTEST_CHILD"

// InSession re-runs the named test under dbus-run-session (a private
// session bus) and returns false in the parent, which reports the child's
// result; in the child it returns true and the test goes on. It skips when
// dbus-run-session is not installed.
func InSession(t *testing.T, testName string) bool {
	t.Helper()
	if os.Getenv(childEnv) == testName {
		return true
	}
	runner, err := exec.LookPath("dbus-run-session")
	if err != nil {
		t.Skip("dbus-run-session not installed (apt-get install dbus): cannot run a private session bus")
	}
	cmd := exec.Command(runner, "--", os.Args[0], "-test.run=^"+testName+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+testName)
	out, err := cmd.CombinedOutput()
	t.Logf("under dbus-run-session:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+testName) {
		t.Fatalf("child failed: %v", err)
	}
	return false
}
