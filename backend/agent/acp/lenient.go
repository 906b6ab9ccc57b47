package acp

import "github.com/jean-claude/jean-claude/backend/agent"

// decode unmarshals data into v (a pointer) with agent.Decode, the one
// lenient decoder of every normalizer: a field of another type or out of
// range degrades that field only and is noted in *notes (nil: not noted).
// It reports false only when data is not JSON of v's overall shape.
func decode(data []byte, v any, notes *[]string) bool {
	a, err := agent.Decode(data, v)
	if notes != nil {
		*notes = append(*notes, a...)
	}
	return err == nil
}
