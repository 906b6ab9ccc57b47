//go:build dev

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/metrics"
)

// EnvPprof names the variable that, in a dev build only, serves Go's
// profiles (net/http/pprof) on the given loopback address, e.g.
// JEAN_CLAUDE_PPROF=127.0.0.1:6060: make soak reads the heap with it.
const EnvPprof = "JEAN_CLAUDE_PPROF"

// MemPath serves the Go runtime's memory figures (memFigures) as JSON.
// make soak reads them every sample: the heap profile it read before
// (/debug/pprof/heap?debug=1) made ~0.5 MB of garbage per read, which
// was all the app allocated while idle and is what the soak saw the
// live heap grow by between two collections (issue 20).
const MemPath = "/debug/jc/mem"

// servePprof starts the profile server when EnvPprof names a loopback
// address; anything else is refused with a line on stderr.
func servePprof(getenv func(string) string) {
	addr := getenv(EnvPprof)
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "jean-claude: %s=%q: not a loopback host:port, no profiles\n", EnvPprof, addr)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc(MemPath, serveMem)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: profiles: %v\n", err)
		}
	}()
}

// memMetrics are the runtime/metrics read by memFigures, in its order.
var memMetrics = []string{
	"/gc/heap/live:bytes",                // live heap as the last collection marked it
	"/memory/classes/heap/objects:bytes", // heap objects, live or not yet swept
	"/memory/classes/heap/unused:bytes",  // free space in spans in use
	"/memory/classes/heap/free:bytes",    // free spans still mapped (resident)
	"/memory/classes/heap/released:bytes",
	"/memory/classes/total:bytes", // all the runtime mapped
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines:goroutines",
}

// memFigures is MemPath's answer; every figure is in bytes but the counts.
type memFigures struct {
	Live       uint64 `json:"live"`
	Objects    uint64 `json:"objects"`
	Unused     uint64 `json:"unused"`
	Free       uint64 `json:"free"`
	Released   uint64 `json:"released"`
	Total      uint64 `json:"total"`
	GCs        uint64 `json:"gcs"`
	Goroutines uint64 `json:"goroutines"`
}

// readMem reads memFigures from the runtime without a collection and
// with a few hundred bytes of garbage.
func readMem() memFigures {
	s := make([]metrics.Sample, len(memMetrics))
	for i, name := range memMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return memFigures{Live: v[0], Objects: v[1], Unused: v[2], Free: v[3], Released: v[4], Total: v[5], GCs: v[6], Goroutines: v[7]}
}

func serveMem(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(readMem())
}
