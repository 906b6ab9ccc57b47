package main

import (
	"errors"
	"maps"
	"slices"
	"testing"
)

func TestSetForWebProcessLeavesTheUsersAndUnsetsOnlyItsOwn(t *testing.T) {
	env := map[string]string{"JSC_b": "user"}
	funcs := envFuncs{
		lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		set: func(k, v string) error {
			if k == "JSC_fails" {
				return errors.New("no")
			}
			env[k] = v
			return nil
		},
		unset: func(k string) error { delete(env, k); return nil },
	}
	done := setForWebProcess([][2]string{{"JSC_a", "1"}, {"JSC_b", "2"}, {"JSC_fails", "3"}}, funcs)
	if env["JSC_a"] != "1" || env["JSC_b"] != "user" {
		t.Fatalf("while the web process starts: %v", env)
	}
	env["JSC_later"] = "x"
	done()
	done() // once: a second page load changes nothing
	if got := slices.Sorted(maps.Keys(env)); !slices.Equal(got, []string{"JSC_b", "JSC_later"}) {
		t.Fatalf("after the page loaded: %v (the user's and others' stay, ours go)", env)
	}
}

func TestWebProcessEnvIsJavaScriptCoresOnly(t *testing.T) {
	for _, kv := range webProcessEnv {
		if len(kv[0]) < 5 || kv[0][:4] != "JSC_" || kv[1] == "" {
			t.Fatalf("%q: the web process gets JavaScriptCore options only", kv)
		}
	}
}
