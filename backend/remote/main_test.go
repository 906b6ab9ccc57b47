package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/relay"
)

// The test binary is also what gets deployed to "the remote": there it
// plays `jean-claude relay` (first argument "relay") and the fake agent
// (JC_FAKE_AGENT set), as the app binary would run the real agent.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		os.Exit(relay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv("JC_FAKE_AGENT") != "" {
		os.Exit(fakeAgent())
	}
	if os.Getenv("JC_CHILD_APP") != "" && ChildApp != nil {
		os.Exit(ChildApp())
	}
	os.Exit(m.Run())
}

// ChildApp, set by the external tests, is run instead of the tests when
// JC_CHILD_APP is set: an app in a process of its own, which a test kills
// (a crash).
var ChildApp func() int

// fakeAgent writes JC_LINES lines {"n":i} JC_EVERY apart, each also
// appended to its own record JC_RECORD; halfway it asks {"ask":"perm"},
// waits for one stdin line, writes agent.txt in its folder and says
// {"answered":LINE}; after the last line it waits for stdin to close.
func fakeAgent() int {
	n, _ := strconv.Atoi(os.Getenv("JC_LINES"))
	every, _ := time.ParseDuration(os.Getenv("JC_EVERY"))
	rec, err := os.OpenFile(os.Getenv("JC_RECORD"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	in := bufio.NewScanner(os.Stdin)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		rec.Write(append(b, '\n'))
		os.Stdout.Write(append(b, '\n'))
	}
	for i := 1; i <= n; i++ {
		if i == n/2 {
			emit(map[string]string{"ask": "perm"})
			if !in.Scan() {
				return 3
			}
			if err := os.WriteFile("agent.txt", []byte("written by the agent\n"), 0o644); err != nil {
				return 4
			}
			emit(map[string]string{"answered": in.Text()})
		}
		emit(map[string]int{"n": i})
		time.Sleep(every)
	}
	for in.Scan() {
	}
	return 0
}
