// Command webkitfetch measures what a WebKitGTK window keeps per resource
// load (issue 20, README "Run 16"): a Wails v2 app whose page, after 8 s,
// receives JB_N small JSON pages (the size of an event feed's line) in one
// of these ways (JB_MODE):
//
//	fetch   one fetch per page through the Wails asset server (a long poll)
//	xhr     one XMLHttpRequest per page, the same
//	http    one fetch per page from a loopback HTTP server (not the custom scheme)
//	stream  one fetch whose answer streams the pages, a line each (the feed now)
//	none    no load: the same loop and JSON parsing, for the baseline
//
// then requests /_done, which the app prints as DONE on stderr. run.sh
// runs it under Xvfb and prints how much the web process and the app grew.
package main

import (
	"embed"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

//go:embed all:dist
var assets embed.FS

// page is one page of the feed as the app sends it: one task:updated.
var page = `{"last":1,"gap":false,"events":[{"name":"task:updated","data":{"id":"abc","status":"running","title":"` +
	strings.Repeat("x", 300) + `"}}]}`

func main() {
	n, err := strconv.Atoi(os.Getenv("JB_N"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "webkitfetch: JB_N: want a count")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "webkitfetch:", err)
		os.Exit(1)
	}
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			onePage(w)
		}))
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	mw := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/_mode":
				w.Header().Set("Cache-Control", "no-store")
				fmt.Fprint(w, os.Getenv("JB_MODE"), " ", n, " ", port)
			case "/_page":
				onePage(w)
			case "/_stream":
				stream(w, n)
			case "/_done":
				fmt.Fprintln(os.Stderr, "DONE", r.URL.RawQuery)
				w.WriteHeader(http.StatusNoContent)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
	err = wails.Run(&options.App{
		Title: "webkitfetch", Width: 800, Height: 600,
		AssetServer: &assetserver.Options{Assets: assets, Middleware: mw},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "webkitfetch:", err)
		os.Exit(1)
	}
}

func onePage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprint(w, page)
}

// stream writes n pages a millisecond apart, a line each, as the feed does.
func stream(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	for range n {
		if _, err := fmt.Fprintln(w, page); err != nil {
			return
		}
		_ = rc.Flush()
		time.Sleep(time.Millisecond)
	}
}
