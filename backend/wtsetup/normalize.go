package wtsetup

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// FormatName is the raw format of worktree setup frames (tasks'
// raw_frames.format and messages.rawFormat).
const FormatName = "worktree-setup"

// OutputCap bounds the output a setup message shows: its last OutputCap
// bytes (the raw frames keep everything). A long install re-emits at most
// this much per update, not its whole log.
const OutputCap = 32 << 10

// ToolName names the setup in the task's transcript.
const ToolName = "Worktree setup"

// Frame is one raw frame of the setup format, one JSON line.
type Frame struct {
	// Type: "start", "output" or "end".
	Type string `json:"type"`
	// ID is the message id (every frame of one setup run carries it).
	ID string `json:"id"`
	// start
	Command *Command    `json:"command,omitempty"`
	Copy    *CopyResult `json:"copy,omitempty"`
	// output
	Data string `json:"data,omitempty"`
	// end
	Result   *Result `json:"result,omitempty"`
	Required bool    `json:"required,omitempty"`
	// DurationMs is how long the setup took (copy and command).
	DurationMs int64 `json:"durationMs,omitempty"`
}

// Format is the setup format for agent.Formats (re-normalization, the
// normalize command).
func Format() agent.Format {
	return agent.Format{Name: FormatName, New: func() agent.Normalizer { return &Normalizer{} }}
}

// Normalizer turns setup frames into one message per run: a tool-use part
// (kind execute, input {command, copied, skipped}) and its tool-result
// part (the output's tail; an error on failure). It never does I/O.
type Normalizer struct {
	id       string
	input    map[string]any
	out      strings.Builder
	dropped  int
	state    agent.ToolState
	failure  string
	duration int64 // ms, from the end frame
}

// Feed implements agent.Normalizer.
func (n *Normalizer) Feed(frame []byte) []agent.Event {
	var f Frame
	if err := json.Unmarshal(frame, &f); err != nil || f.ID == "" {
		return []agent.Event{{Type: agent.EventError, Error: fmt.Sprintf("worktree setup: unreadable frame: %v", err)}}
	}
	if f.ID != n.id {
		*n = Normalizer{id: f.ID, state: agent.ToolRunning, input: map[string]any{}}
	}
	switch f.Type {
	case "start":
		n.start(f)
	case "output":
		n.append(f.Data)
	case "end":
		n.end(f)
	default:
		return nil
	}
	m := n.Message()
	return []agent.Event{{Type: agent.EventMessage, Message: &m}}
}

func (n *Normalizer) start(f Frame) {
	if f.Command != nil {
		n.input["command"] = f.Command.Source
		n.input["shell"] = f.Command.Shell
	}
	n.input["description"] = "Worktree setup"
	if f.Copy != nil {
		n.input["copied"] = f.Copy.Copied
		if len(f.Copy.Skipped) > 0 {
			n.input["skipped"] = f.Copy.Skipped
		}
		if len(f.Copy.Copied) > 0 {
			n.append(fmt.Sprintf("copied %d file(s): %s\n", len(f.Copy.Copied), strings.Join(f.Copy.Copied, ", ")))
		}
	}
}

func (n *Normalizer) end(f Frame) {
	r := Result{}
	if f.Result != nil {
		r = *f.Result
	}
	n.duration = f.DurationMs
	if r.OK() {
		n.state = agent.ToolCompleted
		return
	}
	if r.Stopped {
		n.state, n.failure = agent.ToolCancelled, "setup "+r.Error
		return
	}
	n.state = agent.ToolError
	n.failure = fmt.Sprintf("setup failed (exit code %d)", r.Code)
	if r.Error != "" {
		n.failure = "setup failed: " + r.Error
	}
	if f.Required {
		n.failure += "; the agent was not started"
	}
}

// append keeps the last OutputCap bytes of output.
func (n *Normalizer) append(s string) {
	n.out.WriteString(s)
	if n.out.Len() <= OutputCap*2 {
		return
	}
	all := n.out.String()
	cut := len(all) - OutputCap
	n.dropped += cut
	n.out.Reset()
	n.out.WriteString(all[cut:])
}

// Message is the run's message as it stands.
func (n *Normalizer) Message() agent.Message {
	input, _ := json.Marshal(n.input)
	use := agent.Part{Type: agent.PartToolUse, ToolID: n.id, ToolName: ToolName, Kind: agent.ToolExecute, State: n.state, Input: input}
	// The message's timestamp (stamped when stored) is the setup's start;
	// DurationMs, once it ended, gives the tool row its duration.
	m := agent.Message{ID: n.id, Role: agent.RoleAssistant, Parts: []agent.Part{use}, Metadata: map[string]any{"source": FormatName},
		DurationMs: n.duration}
	if n.state == agent.ToolRunning && n.out.Len() == 0 {
		return m
	}
	text := n.out.String()
	if len(text) > OutputCap {
		n.dropped += len(text) - OutputCap
		text = text[len(text)-OutputCap:]
		n.out.Reset()
		n.out.WriteString(text)
	}
	if n.dropped > 0 {
		text = fmt.Sprintf("[%d earlier bytes not shown]\n", n.dropped) + text
	}
	if n.failure != "" {
		text += "\n" + n.failure
	}
	res := agent.Part{Type: agent.PartToolResult, ToolID: n.id, Content: agent.StringContent(text), IsError: n.state == agent.ToolError}
	m.Parts = append(m.Parts, res)
	return m
}

// Flush implements agent.Normalizer.
func (n *Normalizer) Flush() []agent.Event { return nil }
