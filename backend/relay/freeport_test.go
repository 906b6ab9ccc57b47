package relay

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
)

// `relay freeport` prints a loopback port that can be listened on (a
// server on a host picks its port with it, docs/remote.md).
func TestFreePort(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"freeport"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	p, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil || p <= 0 || p > 65535 {
		t.Fatalf("port %q: %v", out.String(), err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("the port is not free: %v", err)
	}
	l.Close()
	if code := Main([]string{"freeport", "x"}, nil, &out, &errb); code != 2 {
		t.Fatalf("extra argument: exit %d, want 2", code)
	}
}
