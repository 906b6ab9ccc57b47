package agentmgr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Health is the result of starting an agent for real.
type Health struct {
	Backend agent.BackendType `json:"backend"`
	OK      bool              `json:"ok"`
	// Detail says what answered (or what failed).
	Detail     string `json:"detail"`
	DurationMs int64  `json:"durationMs"`
	// NotSignedIn: the CLI runs but has no credentials ("installed, not
	// signed in"); Sign in fixes it.
	NotSignedIn bool `json:"notSignedIn,omitempty"`
}

// Health starts spec's agent and checks it answers: Claude Code's
// initialize control request over stream-json, OpenCode's
// /global/health, an ACP agent's initialize, Codex's app-server
// initialize; others (Gemini CLI headless) only `--version`.
// It runs in a scratch directory, never in a project.
func (m *Manager) Health(ctx context.Context, spec Spec) Health {
	start := time.Now()
	h := Health{Backend: spec.Backend}
	detail, err := m.health(ctx, spec)
	h.DurationMs = time.Since(start).Milliseconds()
	if err != nil {
		h.Detail = err.Error()
		if LooksNotSignedIn(h.Detail) {
			h.NotSignedIn, h.Detail = true, "installed, not signed in: "+h.Detail
		}
		return h
	}
	if m.signedIn(ctx, spec) == signedOut {
		h.NotSignedIn, h.Detail = true, "installed, not signed in ("+detail+")"
		return h
	}
	h.OK, h.Detail = true, detail
	return h
}

func (m *Manager) health(ctx context.Context, spec Spec) (string, error) {
	set, err := m.Settings(ctx, spec.Backend)
	if err != nil {
		return "", err
	}
	path, _, err := m.Resolve(spec, set.BinaryPath)
	if err != nil {
		return "", err
	}
	env := set.envList()
	ctx, cancel := context.WithTimeout(ctx, m.opt.HealthTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "jc-health-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	switch spec.Probe {
	case ProbeClaude:
		args := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
			"--permission-prompt-tool", "stdio", "--permission-mode", "default"}
		answer := func(line []byte) (string, bool, error) {
			d, ok, err := claudeAnswer(line)
			if ok && err == nil {
				m.rememberModels(ctx, spec.Backend, claudeModels(line))
			}
			return d, ok, err
		}
		return m.stdioProbe(ctx, path, args, append([]string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}, env...), dir,
			`{"type":"control_request","request_id":"jc_health_1","request":{"subtype":"initialize"}}`, answer)
	case ProbeACP:
		args := append(append([]string{}, spec.Args...), set.ExtraArgs...)
		return m.probeWithModels(ctx, spec.Backend, path, args, env, dir, acpProbeRequests(dir), acpAnswer, acpModels)
	case ProbeCodex:
		args := append([]string{"app-server"}, set.ExtraArgs...)
		return m.probeWithModels(ctx, spec.Backend, path, args, env, dir, codexProbeRequests, codexAnswer, codexModels)
	case ProbeOpenCode:
		return m.openCodeProbe(ctx, path, env, dir)
	default:
		v, err := m.Version(ctx, path, env)
		if err != nil {
			return "", err
		}
		return "--version answered " + v + " (no deeper check for this agent)", nil
	}
}

// claudeAnswer recognizes the initialize control_response.
func claudeAnswer(line []byte) (string, bool, error) {
	var f struct {
		Type     string `json:"type"`
		Response struct {
			Subtype   string `json:"subtype"`
			RequestID string `json:"request_id"`
			Error     string `json:"error"`
			Response  struct {
				Models   []json.RawMessage `json:"models"`
				Commands []json.RawMessage `json:"commands"`
			} `json:"response"`
		} `json:"response"`
	}
	if json.Unmarshal(line, &f) != nil || f.Type != "control_response" || f.Response.RequestID != "jc_health_1" {
		return "", false, nil
	}
	if f.Response.Subtype != "success" {
		return "", true, fmt.Errorf("initialize failed: %s", f.Response.Error)
	}
	return fmt.Sprintf("initialize answered (%d models, %d commands)", len(f.Response.Response.Models), len(f.Response.Response.Commands)), true, nil
}

// codexAnswer recognizes the app-server's initialize result.
func codexAnswer(line []byte) (string, bool, error) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			UserAgent string `json:"userAgent"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &f) != nil || string(f.ID) != "1" {
		return "", false, nil
	}
	if f.Error != nil {
		return "", true, fmt.Errorf("initialize failed: %s", f.Error.Message)
	}
	if f.Result == nil {
		return "", true, errors.New("initialize answered without a result")
	}
	if f.Result.UserAgent != "" {
		return "app-server initialize answered (" + f.Result.UserAgent + ")", true, nil
	}
	return "app-server initialize answered", true, nil
}

// acpProbeRequests: initialize, then session/new in the probe's empty
// folder, whose answer lists the agent's models (an agent that needs a
// sign-in first refuses it; the probe keeps the initialize answer).
func acpProbeRequests(dir string) string {
	cwd, _ := json.Marshal(dir)
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}}` +
		"\n" + `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + string(cwd) + `,"mcpServers":[]}}`
}

// codexProbeRequests: initialize, then model/list (pipelined; the server
// reads them in order).
const codexProbeRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"jean-claude","title":"Jean-Claude","version":"health"},"capabilities":{"experimentalApi":true}}}
{"jsonrpc":"2.0","method":"initialized"}
{"jsonrpc":"2.0","id":2,"method":"model/list","params":{}}`

// withModels makes a probe's answer matcher that waits for the initialize
// answer (first), then for the answer that lists the agent's models (models;
// ok false for other lines), remembered for the model picker. initialized
// returns the initialize answer once it came, so an agent that never
// answers the second request still passes the health check.
func (m *Manager) withModels(ctx context.Context, b agent.BackendType, first func([]byte) (string, bool, error),
	models func([]byte) ([]Model, bool)) (match func([]byte) (string, bool, error), initialized func() string) {
	var init string
	return func(line []byte) (string, bool, error) {
		if init == "" {
			d, ok, err := first(line)
			if !ok || err != nil {
				return d, ok, err
			}
			init = d
			return "", false, nil
		}
		ms, ok := models(line)
		if !ok {
			return "", false, nil
		}
		m.rememberModels(ctx, b, ms)
		if len(ms) > 0 {
			return fmt.Sprintf("%s, %d models", init, len(ms)), true, nil
		}
		return init, true, nil
	}, func() string { return init }
}

// probeWithModels runs a stdio probe whose second answer lists models.
func (m *Manager) probeWithModels(ctx context.Context, b agent.BackendType, path string, args, env []string, dir, requests string,
	first func([]byte) (string, bool, error), models func([]byte) ([]Model, bool)) (string, error) {
	match, initialized := m.withModels(ctx, b, first, models)
	d, err := m.stdioProbe(ctx, path, args, env, dir, requests, match)
	if err != nil && initialized() != "" {
		return initialized(), nil
	}
	return d, err
}

// acpAnswer recognizes the initialize result.
func acpAnswer(line []byte) (string, bool, error) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       *struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"agentInfo"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &f) != nil || string(f.ID) != "1" {
		return "", false, nil
	}
	if f.Error != nil {
		return "", true, fmt.Errorf("initialize failed: %s", f.Error.Message)
	}
	if f.Result == nil {
		return "", true, errors.New("initialize answered without a result")
	}
	d := fmt.Sprintf("initialize answered (protocol %d", f.Result.ProtocolVersion)
	if a := f.Result.AgentInfo; a != nil {
		d += ", " + a.Name + " " + a.Version
	}
	return d + ")", true, nil
}

// stdioProbe starts path, writes request on stdin and reads stdout lines
// until match recognizes the answer.
func (m *Manager) stdioProbe(ctx context.Context, path string, args, env []string, dir, request string,
	match func([]byte) (string, bool, error)) (string, error) {
	cmd := command(ctx, path, args, env, dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	tail := proc.NewTail(4 << 10)
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", path, err)
	}
	waited := false
	var waitErr error
	wait := func() error { // the process has exited: reap it so stderr is all copied
		if !waited {
			waited, waitErr = true, cmd.Wait()
		}
		return waitErr
	}
	defer func() {
		stdin.Close()
		if !waited {
			_ = cmd.Cancel()
			_ = wait()
		}
		proc.KillGroup(cmd, syscall.SIGKILL)
	}()
	// A write can fail (EPIPE) when the agent died at once; what it said on
	// stderr is the useful answer then, so read on to its exit before saying why.
	_, writeErr := io.WriteString(stdin, request+"\n")
	for line, err := range agent.Lines(stdout) {
		if err != nil {
			return "", err
		}
		if d, ok, err := match(line); ok {
			return d, err
		}
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("no answer in %s: %s", m.opt.HealthTimeout, tail.String())
	}
	exit := wait()
	why := strings.TrimSpace(tail.String())
	if why == "" && writeErr != nil {
		why = fmt.Sprintf("write to %s: %v", path, writeErr)
	}
	if exit != nil {
		return "", fmt.Errorf("exited without answering (%v): %s", exit, why)
	}
	return "", fmt.Errorf("exited without answering: %s", why)
}

// openCodeProviders asks a healthy server for its providers' models.
func (m *Manager) openCodeProviders(ctx context.Context, base string) []Model {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodGet, base+"/config/providers", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil
	}
	return openCodeModels(body)
}

// openCodeProbe starts `opencode serve` on a free port and waits for
// /global/health.
func (m *Manager) openCodeProbe(ctx context.Context, path string, env []string, dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := command(ctx, path, []string{"serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port)}, env, dir)
	tail := proc.NewTail(4 << 10)
	cmd.Stdout, cmd.Stderr = tail, tail
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Cancel()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
		proc.KillGroup(cmd, syscall.SIGKILL)
	}()
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/global/health"
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var h struct {
				Healthy bool   `json:"healthy"`
				Version string `json:"version"`
			}
			derr := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h)
			resp.Body.Close()
			cancel()
			if derr == nil && h.Healthy {
				d := "server healthy (version " + h.Version + ")"
				if ms := m.openCodeProviders(ctx, strings.TrimSuffix(url, "/global/health")); len(ms) > 0 {
					m.rememberModels(ctx, agent.BackendOpenCode, ms)
					d += fmt.Sprintf(", %d models", len(ms))
				}
				return d, nil
			}
			last = fmt.Errorf("GET /global/health: %s", resp.Status)
		} else {
			cancel()
			last = err
		}
		select {
		case err := <-exited:
			exited <- err
			return "", fmt.Errorf("server exited (%v): %s", err, tail.String())
		case <-ctx.Done():
			return "", fmt.Errorf("server not healthy in %s (%v): %s", m.opt.HealthTimeout, last, tail.String())
		case <-tick.C:
		}
	}
}
