package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// client talks to one `opencode serve` over HTTP: the REST routes and the
// SSE event stream. Every request carries the basic-auth password (when the
// server has one) and the session's directory, which selects the project
// instance inside the shared server.
type client struct {
	base     string // http://127.0.0.1:PORT
	user     string
	password string
	dir      string
	hc       *http.Client
}

// errHTTPNotFound is a 404 from the server (unknown session or request).
var errHTTPNotFound = errors.New("not found")

// HTTPError is a non-2xx answer.
type HTTPError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("opencode: %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, strings.TrimSpace(e.Body))
}

// Is makes errors.Is(err, errHTTPNotFound) true for a 404.
func (e *HTTPError) Is(target error) bool {
	return target == errHTTPNotFound && e.Status == http.StatusNotFound
}

// restTimeout bounds one REST call (the SSE stream has none).
const restTimeout = 30 * time.Second

func (c *client) url(path string) string {
	u := c.base + path
	if c.dir != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		u += sep + "directory=" + url.QueryEscape(c.dir)
	}
	return u
}

func (c *client) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.password != "" {
		req.SetBasicAuth(c.user, c.password)
	}
	return req, nil
}

// do sends a REST request and decodes a JSON answer into out (if not nil).
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		if len(data) > 2000 {
			data = data[:2000]
		}
		return &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Body: string(data)}
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("opencode: %s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

func (c *client) health(ctx context.Context) (wireHealth, error) {
	var h wireHealth
	err := c.do(ctx, http.MethodGet, "/global/health", nil, &h)
	if err == nil && !h.Healthy {
		err = errors.New("opencode: server not healthy")
	}
	return h, err
}

// createSession creates a session; raw is the server's answer (a Session).
func (c *client) createSession(ctx context.Context, rules []wirePermissionRule) (json.RawMessage, error) {
	body := map[string]any{}
	if len(rules) > 0 {
		body["permission"] = rules
	}
	var raw json.RawMessage
	err := c.do(ctx, http.MethodPost, "/session", body, &raw)
	return raw, err
}

func (c *client) getSession(ctx context.Context, id string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(id), nil, &raw)
	return raw, err
}

func (c *client) updateSessionPermission(ctx context.Context, id string, rules []wirePermissionRule) error {
	return c.do(ctx, http.MethodPatch, "/session/"+url.PathEscape(id), map[string]any{"permission": rules}, nil)
}

func (c *client) promptAsync(ctx context.Context, id string, body wirePromptBody) error {
	return c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(id)+"/prompt_async", body, nil)
}

func (c *client) abort(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(id)+"/abort", nil, nil)
}

func (c *client) messages(ctx context.Context, id string) ([]wireMessageWithParts, error) {
	var out []wireMessageWithParts
	err := c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(id)+"/message", nil, &out)
	return out, err
}

// status returns the status type ("idle", "busy", "retry") of every
// non-idle session; a session missing from the map is idle.
func (c *client) status(ctx context.Context) (map[string]string, error) {
	var raw map[string]struct {
		Type string `json:"type"`
	}
	if err := c.do(ctx, http.MethodGet, "/session/status", nil, &raw); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range raw {
		out[k] = v.Type
	}
	return out, nil
}

// pending lists GET /permission or GET /question: the requests still
// waiting for an answer, each as its raw JSON.
func (c *client) pending(ctx context.Context, kind string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := c.do(ctx, http.MethodGet, "/"+kind, nil, &out)
	return out, err
}

func (c *client) replyPermission(ctx context.Context, reqID, reply, message string) error {
	body := map[string]string{"reply": reply}
	if message != "" {
		body["message"] = message
	}
	return c.do(ctx, http.MethodPost, "/permission/"+url.PathEscape(reqID)+"/reply", body, nil)
}

func (c *client) replyQuestion(ctx context.Context, reqID string, answers [][]string) error {
	if answers == nil {
		answers = [][]string{}
	}
	return c.do(ctx, http.MethodPost, "/question/"+url.PathEscape(reqID)+"/reply", map[string]any{"answers": answers}, nil)
}

// stream reads GET /event until it ends, the context ends or fn returns
// false: onOpen runs once the server answered, then fn gets each SSE data
// payload.
func (c *client) stream(ctx context.Context, onOpen func(), fn func(frame []byte) bool) error {
	req, err := c.newRequest(ctx, http.MethodGet, "/event", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("opencode: GET /event: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
		return &HTTPError{Method: http.MethodGet, Path: "/event", Status: resp.StatusCode, Body: string(data)}
	}
	onOpen()
	for frame, err := range Frames(resp.Body) {
		if err != nil {
			return fmt.Errorf("opencode: GET /event: %w", err)
		}
		if !fn(frame) {
			return nil
		}
	}
	return io.ErrUnexpectedEOF
}
