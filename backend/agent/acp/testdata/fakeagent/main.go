// Command fakeagent is a scripted ACP agent for the acp package's process
// tests, built on the SDK's agent side. Prompts containing "permission" ask
// to write hello.txt (through the client's fs/write_text_file when the
// client offers it, else itself) and end the turn; prompts containing "slow" stream one chunk and wait for
// session/cancel; prompts containing "stream" stream FAKEAGENT_STREAM chunks
// FAKEAGENT_DELAY apart (which also delays the permission question);
// FAKEAGENT_OUT_LOG records everything it writes. At start it spawns a child (sleep) in its process group so
// the tests can check nothing is orphaned.
//
// FAKEAGENT_BEHAVIOR picks one of the protocol's edge cases:
//
//	exit-at-once   writes to stderr and exits 0 before reading anything
//	never-answer   reads its input and never answers
//	wrong-version  answers initialize with protocol version 99
//	load-fails     advertises loadSession, then fails it as Gemini CLI 0.61 does
//	new-fails      fails session/new after writing why on stderr (claude-code-acp as root)
//	banner         prints a banner line on stdout before speaking ACP
//
// FAKEAGENT_FORK=1 advertises session/fork (sessionCapabilities.fork).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

type fake struct {
	conn  *acp.AgentSideConnection
	cwd   string
	model string
	fs    acp.FileSystemCapabilities // what the client offered
}

func (f *fake) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (f *fake) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	f.fs = p.ClientCapabilities.Fs
	v := acp.ProtocolVersion(acp.ProtocolVersionNumber)
	if behavior == "wrong-version" {
		v = 99
	}
	caps := acp.AgentCapabilities{LoadSession: true}
	caps.McpCapabilities.Http = os.Getenv("FAKEAGENT_MCP_HTTP") == "1"
	if os.Getenv("FAKEAGENT_FORK") == "1" {
		caps.SessionCapabilities.Fork = &acp.SessionForkCapabilities{}
	}
	return acp.InitializeResponse{ProtocolVersion: v, AgentCapabilities: caps,
		AgentInfo: &acp.Implementation{Name: "fakeagent", Version: "1.2.3"}}, nil
}

var behavior = os.Getenv("FAKEAGENT_BEHAVIOR")

func (f *fake) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (f *fake) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (f *fake) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

func modes(current string) *acp.SessionModeState {
	return &acp.SessionModeState{CurrentModeId: acp.SessionModeId(current), AvailableModes: []acp.SessionMode{
		{Id: "default", Name: "Default"}, {Id: "yolo", Name: "YOLO"}, {Id: "plan", Name: "Plan"},
	}}
}

func (f *fake) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	f.cwd = p.Cwd
	if path := os.Getenv("FAKEAGENT_MCP_FILE"); path != "" {
		b, _ := json.Marshal(p.McpServers)
		_ = os.WriteFile(path, b, 0o600)
	}
	if behavior == "new-fails" {
		fmt.Fprintln(os.Stderr, "Error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons")
		return acp.NewSessionResponse{}, acp.NewInternalError(map[string]any{"details": "Query closed before response received"})
	}
	return acp.NewSessionResponse{SessionId: "fake-session-1", Modes: modes("default"), Models: &acp.SessionModelState{
		CurrentModelId: "small", AvailableModels: []acp.ModelInfo{{ModelId: "small", Name: "Small"}, {ModelId: "big", Name: "Big"}},
	}}, nil
}

func (f *fake) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	f.cwd = p.Cwd
	if behavior == "load-fails" {
		return acp.LoadSessionResponse{}, acp.NewInternalError(map[string]any{"details": "No previous sessions found for this project"})
	}
	// Replay some history, as real agents do.
	_ = f.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText("old history")})
	return acp.LoadSessionResponse{Modes: modes("default")}, nil
}

// UnstableForkSession answers session/fork (advertised with FAKEAGENT_FORK=1)
// with the copy "fork-of-<id>".
func (f *fake) UnstableForkSession(_ context.Context, p acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
	f.cwd = p.Cwd
	return acp.UnstableForkSessionResponse{SessionId: "fork-of-" + p.SessionId, Modes: modes("default")}, nil
}

func (f *fake) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, nil
}

func (f *fake) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

func (f *fake) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	_ = f.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.SessionUpdate{
		CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: p.ModeId, SessionUpdate: "current_mode_update"},
	}})
	return acp.SetSessionModeResponse{}, nil
}

func (f *fake) UnstableSetSessionModel(ctx context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	f.model = string(p.ModelId)
	return acp.UnstableSetSessionModelResponse{}, nil
}

func (f *fake) say(ctx context.Context, sid acp.SessionId, text string) {
	_ = f.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)})
}

func (f *fake) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	text := ""
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	cmd := text
	if _, after, ok := strings.Cut(text, "New message:\n"); ok {
		cmd = after // a prompt seeded with a transcript: act on the new message
	}
	switch {
	case strings.Contains(cmd, "stream"):
		// FAKEAGENT_STREAM chunks, FAKEAGENT_DELAY apart (the relay tests).
		n, _ := strconv.Atoi(os.Getenv("FAKEAGENT_STREAM"))
		delay, _ := time.ParseDuration(os.Getenv("FAKEAGENT_DELAY"))
		for i := 1; i <= n && ctx.Err() == nil; i++ {
			time.Sleep(delay)
			f.say(ctx, p.SessionId, fmt.Sprintf("w%d ", i))
		}
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	case strings.Contains(cmd, "permission"):
		return f.permission(ctx, p.SessionId)
	case strings.Contains(cmd, "flood"):
		// Writes until cancelled: 1 KiB chunks, as fast as the client reads.
		chunk := strings.Repeat("x", 1024)
		for ctx.Err() == nil {
			f.say(ctx, p.SessionId, chunk)
		}
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case strings.Contains(cmd, "slow"):
		f.say(ctx, p.SessionId, "working")
		<-ctx.Done() // the SDK cancels this on session/cancel
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if f.model != "" {
		text += " [" + f.model + "]"
	}
	f.say(ctx, p.SessionId, "echo: "+text)
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (f *fake) permission(ctx context.Context, sid acp.SessionId) (acp.PromptResponse, error) {
	path := filepath.Join(f.cwd, "hello.txt")
	f.say(ctx, sid, "Writing hello.txt.")
	if d, _ := time.ParseDuration(os.Getenv("FAKEAGENT_DELAY")); d > 0 {
		time.Sleep(d) // the relay tests: the question comes while the app is away
	}
	diff := []acp.ToolCallContent{acp.ToolDiffContent(path, "hello\n")}
	_ = f.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.StartToolCall("call_1", "Write hello.txt",
		acp.WithStartKind(acp.ToolKindEdit), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartContent(diff))})
	resp, err := f.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: sid,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call_1", Title: acp.Ptr("Write hello.txt"), Kind: acp.Ptr(acp.ToolKindEdit), Content: diff},
		Options: []acp.PermissionOption{
			{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always", OptionId: "always"},
			{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "once"},
			{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "no"},
		},
	})
	if err != nil && ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if resp.Outcome.Cancelled != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId == "no" {
		_ = f.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.UpdateToolCall("call_1", acp.WithUpdateStatus(acp.ToolCallStatusFailed))})
		f.say(ctx, sid, "Rejected.")
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	if err := f.write(ctx, sid, path, "hello\n"); err != nil {
		return acp.PromptResponse{}, err
	}
	// Reading outside the folder must be refused by the client.
	if _, err := f.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: sid, Path: "/etc/passwd"}); err == nil {
		f.say(ctx, sid, "LEAK: read outside the folder.")
	}
	_ = f.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.UpdateToolCall("call_1",
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateContent(diff))})
	f.say(ctx, sid, "Done ("+string(resp.Outcome.Selected.OptionId)+").")
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// write writes a file through the client when it offered
// fs/write_text_file, else itself (as agents do when fs is not offered).
func (f *fake) write(ctx context.Context, sid acp.SessionId, path, content string) error {
	if !f.fs.WriteTextFile {
		return os.WriteFile(path, []byte(content), 0o644)
	}
	_, err := f.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: sid, Path: path, Content: content})
	return err
}

func main() {
	switch behavior {
	case "exit-at-once":
		fmt.Fprintln(os.Stderr, "fakeagent: no API key configured")
		os.Exit(0)
	case "never-answer":
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour) // even at EOF: only a signal ends it
	case "banner":
		fmt.Println("Welcome to fakeagent 1.2.3!")
	}
	child := exec.Command("sleep", "300")
	_ = child.Start()
	if pidFile := os.Getenv("FAKEAGENT_CHILD_PID_FILE"); pidFile != "" && child.Process != nil {
		_ = os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644)
	}
	f := &fake{}
	var out io.Writer = os.Stdout
	if path := os.Getenv("FAKEAGENT_OUT_LOG"); path != "" {
		// Its own record of every byte it writes, first (the relay tests).
		if log, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			out = io.MultiWriter(log, os.Stdout)
		}
	}
	f.conn = acp.NewAgentSideConnection(f, out, os.Stdin)
	<-f.conn.Done()
}
