package main

import "testing"

func TestDecideQuit(t *testing.T) {
	for _, c := range []struct {
		setting string
		relays  bool
		running int
		want    quitAction
	}{
		{"ask", true, 2, quitAsk},
		{"ask", true, 0, quitStop},  // nothing runs: nothing to ask
		{"ask", false, 2, quitStop}, // direct children cannot outlive the app
		{"keep", true, 1, quitKeep},
		{"keep", false, 1, quitStop},
		{"stop", true, 1, quitStop},
		{"", true, 1, quitStop}, // the default
	} {
		if got := decideQuit(c.setting, c.relays, c.running); got != c.want {
			t.Errorf("decideQuit(%q, %v, %d) = %v, want %v", c.setting, c.relays, c.running, got, c.want)
		}
	}
	for answer, want := range map[string][2]bool{answerKeep: {true, true}, answerStop: {false, true}, answerCancel: {false, false}, "": {false, false}} {
		if keep, quit := answerAction(answer); keep != want[0] || quit != want[1] {
			t.Errorf("answerAction(%q) = %v %v, want %v", answer, keep, quit, want)
		}
	}
}
