package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

func TestParseWebMemoryPressure(t *testing.T) {
	p, on, err := parseWebMemoryPressure("200, 0.3, 0.45 ,10")
	if err != nil || !on || p != (webMemoryPressure{LimitMB: 200, Conservative: 0.3, Strict: 0.45, Poll: 10 * time.Second}) {
		t.Fatalf("got %+v %v %v", p, on, err)
	}
	if _, on, err := parseWebMemoryPressure("off"); on || err != nil {
		t.Fatalf("off: %v %v", on, err)
	}
	for _, bad := range []string{"", "200", "200,0.5,0.4,10", "0,0.3,0.45,10", "200,0.3,1,10", "200,0.3,0.45,0", "-5,0.3,0.45,10", "x,0.3,0.45,10"} {
		if _, on, err := parseWebMemoryPressure(bad); err == nil || on {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestWebMemoryPressureFor(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == webMemoryEnv {
				return v
			}
			return ""
		}
	}
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	if p, on := webMemoryPressureFor(env(""), warn, linux.WebviewGpuPolicyNever); !on || p != defaultWebMemoryPressure {
		t.Fatalf("default, acceleration off: %+v %v", p, on)
	}
	if _, on := webMemoryPressureFor(env(""), warn, linux.WebviewGpuPolicyOnDemand); on {
		t.Fatal("acceleration on: WebKit's own settings stay unless the user sets them")
	}
	if p, on := webMemoryPressureFor(env("400,0.2,0.5,30"), warn, linux.WebviewGpuPolicyOnDemand); !on || p.LimitMB != 400 || p.Poll != 30*time.Second {
		t.Fatalf("the user's: %+v %v", p, on)
	}
	if _, on := webMemoryPressureFor(env("off"), warn, linux.WebviewGpuPolicyNever); on {
		t.Fatal("off: none")
	}
	if len(warned) != 0 {
		t.Fatalf("warned %q", warned)
	}
	if p, on := webMemoryPressureFor(env("--limit=5"), warn, linux.WebviewGpuPolicyNever); !on || p != defaultWebMemoryPressure || len(warned) != 1 {
		t.Fatalf("a bad value: %+v %v, warned %q", p, on, warned)
	}
	if _, on := webMemoryPressureFor(env("200,0.3"), warn, linux.WebviewGpuPolicyAlways); on || len(warned) != 2 {
		t.Fatalf("a bad value with acceleration on: %v, warned %q (as unset: WebKit's settings)", on, warned)
	}
}

// WebKit refuses a conservative threshold at or above the current strict
// one (and the reverse): every valid pair is set, whatever side of
// WebKit's defaults (0.33, 0.5) it lies.
func TestSetWebMemoryPressureKeepsEveryValidPair(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("WebKitGTK only")
	}
	for _, p := range []webMemoryPressure{
		{LimitMB: 200, Conservative: 0.3, Strict: 0.45, Poll: 10 * time.Second},
		{LimitMB: 500, Conservative: 0.6, Strict: 0.8, Poll: 30 * time.Second},
		{LimitMB: 100, Conservative: 0.1, Strict: 0.2, Poll: 5 * time.Second},
	} {
		if !setWebMemoryPressure(p) {
			t.Fatal("this WebKitGTK has no memory-pressure-settings property")
		}
		if got := webMemoryPressureSet(); got != p {
			t.Errorf("set %+v, WebKit holds %+v", p, got)
		}
	}
}

// The web process's memory-pressure settings are a construct-only property
// of WebKitWebContext, which Wails' window takes from WebKit's default
// context: setWebMemoryPressure must reach a context created without them.
// GTK needs a display: without one the test runs itself under xvfb-run
// (make deps installs it).
func TestWebContextsGetTheMemoryPressureSettings(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("WebKitGTK only")
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("JC_TEST_UNDER_XVFB") == "" {
		xvfb, err := exec.LookPath("xvfb-run")
		if err != nil {
			t.Skip("no display and no xvfb-run (make deps installs it)")
		}
		cmd := exec.Command(xvfb, "-a", os.Args[0], "-test.run", "^TestWebContextsGetTheMemoryPressureSettings$", "-test.v")
		cmd.Env = append(os.Environ(), "JC_TEST_UNDER_XVFB=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWebContextsGetTheMemoryPressureSettings") {
			t.Fatalf("under xvfb-run: %v\n%s", err, out)
		}
		return
	}
	runtime.LockOSThread() // GTK and WebKit on one thread, as in the app (main.go, before wails.Run)
	defer runtime.UnlockOSThread()
	before := webContextsGivenMemoryPressure()
	if !setWebMemoryPressure(defaultWebMemoryPressure) {
		t.Fatal("this WebKitGTK has no memory-pressure-settings property")
	}
	if !newWebContext() {
		t.Fatal("GTK found no display")
	}
	if got := webContextsGivenMemoryPressure() - before; got != 1 {
		t.Fatalf("%d contexts created with the settings, want 1", got)
	}
}
