package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// webMemoryPressure is WebKit's memory-pressure configuration for the
// window's web process (WebKitMemoryPressureSettings): above Conservative
// × LimitMB of its footprint the web process releases caches and unused
// code, above Strict × LimitMB it also collects all garbage and drops
// compiled code, checked every Poll.
type webMemoryPressure struct {
	LimitMB      uint
	Conservative float64
	Strict       float64
	Poll         time.Duration
}

// parseWebMemoryPressure reads "LIMIT_MB,CONSERVATIVE,STRICT,POLL_SECONDS"
// (JEAN_CLAUDE_WEB_MEMORY; "off" leaves WebKit's defaults).
func parseWebMemoryPressure(s string) (webMemoryPressure, bool, error) {
	if s == "off" {
		return webMemoryPressure{}, false, nil
	}
	f := strings.Split(s, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	if len(f) != 4 {
		return webMemoryPressure{}, false, fmt.Errorf("web memory %q: want LIMIT_MB,CONSERVATIVE,STRICT,POLL_SECONDS", s)
	}
	limit, err1 := strconv.ParseUint(f[0], 10, 32)
	cons, err2 := strconv.ParseFloat(f[1], 64)
	strict, err3 := strconv.ParseFloat(f[2], 64)
	poll, err4 := strconv.ParseFloat(f[3], 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || limit == 0 || cons <= 0 || strict <= cons || strict >= 1 || poll <= 0 {
		return webMemoryPressure{}, false, fmt.Errorf("web memory %q: want LIMIT_MB>0, 0<CONSERVATIVE<STRICT<1, POLL_SECONDS>0", s)
	}
	return webMemoryPressure{LimitMB: uint(limit), Conservative: cons, Strict: strict, Poll: time.Duration(poll * float64(time.Second))}, true, nil
}

// webMemoryEnv overrides the web process's memory-pressure settings:
// "off" (WebKit's defaults) or "LIMIT_MB,CONSERVATIVE,STRICT,POLL_SECONDS".
const webMemoryEnv = "JEAN_CLAUDE_WEB_MEMORY"

// defaultWebMemoryPressure is chosen by measurement (README "Run 18").
// WebKit's own limit is the machine's memory, at most 3 GB (conservative
// above 1 GB, strict above 1.5 GB, every 30 s), so the window's web process
// never released anything: it idles at ~70 MB with a task view shown, rose
// to 90–100 MB while task views streamed, and kept it after they closed
// (an hour: 69 → 90 MB). Here it releases caches and trims malloc above
// 60 MB and also drops compiled code and collects all garbage above 90 MB:
// five-minute soaks ended at −5…0 MB of their start against +28…+33 with
// WebKit's settings; the window's CPU on a streamed task stayed within the
// noise of runs of the same build, and idling with a task view shown it
// spends ~0.4 % of a core against ~0.15 %.
var defaultWebMemoryPressure = webMemoryPressure{LimitMB: 200, Conservative: 0.3, Strict: 0.45, Poll: 10 * time.Second}

// webMemoryPressureFor is the setting to apply: the user's (webMemoryEnv),
// none when the user said "off", else the default — but only with the
// webview's hardware acceleration off (our default): with it on, the GL
// driver's memory counts in the web process's footprint and would keep it
// above these thresholds, releasing all the time, so WebKit's own settings
// stay. A value that does not parse is told through warn and treated as
// unset.
func webMemoryPressureFor(getenv func(string) string, warn func(string), gpu linux.WebviewGpuPolicy) (webMemoryPressure, bool) {
	v := strings.TrimSpace(getenv(webMemoryEnv))
	if v != "" {
		p, on, err := parseWebMemoryPressure(v)
		if err == nil {
			return p, on
		}
		warn(fmt.Sprintf("%s: %v: ignored, as if unset", webMemoryEnv, err))
	}
	return defaultWebMemoryPressure, gpu == linux.WebviewGpuPolicyNever
}
