// Package fakeoc is a scripted stand-in for `opencode serve`, for tests: it
// serves the REST routes the OpenCode backend uses and replays a recorded
// `GET /event` stream when prompted, pausing at each permission or question
// until it is answered. Tests can cut the event streams to play a server
// outage. It keeps the messages it has streamed so GET /session/{id}/message
// answers like the real server.
package fakeoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Script is a recorded session: the frames the server streams after a
// prompt, with the recorded session id to replace by the live one.
type Script struct {
	SessionID string
	Frames    [][]byte
	// Created is the POST /session answer (its id is replaced too).
	Created []byte
}

// Fake is the fake server. Create it with New.
type Fake struct {
	script   Script
	password string
	// OnFrame, when set, runs before frame i of a playback is streamed.
	OnFrame func(i int, frame []byte)
	// FrameDelay separates two streamed frames.
	FrameDelay time.Duration

	mu       sync.Mutex
	subs     map[chan []byte]struct{}
	refuse   bool
	sessions map[string]*session
	nextID   int
	log      []string
	unauth   int
	replies  map[string]chan string
}

type session struct {
	id       string
	status   string
	msgOrder []string
	msgs     map[string]*message
	perms    map[string][]byte // pending permission.asked properties
	quests   map[string][]byte
	aborted  chan struct{}
	playing  bool
	plays    int // prompts played: the second one gets fresh message ids
}

type message struct {
	info      json.RawMessage
	partOrder []string
	parts     map[string]map[string]any
}

// New returns a fake serving script; password, when set, is required as
// basic auth (user "opencode") on every route.
func New(script Script, password string) *Fake {
	return &Fake{script: script, password: password, subs: map[chan []byte]struct{}{}, sessions: map[string]*session{}, replies: map[string]chan string{}}
}

// Log lists the requests served: "METHOD /path?query body".
func (f *Fake) Log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

// Playing reports whether a prompt of session id is still being played
// (a prompt sent meanwhile is not played).
func (f *Fake) Playing(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[id]
	return s != nil && s.playing
}

// Unauthorized counts requests refused for missing credentials.
func (f *Fake) Unauthorized() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unauth
}

// Subscribers counts the connected event streams.
func (f *Fake) Subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// Outage cuts every event stream; while on, new ones are refused (503).
func (f *Fake) Outage(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = on
	if on {
		for ch := range f.subs {
			close(ch)
			delete(f.subs, ch)
		}
	}
}

// WaitSubscribers waits until n event streams are connected.
func (f *Fake) WaitSubscribers(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if f.Subscribers() >= n {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

func (f *Fake) broadcast(frame []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(frame)
	for ch := range f.subs {
		select {
		case ch <- frame:
		default: // a stuck client loses the stream, like a real one
			close(ch)
			delete(f.subs, ch)
		}
	}
}

// record keeps the session state GET /session/{id}/message and
// /session/status answer from. Caller holds mu.
func (f *Fake) record(frame []byte) {
	var env struct {
		Type       string `json:"type"`
		Properties struct {
			SessionID string          `json:"sessionID"`
			Info      json.RawMessage `json:"info"`
			Part      json.RawMessage `json:"part"`
			MessageID string          `json:"messageID"`
			PartID    string          `json:"partID"`
			Field     string          `json:"field"`
			Delta     string          `json:"delta"`
			ID        string          `json:"id"`
			RequestID string          `json:"requestID"`
			Status    struct {
				Type string `json:"type"`
			} `json:"status"`
		} `json:"properties"`
	}
	if json.Unmarshal(frame, &env) != nil {
		return
	}
	p := env.Properties
	s := f.sessions[p.SessionID]
	if s == nil && env.Type == "session.created" {
		s = f.newSession(p.SessionID) // a sub-agent's session
	}
	if s == nil {
		return
	}
	msg := func(id string) *message {
		m, ok := s.msgs[id]
		if !ok {
			m = &message{parts: map[string]map[string]any{}}
			s.msgs[id] = m
			s.msgOrder = append(s.msgOrder, id)
		}
		return m
	}
	switch env.Type {
	case "message.updated":
		var info struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(p.Info, &info)
		msg(info.ID).info = p.Info
	case "message.part.updated":
		var part map[string]any
		_ = json.Unmarshal(p.Part, &part)
		id, _ := part["id"].(string)
		mid, _ := part["messageID"].(string)
		m := msg(mid)
		if _, ok := m.parts[id]; !ok {
			m.partOrder = append(m.partOrder, id)
		}
		m.parts[id] = part
	case "message.part.delta":
		if m, ok := s.msgs[p.MessageID]; ok {
			if part, ok := m.parts[p.PartID]; ok && p.Field == "text" {
				t, _ := part["text"].(string)
				part["text"] = t + p.Delta
			}
		}
	case "session.status":
		s.status = p.Status.Type
	case "session.idle":
		s.status = "idle"
	case "permission.asked":
		s.perms[p.ID] = rawProps(frame)
	case "question.asked":
		s.quests[p.ID] = rawProps(frame)
	case "permission.replied", "question.replied":
		delete(s.perms, p.RequestID)
		delete(s.quests, p.RequestID)
	}
}

func rawProps(frame []byte) []byte {
	var env struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(frame, &env)
	return env.Properties
}

func (f *Fake) newSession(id string) *session {
	s := &session{id: id, status: "idle", msgs: map[string]*message{}, perms: map[string][]byte{}, quests: map[string][]byte{}}
	f.sessions[id] = s
	return s
}

// forkInto copies the messages of s before message before ("" or not one
// of s's: all of them, as OpenCode 1.18.33's Session.fork) into the
// session to, under new ids. Caller holds mu.
func (f *Fake) forkInto(s, to *session, before string) {
	for _, mid := range s.msgOrder {
		if mid == before {
			return
		}
		m := s.msgs[mid]
		nid := fmt.Sprintf("msg_%sc%s", to.id, strings.TrimPrefix(mid, "msg_"))
		var info map[string]any
		if json.Unmarshal(m.info, &info) != nil {
			continue
		}
		info["id"], info["sessionID"] = nid, to.id
		raw, _ := json.Marshal(info)
		c := &message{info: raw, parts: map[string]map[string]any{}}
		for _, pid := range m.partOrder {
			part := maps.Clone(m.parts[pid])
			part["messageID"], part["sessionID"] = nid, to.id
			c.parts[pid] = part
			c.partOrder = append(c.partOrder, pid)
		}
		to.msgs[nid] = c
		to.msgOrder = append(to.msgOrder, nid)
	}
}

// ServeHTTP implements http.Handler.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		var b bytes.Buffer
		_, _ = b.ReadFrom(r.Body)
		body = b.Bytes()
	}
	f.mu.Lock()
	f.log = append(f.log, fmt.Sprintf("%s %s %s", r.Method, r.URL.RequestURI(), bytes.TrimSpace(body)))
	if f.password != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != "opencode" || p != f.password {
			f.unauth++
			f.mu.Unlock()
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	f.mu.Unlock()

	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/global/health":
		writeJSON(w, map[string]any{"healthy": true, "version": "fake"})
	case r.URL.Path == "/event" && r.Method == http.MethodGet:
		f.serveEvents(w, r)
	case r.URL.Path == "/session" && r.Method == http.MethodPost:
		f.mu.Lock()
		f.nextID++
		id := fmt.Sprintf("ses_fake%03d", f.nextID)
		f.newSession(id)
		f.mu.Unlock()
		created := f.script.Created
		if created == nil {
			created = []byte(`{"id":"` + f.script.SessionID + `","title":"New session"}`)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bytes.ReplaceAll(created, []byte(f.script.SessionID), []byte(id)))
	case r.URL.Path == "/mcp" && r.Method == http.MethodPost:
		writeJSON(w, map[string]any{"jean-claude": map[string]string{"status": "connected"}})
	case r.URL.Path == "/session/status":
		f.mu.Lock()
		out := map[string]any{}
		for id, s := range f.sessions {
			if s.status != "idle" && s.status != "" {
				out[id] = map[string]string{"type": s.status}
			}
		}
		f.mu.Unlock()
		writeJSON(w, out)
	case (r.URL.Path == "/permission" || r.URL.Path == "/question") && r.Method == http.MethodGet:
		f.mu.Lock()
		out := []json.RawMessage{}
		for _, s := range f.sessions {
			m := s.perms
			if r.URL.Path == "/question" {
				m = s.quests
			}
			for _, p := range m {
				out = append(out, p)
			}
		}
		f.mu.Unlock()
		writeJSON(w, out)
	case len(parts) >= 2 && parts[0] == "session":
		f.serveSession(w, r, parts[1], strings.Join(parts[2:], "/"), body)
	case len(parts) == 3 && (parts[0] == "permission" || parts[0] == "question") && parts[2] == "reply":
		f.serveReply(w, parts[0], parts[1], body)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Fake) serveEvents(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.refuse {
		f.mu.Unlock()
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	ch := make(chan []byte, 4096)
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if _, ok := f.subs[ch]; ok {
			delete(f.subs, ch)
		}
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	_, _ = fmt.Fprintf(w, "data: %s\n\n", `{"id":"evt_connected","type":"server.connected","properties":{}}`)
	if fl != nil {
		fl.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case frame, ok := <-ch:
			if !ok {
				// Outage: cut the connection hard.
				if hj, ok := w.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						_ = c.Close()
					}
				}
				return
			}
			_, _ = fmt.Fprintf(w, "data: %s\n\n", frame)
			if fl != nil {
				fl.Flush()
			}
		}
	}
}

func (f *Fake) serveSession(w http.ResponseWriter, r *http.Request, id, rest string, body []byte) {
	f.mu.Lock()
	s := f.sessions[id]
	if s == nil && rest == "prompt_async" {
		s = f.newSession(id) // a restarted fake forgets; the real server does not
	}
	f.mu.Unlock()
	if s == nil {
		http.Error(w, `{"name":"NotFoundError"}`, http.StatusNotFound)
		return
	}
	switch {
	case rest == "" && r.Method == http.MethodGet:
		writeJSON(w, map[string]any{"id": id, "title": "fake"})
	case rest == "" && r.Method == http.MethodPatch:
		writeJSON(w, map[string]any{"id": id, "title": "fake"})
	case rest == "fork" && r.Method == http.MethodPost:
		var in struct {
			MessageID string `json:"messageID"`
		}
		_ = json.Unmarshal(body, &in)
		f.mu.Lock()
		f.nextID++
		fork := fmt.Sprintf("ses_fork%03d", f.nextID)
		f.forkInto(s, f.newSession(fork), in.MessageID)
		f.mu.Unlock()
		writeJSON(w, map[string]any{"id": fork, "title": "fake (fork)", "parentID": nil})
	case rest == "prompt_async" && r.Method == http.MethodPost:
		f.mu.Lock()
		busy := s.playing
		if !busy {
			s.playing = true
			s.plays++
			s.aborted = make(chan struct{})
		}
		f.mu.Unlock()
		if !busy {
			go f.play(s)
		}
		w.WriteHeader(http.StatusNoContent)
	case rest == "abort" && r.Method == http.MethodPost:
		f.mu.Lock()
		if s.playing && s.aborted != nil {
			close(s.aborted)
			s.aborted = nil
		}
		f.mu.Unlock()
		writeJSON(w, true)
	case rest == "message" && r.Method == http.MethodGet:
		f.mu.Lock()
		out := []map[string]any{}
		for _, mid := range s.msgOrder {
			m := s.msgs[mid]
			if m.info == nil {
				continue
			}
			ps := []map[string]any{}
			for _, pid := range m.partOrder {
				ps = append(ps, m.parts[pid])
			}
			out = append(out, map[string]any{"info": m.info, "parts": ps})
		}
		f.mu.Unlock()
		writeJSON(w, out)
	default:
		http.NotFound(w, r)
	}
}

func (f *Fake) serveReply(w http.ResponseWriter, kind, reqID string, body []byte) {
	f.mu.Lock()
	ch, ok := f.replies[reqID]
	f.mu.Unlock()
	if !ok {
		http.Error(w, `{"name":"NotFoundError"}`, http.StatusNotFound)
		return
	}
	var b struct {
		Reply   string     `json:"reply"`
		Answers [][]string `json:"answers"`
	}
	_ = json.Unmarshal(body, &b)
	if kind == "question" {
		js, _ := json.Marshal(b.Answers)
		b.Reply = string(js)
	}
	select {
	case ch <- b.Reply:
	default:
	}
	writeJSON(w, true)
}

// play streams the script for s, waiting at permissions and questions.
func (f *Fake) play(s *session) {
	defer func() {
		f.mu.Lock()
		s.playing = false
		f.mu.Unlock()
	}()
	f.mu.Lock()
	aborted := s.aborted
	play := s.plays
	f.mu.Unlock()
	for i, raw := range f.script.Frames {
		frame := bytes.ReplaceAll(raw, []byte(f.script.SessionID), []byte(s.id))
		if play > 1 {
			// A new turn has new ids, as on the real server.
			for _, p := range []string{"msg_", "prt_", "call_", "per_", "que_"} {
				frame = bytes.ReplaceAll(frame, []byte(`"`+p), []byte(fmt.Sprintf(`"%sp%d`, p, play)))
			}
		}
		if f.OnFrame != nil {
			f.OnFrame(i, frame)
		}
		select {
		case <-aborted:
			f.broadcast([]byte(`{"type":"session.error","properties":{"sessionID":"` + s.id + `","error":{"name":"MessageAbortedError","data":{"message":"The operation was aborted."}}}}`))
			f.broadcast([]byte(`{"type":"session.status","properties":{"sessionID":"` + s.id + `","status":{"type":"idle"}}}`))
			f.broadcast([]byte(`{"type":"session.idle","properties":{"sessionID":"` + s.id + `"}}`))
			return
		default:
		}
		var env struct {
			Type       string `json:"type"`
			Properties struct {
				ID string `json:"id"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(frame, &env)
		var wait chan string
		if env.Type == "permission.asked" || env.Type == "question.asked" {
			wait = make(chan string, 1)
			f.mu.Lock()
			f.replies[env.Properties.ID] = wait
			f.mu.Unlock()
		}
		f.broadcast(frame)
		if wait != nil {
			select {
			case <-wait:
			case <-aborted:
			case <-time.After(30 * time.Second):
			}
			f.mu.Lock()
			delete(f.replies, env.Properties.ID)
			f.mu.Unlock()
		}
		if f.FrameDelay > 0 {
			time.Sleep(f.FrameDelay)
		}
	}
}

// ParseSSE cuts a recorded SSE capture into its data payloads.
func ParseSSE(data []byte) [][]byte {
	var out [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			out = append(out, bytes.Clone(rest))
		}
	}
	return out
}

// ScriptFrom makes a script of a recorded SSE capture: the frames after the
// recorded session.created (the backend creates the session itself).
func ScriptFrom(sse, created []byte) Script {
	frames := ParseSSE(sse)
	sc := Script{Created: created}
	for i, fr := range frames {
		var env struct {
			Type       string `json:"type"`
			Properties struct {
				Info struct {
					ID string `json:"id"`
				} `json:"info"`
			} `json:"properties"`
		}
		if json.Unmarshal(fr, &env) == nil && env.Type == "session.created" {
			sc.SessionID = env.Properties.Info.ID
			sc.Frames = frames[i+1:]
			return sc
		}
	}
	sc.Frames = frames
	return sc
}
