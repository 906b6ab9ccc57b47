package agent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompleteClipsTheReplyNotTheResult(t *testing.T) {
	long := strings.Repeat("é", CompleteTextLimit) // 2 bytes a rune: the limit falls inside one
	res := &Result{Text: long, Reason: "end_turn"}
	ev := Complete(res)
	if ev.Type != EventComplete || ev.Result == nil {
		t.Fatalf("Complete = %+v", ev)
	}
	got := ev.Result.Text
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > CompleteTextLimit+len("…") {
		t.Errorf("clipped text: %d bytes, valid %v, %q…", len(got), utf8.ValidString(got), got[:10])
	}
	if !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) || ev.Result.Reason != "end_turn" {
		t.Errorf("the event's result is not the result clipped: %+v", ev.Result)
	}
	if res.Text != long {
		t.Error("Complete changed the result it was given")
	}
	short := &Result{Text: "done"}
	if ev := Complete(short); ev.Result != short {
		t.Error("a short text is not passed as is")
	}
	if ev := Complete(nil); ev.Type != EventComplete || ev.Result != nil {
		t.Errorf("Complete(nil) = %+v", ev)
	}
}

func TestResultTextIsTheErrorOnly(t *testing.T) {
	if got := ResultText(&Result{Text: "the reply"}); got != "" {
		t.Errorf("success: %q, want nothing (the reply is in its message)", got)
	}
	if got := ResultText(&Result{Text: "rate limited", IsError: true}); got != "rate limited" {
		t.Errorf("error: %q", got)
	}
	if got := ResultText(nil); got != "" {
		t.Errorf("nil: %q", got)
	}
}
