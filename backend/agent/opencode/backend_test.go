package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode/internal/fakeoc"
)

const testPassword = "s3cret"

// liveTimeout bounds one liveRun (the real-binary test raises it).
var liveTimeout = 20 * time.Second

func loadScript(t *testing.T, name string) fakeoc.Script {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return fakeoc.ScriptFrom(data, nil)
}

// newFake serves a recording over httptest and returns a backend attached to it.
func newFake(t *testing.T, recording string) (*fakeoc.Fake, *Backend) {
	t.Helper()
	f := fakeoc.New(loadScript(t, recording), testPassword)
	f.FrameDelay = 200 * time.Microsecond
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	b := New(Options{BaseURL: ts.URL, Password: testPassword, ReconnectMin: 10 * time.Millisecond, ReconnectMax: 80 * time.Millisecond, ConnectTimeout: 5 * time.Second})
	t.Cleanup(func() { _ = b.Dispose(context.Background()) })
	return f, b
}

// liveRun collects a session's batches until `completes` complete events,
// calling on for every event (to answer requests).
func liveRun(t *testing.T, s agent.Session, completes int, on func(agent.Event)) []agent.Batch {
	t.Helper()
	var batches []agent.Batch
	timeout := time.After(liveTimeout)
	n := 0
	for n < completes {
		select {
		case b, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed after %d batches", len(batches))
			}
			batches = append(batches, b)
			for _, ev := range b.Events {
				if ev.Type == agent.EventComplete {
					n++
				}
				if on != nil {
					on(ev)
				}
			}
		case <-timeout:
			t.Fatalf("timeout: %d complete events after %d batches", n, len(batches))
		}
	}
	return batches
}

func eventsOf(batches []agent.Batch) []agent.Event {
	var out []agent.Event
	for _, b := range batches {
		out = append(out, b.Events...)
	}
	return out
}

// finalMessages is the last version of every message, by id.
func finalMessages(evs []agent.Event) map[string]*agent.Message {
	out := map[string]*agent.Message{}
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventMessage:
			out[ev.Message.ID] = ev.Message
		case agent.EventMessageRemoved:
			delete(out, ev.MessageID)
		}
	}
	return out
}

func countType(evs []agent.Event, typ agent.EventType) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// reference normalizes the recording itself, with the live session id.
func reference(t *testing.T, recording, sessionID string) []agent.Event {
	t.Helper()
	sc := loadScript(t, recording)
	var frames [][]byte
	for _, fr := range sc.Frames {
		frames = append(frames, bytes.ReplaceAll(fr, []byte(sc.SessionID), []byte(sessionID)))
	}
	return normalizeAll(frames)
}

// checkIdentity: the events delivered live are what normalizing the
// delivered frames gives, and every message's Raw rebuilds it.
func checkIdentity(t *testing.T, batches []agent.Batch) {
	t.Helper()
	n := NewNormalizer()
	var live, again []agent.Event
	for _, b := range batches {
		if b.Frame == nil {
			continue // synthesized (mode change)
		}
		if b.Format != FormatName {
			t.Fatalf("batch format %q", b.Format)
		}
		live = append(live, b.Events...)
		again = append(again, n.Feed(b.Frame)...)
	}
	if d := cmp.Diff(live, again); d != "" {
		t.Fatalf("live vs renormalized (-live +again):\n%s", d)
	}
	for _, ev := range live {
		if ev.Type != agent.EventMessage {
			continue
		}
		var last *agent.Message
		for _, re := range normalizeAll(bytes.Split(ev.Raw, []byte("\n"))) {
			if re.Type == agent.EventMessage && re.Message.ID == ev.Message.ID {
				last = re.Message
			}
		}
		if d := cmp.Diff(ev.Message, last); d != "" {
			t.Fatalf("Raw of %s (-live +raw):\n%s", ev.Message.ID, d)
		}
	}
}

func findLog(f *fakeoc.Fake, prefix string) []string {
	var out []string
	for _, l := range f.Log() {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestSessionPermissions drives the perm recording: allow the edit, deny
// the command, and checks every request the backend made.
func TestSessionPermissions(t *testing.T) {
	f, b := newFake(t, "serve-perm.sse")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Backend: agent.BackendOpenCode, Cwd: "/work/proj a", Model: "fake/fake-basic", Mode: agent.ModeAsk}, "hello")
	if err != nil {
		t.Fatal(err)
	}
	sid := s.(*Session).ID()
	answered := 0
	batches := liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type != agent.EventPermissionRequest {
			return
		}
		resp := agent.PermissionResponse{Behavior: agent.Allow}
		if answered == 1 {
			resp = agent.PermissionResponse{Behavior: agent.Deny, Message: "no ls"}
		}
		answered++
		go func() {
			if err := s.RespondToPermission(ctx, ev.Request.RequestID, resp); err != nil {
				t.Error(err)
			}
		}()
	})
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	drained := make(chan struct{})
	go func() {
		for range s.Events() {
		}
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatal("events still open after Stop")
	}
	evs := eventsOf(batches)
	if answered != 2 {
		t.Fatalf("%d permission requests, want 2", answered)
	}
	if got := evs[0]; got.Type != agent.EventSessionID || got.SessionID != sid {
		t.Fatalf("first event %+v, want session-id %s", got, sid)
	}
	ref := reference(t, "serve-perm.sse", sid)
	if d := cmp.Diff(finalMessages(ref), finalMessages(evs)); d != "" {
		t.Fatalf("messages (-recording +live):\n%s", d)
	}
	checkIdentity(t, batches)

	// The wire: model split, agent, directory on every call, auth always.
	prompts := findLog(f, "POST /session/"+sid+"/prompt_async")
	if len(prompts) != 1 || !strings.Contains(prompts[0], `"model":{"providerID":"fake","modelID":"fake-basic"}`) || !strings.Contains(prompts[0], `"agent":"build"`) || !strings.Contains(prompts[0], `"text":"hello"`) {
		t.Fatalf("prompt requests: %q", prompts)
	}
	replies := findLog(f, "POST /permission/")
	if len(replies) != 2 || !strings.Contains(replies[0], `{"reply":"once"}`) || !strings.Contains(replies[1], `"reply":"reject"`) || !strings.Contains(replies[1], `"message":"no ls"`) {
		t.Fatalf("permission replies: %q", replies)
	}
	for _, l := range f.Log() {
		if !strings.Contains(l, "directory=%2Fwork%2Fproj+a") {
			t.Errorf("request without the directory: %s", l)
		}
	}
	if n := f.Unauthorized(); n != 0 {
		t.Fatalf("%d requests without credentials", n)
	}
	if c := findLog(f, "POST /session?"); len(c) != 1 || !strings.Contains(c[0], `"permission":[{"permission":"edit","pattern":"*","action":"ask"}`) {
		t.Fatalf("session create: %q", c)
	}
	// A request that is no longer pending.
	if err := s.RespondToPermission(ctx, "per_gone", agent.PermissionResponse{Behavior: agent.Allow}); !errors.Is(err, agent.ErrSessionClosed) {
		t.Fatalf("after Stop: %v", err)
	}
}

// TestSessionQuestionAndModes answers a question, switches modes, and
// checks unknown requests.
func TestSessionQuestionAndModes(t *testing.T) {
	f, b := newFake(t, "serve-question.sse")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: "/p", Model: "fake/fake-basic"}, "ask me")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RespondToQuestion(ctx, "que_unknown", agent.QuestionAnswer{Answers: [][]string{{"x"}}}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Fatalf("unknown question: %v", err)
	}
	var q *agent.Request
	batches := liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventQuestion {
			q = ev.Request
			go func() {
				if err := s.RespondToQuestion(ctx, ev.Request.RequestID, agent.QuestionAnswer{Answers: [][]string{{"Hello"}}}); err != nil {
					t.Error(err)
				}
			}()
		}
	})
	if q == nil || q.Question != "Which greeting should I use?" || len(q.Options) != 2 || q.ToolID != "call_question_t0_1v0qgv" {
		t.Fatalf("question: %+v", q)
	}
	if r := findLog(f, "POST /question/"+q.RequestID+"/reply"); len(r) != 1 || !strings.HasSuffix(r[0], `{"answers":[["Hello"]]}`) {
		t.Fatalf("question reply: %q", r)
	}
	checkIdentity(t, batches)

	if err := s.SetMode(ctx, agent.ModePlan); err != nil {
		t.Fatal(err)
	}
	var mc *agent.Batch
	for mc == nil {
		select {
		case bt := <-s.Events():
			if bt.Frame == nil {
				mc = &bt
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no mode-change")
		}
	}
	if len(mc.Events) != 1 || mc.Events[0].Type != agent.EventModeChange || mc.Events[0].Mode != agent.ModePlan {
		t.Fatalf("after SetMode: %+v", mc)
	}
	if err := s.(agent.ModelSetter).SetModel(ctx, "other/big"); err != nil {
		t.Fatal(err)
	}
	if err := s.SendMessage(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	p := findLog(f, "POST /session/"+s.(*Session).ID()+"/prompt_async")
	if len(p) != 2 || !strings.Contains(p[1], `"agent":"plan"`) || !strings.Contains(p[1], `"providerID":"other","modelID":"big"`) {
		t.Fatalf("prompt after SetMode/SetModel: %q", p)
	}
	if m := findLog(f, "PATCH /session/"); len(m) != 1 || !strings.Contains(m[0], `"permission"`) {
		t.Fatalf("SetMode PATCH: %q", m)
	}
	if err := s.(agent.ModelSetter).SetModel(ctx, "nomodel"); err == nil {
		t.Fatal("SetModel accepted a model without provider")
	}
	_ = s.Stop(ctx)
}

// TestSessionInterrupt aborts a turn waiting on a question: the turn ends
// interrupted.
func TestSessionInterrupt(t *testing.T) {
	f, b := newFake(t, "serve-question.sse")
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "ask me")
	if err != nil {
		t.Fatal(err)
	}
	batches := liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventQuestion {
			go func() {
				if err := s.Interrupt(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
	})
	evs := eventsOf(batches)
	last := evs[len(evs)-1]
	if last.Type != agent.EventComplete || !last.Result.Interrupted || last.Result.IsError || last.Result.Reason != "aborted" {
		t.Fatalf("last event %+v", last.Result)
	}
	if countType(evs, agent.EventError) != 0 {
		t.Fatal("an abort is not an error")
	}
	if len(findLog(f, "POST /session/"+s.(*Session).ID()+"/abort")) != 1 {
		t.Fatal("no abort request")
	}
	checkIdentity(t, batches)
	_ = s.Stop(ctx)
}

// TestServerOutage cuts the event stream mid-turn (and refuses reconnects
// for a while): the session reconnects, catches up with GET messages, and
// ends with the same messages as the recording, no duplicate, no loss.
func TestServerOutage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		recording  string
		down, up   int // frame indexes
		upAfterEnd bool
	}{
		{name: "mid-turn", recording: "serve-basic.sse", down: 40, up: 75},
		{name: "over-the-end", recording: "serve-basic.sse", down: 100, upAfterEnd: true},
		{name: "todo", recording: "serve-todo.sse", down: 55, up: 70},
		{name: "sub-agent", recording: "synthetic-subagent.sse", down: 12, up: 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, b := newFake(t, tc.recording)
			var once sync.Once
			downSeen := make(chan struct{})
			total := len(loadScript(t, tc.recording).Frames)
			f.OnFrame = func(i int, _ []byte) {
				switch {
				case i == tc.down:
					f.Outage(true)
					once.Do(func() { close(downSeen) })
				case i == tc.up && !tc.upAfterEnd:
					f.Outage(false)
					if !f.WaitSubscribers(1, 5*time.Second) {
						t.Error("no reconnect")
					}
				case i == total-1 && tc.upAfterEnd:
					go func() {
						time.Sleep(50 * time.Millisecond) // let the turn end unseen
						f.Outage(false)
					}()
				}
			}
			ctx := context.Background()
			s, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
			if err != nil {
				t.Fatal(err)
			}
			batches := liveRun(t, s, 1, nil)
			<-downSeen
			_ = s.Stop(ctx)
			evs := eventsOf(batches)
			ref := reference(t, tc.recording, s.(*Session).ID())
			if d := cmp.Diff(finalMessages(ref), finalMessages(evs)); d != "" {
				t.Fatalf("messages after the outage (-recording +live):\n%s", d)
			}
			if n := countType(evs, agent.EventComplete); n != 1 {
				t.Fatalf("%d complete events", n)
			}
			// No message goes back in time: a tool never regresses.
			state := map[string]int{}
			for _, ev := range evs {
				if ev.Type == agent.EventToolStateUpdate {
					r := toolRank(string(ev.State))
					if r < state[ev.ToolID] {
						t.Fatalf("tool %s went back to %s", ev.ToolID, ev.State)
					}
					state[ev.ToolID] = r
				}
			}
			if len(findLog(f, "GET /session/"+s.(*Session).ID()+"/message")) == 0 {
				t.Fatal("no catch-up request")
			}
			checkIdentity(t, batches)
		})
	}
}

func TestParseModel(t *testing.T) {
	got, _ := json.Marshal(parseModel("anthropic/claude-x/y"))
	if string(got) != `{"providerID":"anthropic","modelID":"claude-x/y"}` {
		t.Fatal(string(got))
	}
	if parseModel("bare") != nil || parseModel("/x") != nil {
		t.Fatal("bad models accepted")
	}
}

// TestOutageOverPermission: the stream is cut just before a permission is
// asked; after the reconnect the catch-up (GET /permission) still shows it,
// once, and answering it lets the turn finish.
func TestOutageOverPermission(t *testing.T) {
	f, b := newFake(t, "serve-perm.sse")
	permIdx := -1
	for i, fr := range loadScript(t, "serve-perm.sse").Frames {
		if bytes.Contains(fr, []byte(`"type":"permission.asked"`)) {
			permIdx = i
			break
		}
	}
	f.OnFrame = func(i int, _ []byte) {
		if i == permIdx {
			f.Outage(true)
			go func() {
				time.Sleep(100 * time.Millisecond)
				f.Outage(false)
			}()
		}
	}
	ctx := context.Background()
	s, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	batches := liveRun(t, s, 1, func(ev agent.Event) {
		if ev.Type == agent.EventPermissionRequest {
			asked[ev.Request.RequestID]++
			go func() {
				_ = s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow})
			}()
		}
	})
	_ = s.Stop(ctx)
	if len(asked) != 2 {
		t.Fatalf("permission requests: %v", asked)
	}
	for id, n := range asked {
		if n != 1 {
			t.Fatalf("request %s announced %d times", id, n)
		}
	}
	if len(findLog(f, "GET /permission")) == 0 {
		t.Fatal("no pending-permission catch-up")
	}
	checkIdentity(t, batches)
}

// TestLiveEveryRecording plays every serve recording through the fake
// server: the live events equal the re-normalized delivered frames, every
// Raw rebuilds its message, and the final messages are the recording's.
func TestLiveEveryRecording(t *testing.T) {
	var paths []string
	all, _ := filepathGlob(t, "testdata/serve-*.sse")
	for _, p := range all {
		if !strings.HasSuffix(p, ".global.sse") { // the fake serves /event only
			paths = append(paths, p)
		}
	}
	paths = append(paths, "testdata/synthetic-subagent.sse")
	for _, p := range paths {
		name := p[len("testdata/"):]
		t.Run(name, func(t *testing.T) {
			_, b := newFake(t, name)
			ctx := context.Background()
			s, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
			if err != nil {
				t.Fatal(err)
			}
			answer := func(ev agent.Event) {
				switch ev.Type {
				case agent.EventPermissionRequest:
					go func() {
						_ = s.RespondToPermission(ctx, ev.Request.RequestID, agent.PermissionResponse{Behavior: agent.Allow})
					}()
				case agent.EventQuestion:
					go func() {
						_ = s.RespondToQuestion(ctx, ev.Request.RequestID, agent.QuestionAnswer{Answers: [][]string{{ev.Request.Options[0].Label}}})
					}()
				}
			}
			batches := liveRun(t, s, 1, answer)
			// Late frames after the turn (error400 updates its message after idle).
			for quiet := false; !quiet; {
				select {
				case bt := <-s.Events():
					batches = append(batches, bt)
				case <-time.After(300 * time.Millisecond):
					quiet = true
				}
			}
			_ = s.Stop(ctx)
			evs := eventsOf(batches)
			ref := reference(t, name, s.(*Session).ID())
			if d := cmp.Diff(finalMessages(ref), finalMessages(evs)); d != "" {
				t.Fatalf("messages (-recording +live):\n%s", d)
			}
			for _, typ := range []agent.EventType{agent.EventComplete, agent.EventPermissionRequest, agent.EventQuestion, agent.EventError, agent.EventRateLimit, agent.EventToolStateUpdate} {
				if a, b := countType(ref, typ), countType(evs, typ); a != b {
					t.Errorf("%s: %d in the recording, %d live", typ, a, b)
				}
			}
			checkIdentity(t, batches)
		})
	}
}

func filepathGlob(t *testing.T, pat string) ([]string, error) {
	t.Helper()
	m, err := filepath.Glob(pat)
	if err != nil || len(m) < 6 {
		t.Fatalf("glob %s: %v %v", pat, m, err)
	}
	return m, err
}

// TestResume reattaches to an existing session by id, and refuses an
// unknown one.
func TestResume(t *testing.T) {
	f, b := newFake(t, "serve-basic.sse")
	ctx := context.Background()
	s1, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
	if err != nil {
		t.Fatal(err)
	}
	liveRun(t, s1, 1, nil)
	id := s1.(*Session).ID()
	_ = s1.Stop(ctx)
	s2, err := b.Start(ctx, agent.Config{Cwd: "/p", SessionID: id, Mode: agent.ModeBypass}, "")
	if err != nil {
		t.Fatal(err)
	}
	// A reconnect replays the history: no turn ends again.
	f.Outage(true)
	f.Outage(false)
	deadline := time.Now().Add(5 * time.Second)
	for len(findLog(f, "GET /session/"+id+"/message")) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("no catch-up after the reconnect")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s2.SendMessage(ctx, "continue"); err != nil {
		t.Fatal(err)
	}
	batches := liveRun(t, s2, 1, nil)
	evs := eventsOf(batches)
	user := firstUser(t, evs)
	if !strings.HasPrefix(user, "msg_p2") || finalMessages(evs)["result-"+user] == nil || countType(evs, agent.EventComplete) != 1 {
		t.Fatalf("the turn that completed is not the new one (first user message %s):\n%s", user, encodeEvents(t, evs))
	}
	if s2.(*Session).ID() != id {
		t.Fatal("resumed another session")
	}
	if countType(eventsOf(batches), agent.EventSessionID) != 0 {
		t.Fatal("a resumed session announced a new session id")
	}
	if p := findLog(f, "PATCH /session/"+id); len(p) != 1 || !strings.Contains(p[0], `{"permission":[{"permission":"*","pattern":"*","action":"allow"}]}`) {
		t.Fatalf("resume PATCH: %q", p)
	}
	_ = s2.Stop(ctx)
	if _, err := b.Start(ctx, agent.Config{Cwd: "/p", SessionID: "ses_nope"}, ""); err == nil || !strings.Contains(err.Error(), "ses_nope") {
		t.Fatalf("unknown session: %v", err)
	}
}

// TestStreamRefused: a server that refuses the event stream makes Start fail
// with the reason, not just a timeout.
func TestStreamRefused(t *testing.T) {
	f := fakeoc.New(loadScript(t, "serve-basic.sse"), testPassword)
	ts := httptest.NewServer(f)
	defer ts.Close()
	f.Outage(true)
	b := New(Options{BaseURL: ts.URL, Password: testPassword, ReconnectMin: 10 * time.Millisecond, ReconnectMax: 20 * time.Millisecond, ConnectTimeout: 300 * time.Millisecond})
	defer b.Dispose(context.Background())
	_, err := b.Start(context.Background(), agent.Config{Cwd: "/p"}, "hi")
	if err == nil || !strings.Contains(err.Error(), "not connected") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("err = %v", err)
	}
	for _, l := range f.Log() {
		if strings.Contains(l, "/prompt_async") {
			t.Fatal("prompted a session whose events are not followed")
		}
	}
	// Wrong credentials: the first call says so.
	b2 := New(Options{BaseURL: ts.URL, Password: "wrong"})
	if _, err := b2.Start(context.Background(), agent.Config{Cwd: "/p"}, "hi"); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("wrong password: %v", err)
	}
}

// firstUser is the id of the first user message in evs.
func firstUser(t *testing.T, evs []agent.Event) string {
	t.Helper()
	for _, ev := range evs {
		if ev.Type == agent.EventMessage && ev.Message.Role == agent.RoleUser {
			return ev.Message.ID
		}
	}
	t.Fatal("no user message")
	return ""
}

// TestForkSession: a native fork (Config.ForkSession) copies the session
// with POST /session/{id}/fork and runs the copy, which announces its own
// session id; the original session is not prompted.
// TestForkSessionAtMessage: a fork with Config.ForkPoint passes it as the
// fork's messageID, so the copy holds the session's messages up to the one
// before it (the parent's first turn here, not its second); a fork point
// that is not a message of the session fails the start before any fork
// (OpenCode would copy the whole session).
func TestForkSessionAtMessage(t *testing.T) {
	f, b := newFake(t, "serve-basic.sse")
	ctx := context.Background()
	s1, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
	if err != nil {
		t.Fatal(err)
	}
	first := finalMessages(eventsOf(liveRun(t, s1, 1, nil)))
	for deadline := time.Now().Add(liveTimeout); f.Playing(s1.(*Session).ID()); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first turn is still played")
		}
	}
	if err := s1.SendMessage(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	second := finalMessages(eventsOf(liveRun(t, s1, 1, nil)))
	parent := s1.(*Session).ID()
	_ = s1.Stop(ctx)
	c, err := b.srv.client(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.messages(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	var before string // the second turn's user message
	for id, m := range second {
		if m.Role == agent.RoleUser && first[id] == nil {
			before = id
		}
	}
	spoken := 0 // the first turn's user and assistant messages
	for _, m := range first {
		if m.Role == agent.RoleUser || m.Role == agent.RoleAssistant {
			spoken++
		}
	}
	if before == "" || spoken == 0 || len(all) <= spoken {
		t.Fatalf("parent: %d messages, first turn %d, second turn's user message %q", len(all), spoken, before)
	}
	s2, err := b.Start(ctx, agent.Config{Cwd: "/p", SessionID: parent, ForkSession: true, ForkPoint: before}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop(ctx)
	fork := s2.(*Session).ID()
	if got := findLog(f, "POST /session/"+parent+"/fork"); len(got) != 1 || !strings.Contains(got[0], `"messageID":"`+before+`"`) {
		t.Errorf("fork requests %q, want one with messageID %s", got, before)
	}
	copied, err := c.messages(ctx, fork)
	if err != nil || len(copied) != spoken {
		t.Fatalf("the copy holds %d messages (%v), want the first turn's %d of %d", len(copied), err, spoken, len(all))
	}
	if _, err := b.Start(ctx, agent.Config{Cwd: "/p", SessionID: parent, ForkSession: true, ForkPoint: "msg_elsewhere"}, ""); err == nil {
		t.Error("a fork point outside the session started a fork")
	}
	if n := len(findLog(f, "POST /session/"+parent+"/fork")); n != 1 {
		t.Errorf("%d fork requests, want only the first", n)
	}
}

func TestForkSession(t *testing.T) {
	f, b := newFake(t, "serve-basic.sse")
	ctx := context.Background()
	s1, err := b.Start(ctx, agent.Config{Cwd: "/p"}, "go")
	if err != nil {
		t.Fatal(err)
	}
	liveRun(t, s1, 1, nil)
	parent := s1.(*Session).ID()
	_ = s1.Stop(ctx)
	s2, err := b.Start(ctx, agent.Config{Cwd: "/p", SessionID: parent, ForkSession: true, Mode: agent.ModeBypass}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Stop(ctx)
	fork := s2.(*Session).ID()
	if fork == parent || len(findLog(f, "POST /session/"+parent+"/fork")) != 1 {
		t.Fatalf("fork %s of %s; log: %q", fork, parent, findLog(f, "POST /session/"))
	}
	if err := s2.SendMessage(ctx, "continue"); err != nil {
		t.Fatal(err)
	}
	evs := eventsOf(liveRun(t, s2, 1, nil))
	announced := ""
	for _, ev := range evs {
		if ev.Type == agent.EventSessionID {
			announced = ev.SessionID
		}
	}
	if announced != fork {
		t.Errorf("session id announced %q, want the fork's %q", announced, fork)
	}
	if n := len(findLog(f, "POST /session/"+parent+"/prompt_async")); n != 1 {
		t.Errorf("the parent session was prompted %d times after the fork (want only its own first turn)", n)
	}
}
