//go:build dev

package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

// EnvPprof names the variable that, in a dev build only, serves Go's
// profiles (net/http/pprof) on the given loopback address, e.g.
// JEAN_CLAUDE_PPROF=127.0.0.1:6060: make soak reads the heap with it.
const EnvPprof = "JEAN_CLAUDE_PPROF"

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
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintf(os.Stderr, "jean-claude: profiles: %v\n", err)
		}
	}()
}
