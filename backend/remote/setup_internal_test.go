package remote

import "testing"

func TestListRoot(t *testing.T) {
	for g, want := range map[string][2]string{
		".env*":               {".", "1"},
		"config/*.local":      {"./config", "1"},
		"config/dev/db.local": {"./config/dev", "1"},
		"config/**/*.local":   {"./config", ""},
		"**/.env.local":       {".", ""},
		"a/*/b/c":             {"./a", "3"},
		"a/x**/c":             {"./a", ""},
	} {
		if b, d := listRoot(g); b != want[0] || d != want[1] {
			t.Errorf("listRoot(%q) = %q, %q; want %q", g, b, d, want)
		}
	}
}
