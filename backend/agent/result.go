package agent

import "unicode/utf8"

// NormalizationVersion is the version of the normalizers' mapping logic,
// stored with every normalized message. Bump it when a normalizer's output
// changes: at startup, stored messages of an older version are re-normalized
// from their raw data (orchestrator.Renormalize).
// 2: a result row that the normalizer made up (ACP, Gemini, Codex, OpenCode)
// no longer copies the reply (ResultText); with it come the earlier changes
// of the streaming-normalizer work (deltas folded into whole messages,
// per-field decoding, tool calls closed at the turn's end).
const NormalizationVersion = 2

// CompleteTextLimit bounds the Text of a complete event, in bytes. The event
// says that a turn ended and how (the notification's line, the turn's end
// row); the reply itself is in the turn's messages, so the event does not
// carry it a second time: a 200 KB reply would otherwise cost 200 KB more in
// every stream, store and UI event that carries the event.
const CompleteTextLimit = 1024

// Complete is the event that ends a turn with res. Its Text is clipped to
// CompleteTextLimit bytes at a rune boundary, "…" appended (res is not
// changed: the turn's result message keeps what it was given).
func Complete(res *Result) Event {
	if res == nil || len(res.Text) <= CompleteTextLimit {
		return Event{Type: EventComplete, Result: res}
	}
	c := *res
	c.Text = clipText(res.Text, CompleteTextLimit) + "…"
	return Event{Type: EventComplete, Result: &c}
}

// ResultText is the text a normalizer puts in the result message of a turn
// it closes itself (the agent sent no result text of its own): the error's
// text when the turn failed, else nothing — a successful turn's reply is
// already in its assistant message, and copying it into the result row would
// store, index and send it twice.
func ResultText(res *Result) string {
	if res == nil || !res.IsError {
		return ""
	}
	return res.Text
}

// clipText is s cut to at most n bytes, at a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
