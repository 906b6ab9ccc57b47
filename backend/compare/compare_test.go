package compare

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		"make test":                         {"make", "test"},
		`go test -run "Test A" ./...`:       {"go", "test", "-run", "Test A", "./..."},
		`sh -c 'echo $HOME | wc'`:           {"sh", "-c", "echo $HOME | wc"},
		`a\ b "c\"d" e'f'g`:                 {"a b", `c"d`, "efg"},
		"make test | tee out; rm -rf $HOME": {"make", "test", "|", "tee", "out;", "rm", "-rf", "$HOME"},
		`""`:                                {""},
	} {
		got, err := SplitArgs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `"open`, `'open`, `trailing\`} {
		if _, err := SplitArgs(bad); !errors.Is(err, ErrBadCommand) {
			t.Errorf("SplitArgs(%q) err = %v, want ErrBadCommand", bad, err)
		}
	}
}

func TestRunCheck(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if r := RunCheck(ctx, dir, `sh -c 'echo ok; exit 0'`, time.Minute); r.Status != store.CheckPassed || r.Output != "ok\n" {
		t.Errorf("pass: %+v", r)
	}
	if r := RunCheck(ctx, dir, `sh -c 'echo no >&2; exit 3'`, time.Minute); r.Status != store.CheckFailed || r.ExitCode != 3 || r.Output != "no\n" {
		t.Errorf("fail: %+v", r)
	}
	// A shell would run the second command; argv gives echo the text.
	if r := RunCheck(ctx, dir, `echo a; touch pwned`, time.Minute); r.Status != store.CheckPassed || r.Output != "a; touch pwned\n" {
		t.Errorf("no shell: %+v", r)
	}
	if r := RunCheck(ctx, dir, `no-such-command-jc`, time.Minute); r.Status != store.CheckError {
		t.Errorf("missing: %+v", r)
	}
	start := time.Now()
	r := RunCheck(ctx, dir, `sh -c 'sleep 30 & sleep 30'`, 300*time.Millisecond)
	if r.Status != store.CheckFailed || !strings.Contains(r.Output, "stopped") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %+v after %v", r, time.Since(start))
	}
	big := RunCheck(ctx, dir, `sh -c 'head -c 200000 /dev/zero | tr "\0" x'`, time.Minute)
	if len(big.Output) > MaxOutput+100 || !strings.HasPrefix(big.Output, "…(earlier output dropped)") {
		t.Errorf("output kept: %d bytes", len(big.Output))
	}
}
