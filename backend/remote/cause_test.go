package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

// What ssh and a dropped channel say, in the user's words.
func TestCause(t *testing.T) {
	unreachable := func(stderr string) error { return fmt.Errorf("%w: box: %s", ErrUnreachable, stderr) }
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("remote: relay r1: read frame: %w", io.EOF), CauseLost},
		{errors.New("EOF"), CauseLost}, // a bare EOF that lost its type on the way
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), CauseLost},
		{unreachable("Connection to 10.0.0.2 closed by remote host."), CauseLost},
		{errors.New("write |1: broken pipe"), CauseLost},
		{ErrNotConnected, CauseLost},
		{fmt.Errorf("project on box: %w", ErrSSHNotFound), CauseSSHNotFound},
		{unreachable("jc@127.0.0.1: Permission denied (publickey)."), CauseAuth},
		{unreachable("Received disconnect from 10.0.0.2 port 22:2: Too many authentication failures"), CauseAuth},
		{unreachable("Host key verification failed."), CauseHostKey},
		{unreachable("Control socket connect(/tmp/jc/cm/0dc2e1): Connection refused"), CauseLost}, // the master died
		{unreachable("ssh: Could not resolve hostname nosuchhost.invalid: Name or service not known"), CauseUnknownHost},
		{unreachable("ssh: Could not resolve hostname box: Temporary failure in name resolution"), CauseUnknownHost},
		{unreachable("ssh: connect to host 127.0.0.1 port 1: Connection refused"), CauseRefused},
		{unreachable("ssh: connect to host 10.255.255.1 port 22: Connection timed out"), CauseNotReachable},
		{unreachable("Connection timed out during banner exchange"), CauseNotReachable},
		{unreachable("ssh: connect to host 10.0.0.2 port 22: No route to host"), CauseNotReachable},
		{unreachable(""), CauseNotReachable},
		{errors.New("mkdir: /x: Permission denied"), CauseOther}, // a remote command's, not ssh's
		{errors.New("relay: bad token"), CauseOther},
		{fmt.Errorf("remote: box: %w", context.DeadlineExceeded), CauseSlow}, // Recover's bound
	} {
		if got := Cause(c.err); got != c.want {
			t.Errorf("Cause(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestExplain(t *testing.T) {
	raw := fmt.Errorf("remote: relay r1: %w", io.EOF)
	err := Explain(raw)
	if err.Error() != CauseLost || !errors.Is(err, io.EOF) {
		t.Fatalf("Explain = %q (is EOF %v)", err, errors.Is(err, io.EOF))
	}
	var ex *Explained
	if !errors.As(err, &ex) || ex.Detail() != raw.Error() {
		t.Fatalf("detail = %+v", ex)
	}
	if again := Explain(fmt.Errorf("again: %w", err)); !errors.As(again, &ex) || ex.Detail() != raw.Error() {
		t.Fatalf("explained twice: %v", again)
	}
	if Explain(nil) != nil {
		t.Fatal("Explain(nil) is not nil")
	}
}
