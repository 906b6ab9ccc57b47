package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// A session on another host looks up neither the command nor the folder
// on this machine: the transport gets the configured command and the
// host's folder (neither exists here). A local session still checks both.
func TestStartOnHostLooksNothingUpLocally(t *testing.T) {
	b, err := New(Config{Name: "acp.test.fake", Command: "/nowhere/fakeagent", Args: []string{"--acp"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &agenttest.HostRecorder{}
	cfg := agent.Config{Cwd: "/only/on/the/host/app", Recorder: r}
	_, err = b.Start(agent.OnHost(context.Background()), cfg, "hi")
	if !errors.Is(err, agenttest.ErrHostOnly) || len(r.Got) != 1 {
		t.Fatalf("Start on a host = %v (%d starts), want the transport's error", err, len(r.Got))
	}
	if s := r.Got[0]; s.Path != "/nowhere/fakeagent" || s.Dir != cfg.Cwd || len(s.Args) != 1 || s.Args[0] != "--acp" {
		t.Fatalf("spec = %q %q in %q", s.Path, s.Args, s.Dir)
	}
	if _, err := b.Start(agent.OnHost(context.Background()), agent.Config{Cwd: "app", Recorder: r}, ""); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("relative folder on a host: %v", err)
	}
	if _, err := b.Start(context.Background(), cfg, "hi"); !errors.Is(err, agent.ErrBinaryNotFound) || len(r.Got) != 1 {
		t.Fatalf("local Start = %v (%d starts), want ErrBinaryNotFound before any start", err, len(r.Got))
	}
}

// On a host the client offers no fs and refuses the agent's file requests
// (even Gemini's preset, which reads through the client anyway) without
// touching this machine's disk, where a folder of the same path may exist.
func TestFilesNotServedOnHost(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gemini := Presets()[0]
	if !gemini.MissingFileEmpty {
		t.Fatal("the first preset is no longer Gemini's")
	}
	for _, onHost := range []bool{false, true} {
		s := &session{b: &Backend{cfg: gemini}, root: dir, onHost: onHost}
		c := &client{s: s}
		if s.servesFiles() == onHost {
			t.Errorf("onHost %v: servesFiles = %v", onHost, s.servesFiles())
		}
		got, rerr := c.ReadTextFile(context.Background(), sdk.ReadTextFileRequest{Path: filepath.Join(dir, "a.txt")})
		_, merr := c.ReadTextFile(context.Background(), sdk.ReadTextFileRequest{Path: filepath.Join(dir, "missing.txt")})
		written := filepath.Join(dir, fmt.Sprintf("b-%v.txt", onHost))
		_, werr := c.WriteTextFile(context.Background(), sdk.WriteTextFileRequest{Path: written, Content: "x"})
		_, statErr := os.Stat(written)
		if onHost {
			if rerr == nil || merr == nil || werr == nil || statErr == nil {
				t.Errorf("on a host: read %q %v, missing %v, write %v (file here: %v)", got.Content, rerr, merr, werr, statErr == nil)
			}
			continue
		}
		if rerr != nil || got.Content != "local\n" || merr != nil || werr != nil || statErr != nil {
			t.Errorf("local: read %q %v, missing %v, write %v, stat %v", got.Content, rerr, merr, werr, statErr)
		}
	}
}
