package main

import (
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

func TestWebviewGpuPolicy(t *testing.T) {
	cases := map[string]linux.WebviewGpuPolicy{
		"": linux.WebviewGpuPolicyNever, "off": linux.WebviewGpuPolicyNever, "On-Demand": linux.WebviewGpuPolicyOnDemand,
		"always": linux.WebviewGpuPolicyAlways, "bogus": linux.WebviewGpuPolicyNever,
	}
	for v, want := range cases {
		warned := ""
		got := webviewGpuPolicy(func(string) string { return v }, func(s string) { warned = s })
		if got != want {
			t.Errorf("%q: got %v, want %v", v, got, want)
		}
		if (v == "bogus") != (warned != "") {
			t.Errorf("%q: warning %q", v, warned)
		}
	}
}
