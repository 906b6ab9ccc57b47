package main

import (
	"context"
	"fmt"
	"os"
	"strings"

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
