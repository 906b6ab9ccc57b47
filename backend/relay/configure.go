package relay

import (
	"path/filepath"
	"time"
)

// Configured is the relay transport the settings ask for: agents outlive
// the app unless relays is "off" (unset: on, the default), the relays'
// files under dataDir/relays; idleStop, a Go duration ("" or invalid: the
// default), is how long an idle relay waits for the app before it stops.
func Configured(dataDir, relays, idleStop string) *Transport {
	if relays == "off" {
		return nil
	}
	t := &Transport{Dir: filepath.Join(dataDir, "relays")}
	if d, err := time.ParseDuration(idleStop); err == nil && d > 0 {
		t.Tune = func(s *Spec) { s.IdleStop = d }
	}
	return t
}
