package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"github.com/jean-claude/jean-claude/backend/bootpage"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Window background colours: the themes' --jc-bg (frontend/src/styles/tokens.css).
var (
	lightBackground = options.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	darkBackground  = options.RGBA{R: 0x16, G: 0x17, B: 0x1b, A: 0xff}
)

// windowBackground is the colour the window shows before the page paints:
// the dark theme's when GTK is asked for a dark variant (GTK_THEME=Name:dark),
// else the light theme's (the default "system" theme follows GTK too).
func windowBackground() *options.RGBA {
	if strings.HasSuffix(strings.ToLower(os.Getenv("GTK_THEME")), ":dark") {
		return &darkBackground
	}
	return &lightBackground
}

// bootMiddleware inlines the project list and the Agents page's last known
// state (secrets masked, as AgentService.LastKnown gives it) into
// index.html; without a database (the bindings build) there is nothing to
// inline.
func bootMiddleware(db *store.DB, agents *services.AgentService) assetserver.Middleware {
	if db == nil {
		return nil
	}
	return bootpage.Middleware(bootpage.Sources{
		Projects: func(ctx context.Context) ([]store.Project, error) { return store.ListProjects(ctx, db.R) },
		Agents:   func(context.Context) (any, error) { return agents.LastKnown() },
	})
}

// assetMiddleware chains the asset server's middlewares that are set.
func assetMiddleware(ms ...assetserver.Middleware) assetserver.Middleware {
	var set []assetserver.Middleware
	for _, m := range ms {
		if m != nil {
			set = append(set, m)
		}
	}
	return assetserver.ChainMiddleware(set...)
}

// gpuEnv names the webview renderer setting: "off" (the default), "on-demand"
// or "always". See README, "Performance: startup and memory".
const gpuEnv = "JEAN_CLAUDE_WEBVIEW_GPU"

// webviewGpuPolicy is the webview's hardware acceleration policy. Measured
// under Xvfb (make bench-startup): with acceleration on demand the window
// showed black frames and the WebKit web process idled ~80 MB higher than
// with it off, so off is the default, as in a bare Wails app (Wails turns
// it off when an app sets no Linux options). A machine whose GPU makes
// on-demand worthwhile can opt in.
func webviewGpuPolicy(getenv func(string) string, warn func(string)) linux.WebviewGpuPolicy {
	switch v := strings.ToLower(strings.TrimSpace(getenv(gpuEnv))); v {
	case "", "off", "never":
		return linux.WebviewGpuPolicyNever
	case "on-demand", "ondemand", "auto":
		return linux.WebviewGpuPolicyOnDemand
	case "always", "on":
		return linux.WebviewGpuPolicyAlways
	default:
		warn(fmt.Sprintf("%s=%q is not off, on-demand or always: using off", gpuEnv, v))
		return linux.WebviewGpuPolicyNever
	}
}

// webProcessEnv is the environment the window's web process starts with
// (issue 20; README "Startup, sixth look"). JavaScriptCore compiles a
// function with its optimizing tier (DFG) once it has run ~1000 weighted
// times (a call counts 15, a loop turn 1); most of this app's code runs a
// few hundred times at startup or on a view change and then idles, and
// those compilations kept 1.4 MB of the web process's memory at idle and
// ~5 MB after a streamed task. At 20000 only code that stays hot is
// optimized: the CPU the window spent on a 1500-line streamed task was the
// same (frontend/e2e/webkit-cpu.mjs). A variable the user set wins.
var webProcessEnv = [][2]string{
	{"JSC_thresholdForOptimizeAfterWarmUp", "20000"},
	{"JSC_thresholdForOptimizeSoon", "20000"},
}

// envFuncs are the process environment's functions (os's; tests pass fakes).
type envFuncs struct {
	lookup func(string) (string, bool)
	set    func(string, string) error
	unset  func(string) error
}

// setForWebProcess sets the variables of vars that are not set and returns
// the function that unsets them again, to call once the web process has
// started (the window's page has loaded): what the app starts after that
// (agents, their tools, terminals) does not inherit them.
func setForWebProcess(vars [][2]string, env envFuncs) (unset func()) {
	var ours []string
	for _, kv := range vars {
		if _, ok := env.lookup(kv[0]); ok {
			continue
		}
		if env.set(kv[0], kv[1]) == nil {
			ours = append(ours, kv[0])
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, k := range ours {
				_ = env.unset(k)
			}
		})
	}
}

// warnStderr tells a startup setting's problem on stderr (before the
// window and the log exist).
func warnStderr(s string) { fmt.Fprintln(os.Stderr, "jean-claude:", s) }
