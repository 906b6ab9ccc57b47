package remote

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
)

// newPool starts a real sshd and returns a pool configured for it; the
// pool's master connection is closed and checked gone at cleanup.
func newPool(t *testing.T) (*Pool, *sshdtest.Server) {
	t.Helper()
	srv := sshdtest.Start(t)
	p, err := NewPool(Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		if left := srv.WaitNoRemoteProcesses(context.Background(), 5*time.Second); len(left) > 0 {
			t.Errorf("remote processes left: %v", left)
		}
		if left := sshdtest.WaitNoLocalProcesses(srv.ControlDir, 5*time.Second); len(left) > 0 {
			t.Errorf("local ssh processes left: %v", left)
		}
	})
	return p, srv
}

func TestValidHost(t *testing.T) {
	for _, ok := range []string{"box", "build.example.com", "me@box", "10.0.0.1", "fe80::1", "my_host-2"} {
		if err := ValidHost(ok); err != nil {
			t.Errorf("ValidHost(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "a b", "me@-x", "@box", "box;id", "$(id)", "a'b", "ho%st", "a\nb"} {
		if err := ValidHost(bad); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("ValidHost(%q) = %v, want ErrInvalidHost", bad, err)
		}
	}
}

func TestQuote(t *testing.T) {
	cases := map[string]string{"abc": "abc", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$(id)": "'$(id)'"}
	for in, want := range cases {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// Hostile words reach the remote program as single literal arguments.
func TestRunArgumentsStayLiteral(t *testing.T) {
	p, srv := newPool(t)
	c, err := p.Client(sshdtest.Alias)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	words := []string{"a b", "it's", "$(touch /tmp/jc-pwned)", "`id`", "x;y", "*", "-n", "line\nbreak", ""}
	out, err := c.Output(ctx, append([]string{"printf", "%s\\0"}, words...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, srv.Log())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(words, "|") {
		t.Fatalf("got %q, want %q", got, words)
	}
	home, err := c.Output(ctx, "printenv", "HOME")
	if err != nil || strings.TrimSpace(string(home)) != srv.Home {
		t.Fatalf("remote HOME = %q, %v; want %s", home, err, srv.Home)
	}
	res, err := c.Run(ctx, strings.NewReader("in"), "sh", "-c", "cat; exit 7")
	if err != nil || res.Code != 7 || string(res.Stdout) != "in" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if !c.Check(ctx) {
		t.Fatal("no master connection after the first command")
	}
}

func TestUnreachable(t *testing.T) {
	p, srv := newPool(t)
	_ = srv
	c, _ := p.Client("nosuchhost.invalid")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Output(ctx, "true")
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if got := Cause(err); got != CauseUnknownHost { // ssh's own words, mapped
		t.Fatalf("Cause(%v) = %q, want %q", err, got, CauseUnknownHost)
	}
}

func TestHealth(t *testing.T) {
	p, srv := newPool(t)
	c, _ := p.Client(sshdtest.Alias)
	ctx := context.Background()
	h := c.Health(ctx)
	if !h.Reachable || h.OS != "linux" || h.Arch == "" || h.Git == "" || h.FreeBytes <= 0 {
		t.Fatalf("health = %+v\n%s", h, srv.Log())
	}
	t.Logf("health: %+v", h)
	bad, _ := p.Client("nosuchhost.invalid")
	if h := bad.Health(ctx); h.Reachable || h.Error == "" {
		t.Fatalf("unreachable health = %+v", h)
	}
}

func TestInstallNPMRefusesNonSpecs(t *testing.T) {
	c := &Client{host: "x"}
	for _, bad := range []string{"--global", "pkg", "a b@1", "pkg@1;id", "@x/-y@1", "pkg@$(id)"} {
		if _, err := c.InstallNPM(context.Background(), bad); err == nil {
			t.Errorf("InstallNPM(%q) accepted", bad)
		}
	}
}
