package relay

import (
	"path/filepath"
	"testing"
	"time"
)

func TestConfigured(t *testing.T) {
	if Configured("/d", "off", "1m") != nil {
		t.Fatal("relays off must give no transport")
	}
	if Configured("/d", "", "") == nil {
		t.Fatal("relays are on unless turned off")
	}
	tr := Configured("/d", "on", "")
	if tr == nil || tr.Dir != filepath.Join("/d", "relays") || tr.Tune != nil {
		t.Fatalf("on, default idle stop: %+v", tr)
	}
	if Configured("/d", "on", "soon").Tune != nil {
		t.Error("an invalid duration must keep the default")
	}
	var s Spec
	Configured("/d", "on", "90s").Tune(&s)
	if s.IdleStop != 90*time.Second {
		t.Errorf("idle stop %v", s.IdleStop)
	}
}
