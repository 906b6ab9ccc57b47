package agent

import "testing"

// TestEnumListsComplete checks the EnumBind lists against the constants the
// rest of the package uses, so a new constant cannot be forgotten silently.
func TestEnumListsComplete(t *testing.T) {
	modes := map[InteractionMode]bool{}
	for _, e := range AllInteractionModes {
		modes[e.Value] = true
	}
	for _, m := range AllModes {
		if !modes[m] {
			t.Errorf("AllInteractionModes lacks %q", m)
		}
	}
	if len(AllInteractionModes) != len(AllModes) {
		t.Errorf("AllInteractionModes has %d entries, AllModes %d", len(AllInteractionModes), len(AllModes))
	}
	check := func(name string, n int, names []string, values []string) {
		t.Helper()
		seenN, seenV := map[string]bool{}, map[string]bool{}
		for i := range names {
			if names[i] == "" || values[i] == "" || seenN[names[i]] || seenV[values[i]] {
				t.Errorf("%s: empty or duplicate entry %q=%q", name, names[i], values[i])
			}
			seenN[names[i]], seenV[values[i]] = true, true
		}
		if len(names) != n {
			t.Errorf("%s: %d entries, want %d", name, len(names), n)
		}
	}
	var n, v []string
	for _, e := range AllPartTypes {
		n, v = append(n, e.TSName), append(v, string(e.Value))
	}
	check("PartType", 7, n, v)
	n, v = nil, nil
	for _, e := range AllEventTypes {
		n, v = append(n, e.TSName), append(v, string(e.Value))
	}
	check("EventType", 12, n, v)
	n, v = nil, nil
	for _, e := range AllToolKinds {
		n, v = append(n, e.TSName), append(v, string(e.Value))
	}
	check("ToolKind", 11, n, v)
	n, v = nil, nil
	for _, e := range AllToolStates {
		n, v = append(n, e.TSName), append(v, string(e.Value))
	}
	check("ToolState", 7, n, v)
	n, v = nil, nil
	for _, e := range AllRoles {
		n, v = append(n, e.TSName), append(v, string(e.Value))
	}
	check("Role", 4, n, v)
}
