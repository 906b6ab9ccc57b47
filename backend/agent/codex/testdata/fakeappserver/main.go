// Command fakeappserver stands in for `codex app-server` in the codex
// package's process tests. By default it replays $FAKE_TRANSCRIPT (perm.transcript.jsonl) (a
// real Codex 0.169.0 session with two approvals): it checks that the client
// sends what the recorded client sent (methods, and the approval decisions
// accept then decline) and answers with the recorded server messages, ids
// rewritten to the client's. With FAKE_MODE=slow it starts a turn that only
// ends on turn/interrupt. It always leaves a child (sleep) in its process
// group, to check nothing is orphaned. With FAKE_WRITE_ON_ACCEPT=name it
// writes that file in its folder when an approval is accepted (the
// remote tests look for it with the host's git).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

type entry struct {
	Dir string                     `json:"dir"`
	Msg map[string]json.RawMessage `json:"msg"`
}

var in = bufio.NewScanner(os.Stdin)

func read() map[string]json.RawMessage {
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fail("bad client line %q: %v", in.Text(), err)
		}
		return m
	}
	os.Exit(0) // stdin closed
	return nil
}

var outLog, _ = os.OpenFile(os.Getenv("FAKE_OUT_LOG"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)

// write sends one message; with FAKE_OUT_LOG it is first appended to that
// record of everything the fake wrote.
func write(m any) {
	b, _ := json.Marshal(m)
	if outLog != nil {
		outLog.Write(append(b, '\n'))
	}
	os.Stdout.Write(append(b, '\n'))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakeappserver: "+format+"\n", args...)
	os.Exit(3)
}

func str(r json.RawMessage) string {
	var s string
	_ = json.Unmarshal(r, &s)
	return s
}

func main() {
	child := exec.Command("sleep", "300")
	_ = child.Start()
	if f := os.Getenv("FAKE_CHILD_PID_FILE"); f != "" && child.Process != nil {
		_ = os.WriteFile(f, []byte(fmt.Sprint(child.Process.Pid)), 0o644)
	}
	if os.Getenv("FAKE_MODE") == "slow" {
		slow()
		return
	}
	delay, _ := time.ParseDuration(os.Getenv("FAKE_LINE_DELAY"))
	data, err := os.ReadFile(os.Getenv("FAKE_TRANSCRIPT"))
	if err != nil {
		fail("%v", err)
	}
	ids := map[string]json.RawMessage{}
	for _, line := range splitLines(data) {
		var e entry
		if err := json.Unmarshal(line, &e); err != nil {
			fail("transcript: %v", err)
		}
		_, hasMethod := e.Msg["method"]
		_, hasID := e.Msg["id"]
		switch e.Dir {
		case "send":
			got := read()
			switch {
			case hasMethod:
				if str(got["method"]) != str(e.Msg["method"]) {
					fail("client sent %s, recorded %s", got["method"], e.Msg["method"])
				}
				if hasID {
					ids[string(e.Msg["id"])] = got["id"]
				}
			default: // an approval answer
				var want, have struct {
					Decision string `json:"decision"`
				}
				_ = json.Unmarshal(e.Msg["result"], &want)
				_ = json.Unmarshal(got["result"], &have)
				if want.Decision != have.Decision || string(got["id"]) != string(e.Msg["id"]) {
					fail("client answered %s %s, recorded %s %s", got["id"], got["result"], e.Msg["id"], e.Msg["result"])
				}
				if name := os.Getenv("FAKE_WRITE_ON_ACCEPT"); name != "" && have.Decision == "accept" {
					if err := os.WriteFile(name, []byte("hello\n"), 0o644); err != nil {
						fail("%v", err)
					}
				}
			}
		case "recv":
			time.Sleep(delay)
			if !hasMethod && hasID {
				if id, ok := ids[string(e.Msg["id"])]; ok {
					e.Msg["id"] = id
				}
			}
			write(e.Msg)
		}
	}
	for {
		read() // until stdin closes
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

func slow() {
	for {
		m := read()
		id := m["id"]
		switch str(m["method"]) {
		case "initialize":
			write(map[string]any{"id": id, "result": map[string]any{"userAgent": "fake"}})
		case "thread/start":
			write(map[string]any{"id": id, "result": map[string]any{"thread": map[string]any{"id": "th-slow", "model": "fake-model"}}})
		case "thread/resume":
			var p struct {
				ThreadID string `json:"threadId"`
			}
			_ = json.Unmarshal(m["params"], &p)
			write(map[string]any{"id": id, "result": map[string]any{"thread": map[string]any{"id": "resumed-" + p.ThreadID, "model": "fake-model"}}})
		case "thread/fork":
			var p struct {
				ThreadID     string  `json:"threadId"`
				ExcludeTurns *bool   `json:"excludeTurns"`
				LastTurnID   *string `json:"lastTurnId"`
			}
			_ = json.Unmarshal(m["params"], &p)
			if p.ExcludeTurns != nil {
				write(map[string]any{"id": id, "error": map[string]any{"code": -32602, "message": "unknown field excludeTurns"}})
				break
			}
			fork := "forked-" + p.ThreadID
			if p.LastTurnID != nil { // the copy keeps the turns up to that one
				fork += "-through-" + *p.LastTurnID
			}
			write(map[string]any{"id": id, "result": map[string]any{"thread": map[string]any{"id": fork, "forkedFromId": p.ThreadID, "model": "fake-model"}}})
		case "turn/start":
			write(map[string]any{"id": id, "result": map[string]any{"turn": map[string]any{"id": "tu-slow", "status": "inProgress"}}})
			if n, _ := strconv.Atoi(os.Getenv("FAKE_STREAM")); n > 0 {
				stream(n)
				break
			}
			write(map[string]any{"method": "turn/started", "params": map[string]any{"threadId": "th-slow", "turn": map[string]any{"id": "tu-slow", "status": "inProgress"}}})
			write(map[string]any{"method": "item/started", "params": map[string]any{"threadId": "th-slow", "turnId": "tu-slow", "item": map[string]any{"type": "agentMessage", "id": "msg-slow", "text": ""}}})
			write(map[string]any{"method": "item/agentMessage/delta", "params": map[string]any{"threadId": "th-slow", "turnId": "tu-slow", "itemId": "msg-slow", "delta": "working"}})
		case "turn/interrupt":
			write(map[string]any{"id": id, "result": map[string]any{}})
			write(map[string]any{"method": "turn/completed", "params": map[string]any{"threadId": "th-slow", "turn": map[string]any{"id": "tu-slow", "status": "interrupted", "error": nil}}})
		}
	}
}

// stream (FAKE_MODE=slow, FAKE_STREAM=n) writes a turn of n deltas,
// FAKE_LINE_DELAY apart, then completes it.
func stream(n int) {
	delay, _ := time.ParseDuration(os.Getenv("FAKE_LINE_DELAY"))
	p := func(kv ...any) map[string]any {
		m := map[string]any{"threadId": "th-slow", "turnId": "tu-slow"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	write(map[string]any{"method": "turn/started", "params": map[string]any{"threadId": "th-slow", "turn": map[string]any{"id": "tu-slow", "status": "inProgress"}}})
	write(map[string]any{"method": "item/started", "params": p("item", map[string]any{"type": "agentMessage", "id": "msg-slow", "text": ""})})
	for i := 1; i <= n; i++ {
		time.Sleep(delay)
		write(map[string]any{"method": "item/agentMessage/delta", "params": p("itemId", "msg-slow", "delta", fmt.Sprintf("w%d ", i))})
	}
	write(map[string]any{"method": "item/completed", "params": p("item", map[string]any{"type": "agentMessage", "id": "msg-slow", "text": "done"})})
	write(map[string]any{"method": "turn/completed", "params": map[string]any{"threadId": "th-slow", "turn": map[string]any{"id": "tu-slow", "status": "completed", "error": nil}}})
}
