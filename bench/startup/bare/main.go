// Command bare is the floor of `make bench-startup` (issue 20): a Wails
// v2 app with nothing in it but a page of one line of text, built with the
// same tags and Wails version as jean-claude. Its time to first content and
// idle memory are what the real app is compared with.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

//go:embed all:dist
var assets embed.FS

func main() {
	err := wails.Run(&options.App{
		Title:       "Bare",
		Width:       1280,
		Height:      800,
		AssetServer: &assetserver.Options{Assets: assets},
		// No Linux options, as `wails init` makes it: Wails then runs the
		// webview with hardware acceleration off (WebviewGpuPolicyNever).
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}
