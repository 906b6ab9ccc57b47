package gemini

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
)

// fakeGemini writes a stand-in gemini that logs its arguments and replays
// recordings: "slow" prompts hang until interrupted, "crash" exits 41. The
// prompt comes on stdin (logged after the arguments, " | prompt").
func fakeGemini(t *testing.T) (bin, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	argsFile = filepath.Join(dir, "args")
	script := `#!/bin/sh
prompt=$(cat)
printf '%s | %s\n' "$*" "$prompt" >> "` + argsFile + `"
case "$prompt" in
*slow*) head -2 "` + abs + `/main_yolo.jsonl"; exec sleep 30 ;;
*crash*) echo "auth is broken" >&2; exit 41 ;;
*quota*) cat "` + abs + `/err429.jsonl"; exit 173 ;;
*) cat "` + abs + `/main_yolo.jsonl" ;;
esac
`
	bin = filepath.Join(dir, "gemini")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argsFile
}

// frames keeps every raw frame drainUntil read, to replay them afterwards.
var frames = map[agent.Session][]agent.Batch{}

func drainUntil(t *testing.T, s agent.Session, typ agent.EventType) agent.Event {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case b, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed before %s", typ)
			}
			frames[s] = append(frames[s], b)
			for _, ev := range b.Events {
				if ev.Type == typ {
					return ev
				}
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %s", typ)
		}
	}
}

func TestProcessTurnsResumeAndErrors(t *testing.T) {
	bin, argsFile := fakeGemini(t)
	b := New(Options{Binary: bin})
	if b.Info().Capabilities.Permissions || b.Info().Notes == "" {
		t.Errorf("Info must say permissions need ACP: %+v", b.Info())
	}
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), Mode: agent.ModeBypass, Model: "gemini-2.5-pro"}, "hello")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	ev := drainUntil(t, s, agent.EventComplete)
	if ev.Result.Text != "Done: hello.txt was created and the directory listing shows it." {
		t.Errorf("first turn: %+v", ev.Result)
	}
	if err := s.SetMode(ctx, agent.ModeAcceptEdits); err != nil {
		t.Fatal(err)
	}
	if err := s.SendMessage(ctx, "quota please"); err != nil {
		t.Fatal(err)
	}
	ev = drainUntil(t, s, agent.EventError)
	if !ev.Fatal || !strings.Contains(ev.Error, "quota") {
		t.Errorf("quota turn: %+v", ev)
	}
	if err := s.SendMessage(ctx, "crash now"); err != nil {
		t.Fatal(err)
	}
	ev = drainUntil(t, s, agent.EventError)
	if !ev.Fatal || !strings.Contains(ev.Error, "code 41") || !strings.Contains(ev.Error, "auth is broken") {
		t.Errorf("crash turn: %+v", ev)
	}
	if err := s.SendMessage(ctx, "be slow"); err != nil {
		t.Fatal(err)
	}
	drainUntil(t, s, agent.EventMessage)
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	ev = drainUntil(t, s, agent.EventComplete)
	if !ev.Result.Interrupted {
		t.Errorf("interrupted turn: %+v", ev.Result)
	}
	replay := NewNormalizer()
	for i, b := range frames[s] {
		if b.Frame == nil {
			continue
		}
		if d := cmp.Diff(b.Events, replay.Feed(b.Frame)); d != "" {
			t.Fatalf("batch %d: live and replayed events differ (-live +replay):\n%s", i, d)
		}
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-s.Events(); ok {
		// drain what is left; the channel must end closed
		for range s.Events() {
		}
	}
	if err := s.SendMessage(ctx, "x"); !errors.Is(err, agent.ErrSessionClosed) {
		t.Errorf("SendMessage after Stop = %v", err)
	}

	raw, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	calls := strings.Split(strings.TrimSpace(string(raw)), "\n")
	want := []string{
		"--output-format=stream-json --yolo --model=gemini-2.5-pro | hello",
		"--output-format=stream-json --approval-mode=auto_edit --model=gemini-2.5-pro --resume=fd2dd275-e5dc-46db-b174-e89c8829c4db | quota please",
		"--output-format=stream-json --approval-mode=auto_edit --model=gemini-2.5-pro --resume=f72cca78-e57e-47b3-8db6-3e89210aa600 | crash now",
	}
	for i, w := range want {
		if i >= len(calls) || calls[i] != w {
			t.Errorf("call %d = %q, want %q", i, calls[min(i, len(calls)-1)], w)
		}
	}
}

func TestMissingBinary(t *testing.T) {
	_, err := New(Options{Binary: "no-such-gemini-binary"}).Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestExitError(t *testing.T) {
	if got := ExitError(173, ""); !strings.Contains(got, "429") {
		t.Errorf("173: %s", got)
	}
	if got := ExitError(244, "x\ny"); !strings.Contains(got, "500") || !strings.HasSuffix(got, "x\ny") {
		t.Errorf("244: %s", got)
	}
}

// TestArgsNoValueBecomesAFlag: a model named like a flag stays the value of
// --model, and the prompt (even one looking like a flag, even 200 KiB) is
// not on the command line at all.
func TestArgsNoValueBecomesAFlag(t *testing.T) {
	args := Args(agent.ModeAsk, "--yolo", "--yolo", nil)
	for _, a := range args {
		if a == "--yolo" {
			t.Fatalf("a value became a flag: %q", args)
		}
	}
	bin, argsFile := fakeGemini(t)
	s, err := New(Options{Binary: bin}).Start(context.Background(), agent.Config{Cwd: t.TempDir(), Model: "--yolo"},
		strings.Repeat("--yolo ", 200<<10/7))
	if err != nil {
		t.Fatal(err)
	}
	drainUntil(t, s, agent.EventComplete)
	_ = s.Stop(context.Background())
	raw, _ := os.ReadFile(argsFile)
	line := strings.SplitN(string(raw), " | ", 2)
	if len(line) != 2 || line[0] != "--output-format=stream-json --model=--yolo" || len(line[1]) < 200<<10-10 {
		t.Fatalf("call = %.200q", raw)
	}
}
