package agent

import "strings"

// MetaQuiet marks a message (Metadata[MetaQuiet] = true) the UI shows
// collapsed with its neighbours ("3 system notices", raw on demand): what
// an agent said that the normalizer does not know (a new system subtype, a
// new event type), kept rather than dropped, never shown as a bare name.
const MetaQuiet = "quiet"

// StatusUnknown is the Status of the system-status part of a quiet notice.
const StatusUnknown = "unknown"

// QuietNotice returns the system message for something the normalizer does
// not know: one system-status part {Subtype: kind, Status: unknown, Text: a
// readable line}, the frame in Metadata.raw, marked quiet.
func QuietNotice(id, kind string, raw []byte) *Message {
	return &Message{
		ID:   id,
		Role: RoleSystem,
		Parts: []Part{{Type: PartSystemStatus, Subtype: kind, Status: StatusUnknown,
			Text: "System notice: " + Humanize(kind)}},
		Metadata: map[string]any{MetaQuiet: true, "raw": string(raw)},
	}
}

// Humanize turns an internal name (command_lifecycle, session.next.step,
// part:foo) into words ("command lifecycle").
func Humanize(name string) string {
	s := strings.NewReplacer("_", " ", ".", " ", "-", " ", ":", " ", "/", " ").Replace(name)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "unknown"
	}
	return s
}
