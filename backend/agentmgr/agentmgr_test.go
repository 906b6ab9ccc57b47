package agentmgr

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// memSettings is an in-memory SettingsStore.
type memSettings struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memSettings) Get(_ context.Context, k string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok, nil
}

func (s *memSettings) Set(_ context.Context, k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[k] = v
	return nil
}

// script writes an executable shell script.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// noPath is a LookPath that finds nothing on PATH but accepts absolute
// executables.
func lookIn(dirs ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if filepath.IsAbs(name) {
			if st, err := os.Stat(name); err == nil && st.Mode()&0o111 != 0 {
				return name, nil
			}
			return "", os.ErrNotExist
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", errors.New("executable file not found in $PATH")
	}
}

func claudeSpec() Spec { return Specs(nil)[0] }

func TestResolveOrder(t *testing.T) {
	data, pathDir, custom := t.TempDir(), t.TempDir(), t.TempDir()
	m := New(Options{DataDir: data, Settings: &memSettings{}, LookPath: lookIn(pathDir)})
	spec := claudeSpec()
	if _, _, err := m.Resolve(spec, ""); !errors.Is(err, agent.ErrBinaryNotFound) {
		t.Fatalf("nothing installed: err %v, want ErrBinaryNotFound", err)
	}
	app := script(t, filepath.Join(data, "agents", "node_modules", ".bin"), "claude", "echo app\n")
	if p, src, err := m.Resolve(spec, ""); err != nil || p != app || src != SourceApp {
		t.Fatalf("app copy: %s %s %v", p, src, err)
	}
	onPath := script(t, pathDir, "claude", "echo path\n")
	if p, src, err := m.Resolve(spec, ""); err != nil || p != onPath || src != SourcePath {
		t.Fatalf("PATH wins over the app copy: %s %s %v", p, src, err)
	}
	conf := script(t, custom, "my-claude", "echo custom\n")
	if p, src, err := m.Resolve(spec, conf); err != nil || p != conf || src != SourceSettings {
		t.Fatalf("configured path wins: %s %s %v", p, src, err)
	}
	if _, src, err := m.Resolve(spec, filepath.Join(custom, "missing")); !errors.Is(err, agent.ErrBinaryNotFound) || src != SourceSettings {
		t.Fatalf("bad configured path: %s %v", src, err)
	}
	// Binaries hands the backends only what PATH would not find.
	if got := m.Binaries(context.Background(), []Spec{spec}); len(got) != 0 {
		t.Errorf("Binaries with claude on PATH = %v, want none", got)
	}
	os.Remove(onPath)
	if got := m.Binaries(context.Background(), []Spec{spec}); got[agent.BackendClaudeCode] != app {
		t.Errorf("Binaries without claude on PATH = %v, want the app copy", got)
	}
}

func TestStatusAndVersion(t *testing.T) {
	bin := t.TempDir()
	script(t, bin, "claude", `[ "$1" = --version ] && echo "2.1.330 (Claude Code)" && echo extra; [ -n "$JC_SEEN" ] && echo "$JC_SEEN" >&2; exit 0`+"\n")
	script(t, bin, "opencode", "sleep 5\n")
	set := &memSettings{}
	m := New(Options{DataDir: t.TempDir(), Settings: set, LookPath: lookIn(bin), VersionTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	st := m.Status(ctx, claudeSpec())
	if !st.Found || st.Version != "2.1.330 (Claude Code)" || st.Source != SourcePath || st.Error != "" {
		t.Errorf("claude status %+v", st)
	}
	start := time.Now()
	st = m.Status(ctx, Specs(nil)[1])
	if !st.Found || st.Version != "" || !strings.Contains(st.Error, "no answer") {
		t.Errorf("hanging opencode --version: %+v", st)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("--version timeout took %s", d)
	}
	// --version answers are cached while the binary is unchanged.
	count := filepath.Join(bin, "count")
	script(t, bin, "codex", `echo x >> "`+count+`"; echo "codex-cli 0.169.0"`+"\n")
	for range 3 {
		if st := m.Status(ctx, Specs(nil)[3]); st.Version != "codex-cli 0.169.0" {
			t.Fatalf("codex status %+v", st)
		}
	}
	if data, _ := os.ReadFile(count); strings.Count(string(data), "x") != 1 {
		t.Errorf("codex --version ran %d times, want 1 (cached)", strings.Count(string(data), "x"))
	}
	st = m.Status(ctx, Specs(nil)[2])
	if st.Found || !strings.Contains(st.Error, "not found") {
		t.Errorf("missing gemini: %+v", st)
	}
}

func TestSettingsMaskAndApply(t *testing.T) {
	set := &memSettings{}
	m := New(Options{Settings: set})
	ctx := context.Background()
	in := AgentSettings{BinaryPath: "/opt/claude", ExtraArgs: []string{"--debug"},
		Env:          map[string]string{"ANTHROPIC_API_KEY": "sk-secret", "GH_TOKEN": "ghp_x", "HTTP_PROXY": "http://p"},
		DefaultModel: "sonnet", DefaultMode: agent.ModeAcceptEdits}
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(in.String(), "sk-secret") || strings.Contains(in.String(), "ghp_x") {
		t.Errorf("String leaks a secret: %s", in)
	}
	masked := in.Masked()
	want := map[string]string{"ANTHROPIC_API_KEY": Mask, "GH_TOKEN": Mask, "HTTP_PROXY": "http://p"}
	if d := cmp.Diff(want, masked.Env); d != "" {
		t.Errorf("masked env (-want +got):\n%s", d)
	}
	// The UI sends the masked value back: the stored secret stays.
	masked.Env["NEW_VAR"] = "1"
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, masked); err != nil {
		t.Fatal(err)
	}
	got, err := m.Settings(ctx, agent.BackendClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if got.Env["ANTHROPIC_API_KEY"] != "sk-secret" || got.Env["GH_TOKEN"] != "ghp_x" || got.Env["NEW_VAR"] != "1" {
		t.Errorf("after a masked round trip: %v", got.Env)
	}
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{DefaultMode: "yolo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{Env: map[string]string{"A=B": "x"}}); err == nil {
		t.Error("a bad variable name was accepted")
	}
	cfg := Apply(agent.Config{Env: map[string]string{"HTTP_PROXY": "task"}, ExtraArgs: []string{"--x"}, Mode: agent.ModePlan}, got)
	if cfg.Model != "sonnet" || cfg.Mode != agent.ModePlan || cfg.Env["HTTP_PROXY"] != "task" || cfg.Env["GH_TOKEN"] != "ghp_x" ||
		!slicesEqual(cfg.ExtraArgs, []string{"--debug", "--x"}) {
		t.Errorf("Apply = %+v", cfg)
	}
	if model, mode := m.Wrap(fakeBackend{}).Defaults(ctx); model != "sonnet" || mode != agent.ModeAcceptEdits {
		t.Errorf("Defaults = %q %q", model, mode)
	}
	if cfg := Apply(agent.Config{}, got); cfg.Mode != agent.ModeAcceptEdits {
		t.Errorf("default mode not applied: %+v", cfg)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestInstallProgressAndFailure(t *testing.T) {
	data, bin := t.TempDir(), t.TempDir()
	// A fake npm: install creates the package and its .bin link, printing
	// http fetch lines; a version "9.9.9" fails; uninstall removes it.
	npm := script(t, bin, "npm", `cmd=$1; shift
prefix=""; pkg=""
while [ $# -gt 0 ]; do case "$1" in --prefix) prefix=$2; shift;; -*) ;; *) pkg=$1;; esac; shift; done
case $cmd in
install)
  case $pkg in *@9.9.9) echo "npm error notarget No matching version" >&2; exit 1;; esac
  name=${pkg%@*}; ver=${pkg##*@}
  echo "npm http fetch GET 200 https://registry.npmjs.org/$name 12ms"
  echo "npm http fetch GET 200 https://registry.npmjs.org/$name/-/x.tgz 40ms" >&2
  mkdir -p "$prefix/node_modules/$name" "$prefix/node_modules/.bin"
  printf '{"name":"%s","version":"%s"}' "$name" "$ver" > "$prefix/node_modules/$name/package.json"
  printf '#!/bin/sh\necho "%s (fake)"\n' "$ver" > "$prefix/node_modules/.bin/claude"; chmod +x "$prefix/node_modules/.bin/claude"
  echo "added 1 package";;
uninstall)
  rm -rf "$prefix/node_modules/$pkg" "$prefix/node_modules/.bin/claude"; echo "removed 1 package";;
view) echo "3.0.0";;
esac
`)
	m := New(Options{DataDir: data, Settings: &memSettings{}, LookPath: lookIn(), NPM: npm})
	ctx := context.Background()
	spec := claudeSpec()
	var progress []Progress
	out, err := m.Install(ctx, spec, "", func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	last := progress[len(progress)-1]
	if !last.Done || last.Error != "" || last.Fetched != 2 {
		t.Errorf("last progress %+v, want done with 2 fetched", last)
	}
	if len(progress) < 4 || !strings.Contains(progress[0].Line, "http fetch") {
		t.Errorf("progress lines: %+v", progress)
	}
	st := m.Status(ctx, spec)
	if !st.Found || st.Source != SourceApp || st.AppInstalled != ClaudeCodeVersion || st.Version != ClaudeCodeVersion+" (fake)" {
		t.Errorf("after install: %+v", st)
	}
	progress = nil
	_, err = m.Install(ctx, spec, "9.9.9", func(p Progress) { progress = append(progress, p) })
	var ie *InstallError
	if !errors.As(err, &ie) || !strings.Contains(ie.Log, "notarget") {
		t.Fatalf("failed install: %v", err)
	}
	if last := progress[len(progress)-1]; !last.Done || last.Error == "" {
		t.Errorf("failed install's last progress %+v", last)
	}
	if _, err := m.Install(ctx, spec, "1.0.0; rm -rf /", nil); err == nil {
		t.Error("a bad version was accepted")
	}
	if v, err := m.Latest(ctx, spec); err != nil || v != "3.0.0" {
		t.Errorf("latest %q %v", v, err)
	}
	if _, err := m.Uninstall(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(ctx, spec); st.Found || st.AppInstalled != "" {
		t.Errorf("after uninstall: %+v", st)
	}
	if _, err := m.Install(ctx, Spec{Backend: "acp.block.goose", DisplayName: "Goose"}, "", nil); !errors.Is(err, ErrNotOnNPM) {
		t.Errorf("install of a non-npm agent: %v", err)
	}
}

func TestLatestCachedAndTolerant(t *testing.T) {
	bin := t.TempDir()
	count := filepath.Join(bin, "count")
	npm := script(t, bin, "npm", `echo x >> "`+count+`"; [ "$2" = opencode-ai ] && exit 1; echo "2.2.2"`+"\n")
	m := New(Options{NPM: npm, LookPath: lookIn()})
	ctx := context.Background()
	for range 3 {
		if v, err := m.Latest(ctx, claudeSpec()); err != nil || v != "2.2.2" {
			t.Fatalf("latest %q %v", v, err)
		}
	}
	if _, err := m.Latest(ctx, Specs(nil)[1]); err == nil {
		t.Error("a failing npm view gave no error")
	}
	_, _ = m.Latest(ctx, Specs(nil)[1])
	data, _ := os.ReadFile(count)
	if n := strings.Count(string(data), "x"); n != 2 {
		t.Errorf("npm view ran %d times, want 2 (cached, errors too)", n)
	}
}

func TestHealthProbes(t *testing.T) {
	bin := t.TempDir()
	script(t, bin, "claude", `read line
case "$line" in *initialize*) echo '{"type":"system","subtype":"noise"}'
echo '{"type":"control_response","response":{"subtype":"success","request_id":"jc_health_1","response":{"models":[{"value":"default","displayName":"Default"},{"value":"opus","displayName":"Opus"}],"commands":[{}]}}}';; esac
sleep 30
`)
	script(t, bin, "codex-acp", `read line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"0.16.0"}}}'
`)
	script(t, bin, "gemini", "echo 'boom: no auth' >&2; exit 3\n")
	script(t, bin, "codex", `[ "$1" = app-server ] || exit 9
read line
echo '{"jsonrpc":"2.0","id":1,"result":{"userAgent":"codex_cli_rs/0.169.0"}}'
`)
	m := New(Options{Settings: &memSettings{}, LookPath: lookIn(bin), HealthTimeout: 5 * time.Second})
	ctx := context.Background()
	specs := map[agent.BackendType]Spec{}
	for _, s := range Specs(nil) {
		specs[s.Backend] = s
	}
	start := time.Now()
	h := m.Health(ctx, specs[agent.BackendClaudeCode])
	if !h.OK || h.Detail != "initialize answered (2 models, 1 commands)" {
		t.Errorf("claude health %+v", h)
	}
	// The models it answered are cached for the new-task form.
	if ms := m.Models(ctx, specs[agent.BackendClaudeCode]); len(ms) != 2 || ms[0].ID == "" {
		t.Errorf("models %+v", ms)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the probe did not stop the process group promptly: %s", time.Since(start))
	}
	if h := m.Health(ctx, specs["acp.openai.codex"]); !h.OK || !strings.Contains(h.Detail, "codex-acp 0.16.0") {
		t.Errorf("acp health %+v", h)
	}
	// This codex exits after initialize (an app-server without model/list):
	// healthy all the same.
	if h := m.Health(ctx, specs[agent.BackendCodex]); !h.OK || h.Detail != "app-server initialize answered (codex_cli_rs/0.169.0)" {
		t.Errorf("codex health %+v", h)
	}
	if h := m.Health(ctx, specs["acp.google.gemini"]); h.OK || !strings.Contains(h.Detail, "boom: no auth") {
		t.Errorf("failing acp health %+v", h)
	}
	if h := m.Health(ctx, specs[agent.BackendOpenCode]); h.OK || !strings.Contains(h.Detail, "not found") {
		t.Errorf("missing opencode health %+v", h)
	}
}

func TestOpenCodeConfig(t *testing.T) {
	data := t.TempDir()
	want := map[agent.InteractionMode]map[string]string{
		agent.ModeAsk:         {"edit": "ask", "bash": "ask", "webfetch": "ask"},
		agent.ModeAcceptEdits: {"edit": "allow", "bash": "ask", "webfetch": "ask"},
		agent.ModeBypass:      {"edit": "allow", "bash": "allow", "webfetch": "allow"},
		agent.ModePlan:        {"edit": "deny", "bash": "ask", "webfetch": "ask"},
	}
	for mode, perm := range want {
		p, err := WriteOpenCodeConfig(data, "task/../"+string(mode), OpenCodeConfig{Mode: mode, Model: "fake/m",
			Provider: &OpenAICompatible{ID: "fake", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Models: []string{"m"}}})
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(p) != filepath.Join(data, "agent-configs", "opencode") {
			t.Errorf("config written to %s, outside the data dir's config folder", p)
		}
		raw, _ := os.ReadFile(p)
		var doc struct {
			Model      string            `json:"model"`
			Permission map[string]string `json:"permission"`
			Provider   map[string]struct {
				NPM string `json:"npm"`
			} `json:"provider"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(perm, doc.Permission); d != "" {
			t.Errorf("%s permissions (-want +got):\n%s", mode, d)
		}
		if doc.Model != "fake/m" || doc.Provider["fake"].NPM != "@ai-sdk/openai-compatible" {
			t.Errorf("%s config: %s", mode, raw)
		}
	}
	if _, err := WriteOpenCodeConfig(data, "x", OpenCodeConfig{Mode: "yolo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if _, err := WriteOpenCodeConfig("", "x", OpenCodeConfig{}); err == nil {
		t.Error("no data dir was accepted")
	}
}

// fakeBackend is a claude-code backend that starts nothing.
type fakeBackend struct{}

func (fakeBackend) Info() agent.Info { return agent.Info{Name: agent.BackendClaudeCode} }
func (fakeBackend) Start(context.Context, agent.Config, string) (agent.Session, error) {
	return nil, agent.ErrNotAvailable
}
func (fakeBackend) Dispose(context.Context) error { return nil }

// binBackend records the binary it was built for, its starts and disposal.
type binBackend struct {
	bin      string
	started  *[]string
	disposed *int
}

func (b binBackend) Info() agent.Info { return agent.Info{Name: agent.BackendClaudeCode} }
func (b binBackend) Start(_ context.Context, cfg agent.Config, _ string) (agent.Session, error) {
	*b.started = append(*b.started, b.bin+"|"+cfg.Env["X"])
	return nil, agent.ErrNotAvailable
}
func (b binBackend) Dispose(context.Context) error { *b.disposed++; return nil }

func TestRebuildingFollowsTheBinary(t *testing.T) {
	data, custom := t.TempDir(), t.TempDir()
	m := New(Options{DataDir: data, Settings: &memSettings{}, LookPath: lookIn()})
	ctx := context.Background()
	var started []string
	disposed := 0
	built := 0
	mk := func(bin string) agent.Backend {
		built++
		return binBackend{bin: bin, started: &started, disposed: &disposed}
	}
	c := m.Rebuilding(claudeSpec(), mk(""), "", mk)
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{Env: map[string]string{"X": "1"}}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Start(ctx, agent.Config{}, "")
	// Installed from the page: the next session uses the app's copy.
	app := script(t, filepath.Join(data, "agents", "node_modules", ".bin"), "claude", "exit 0\n")
	_, _ = c.Start(ctx, agent.Config{}, "")
	_, _ = c.Start(ctx, agent.Config{}, "")
	// A configured path wins.
	conf := script(t, custom, "claude", "exit 0\n")
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{BinaryPath: conf, Env: map[string]string{"X": "2"}}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Start(ctx, agent.Config{}, "")
	want := []string{"|1", app + "|1", app + "|1", conf + "|2"}
	if d := cmp.Diff(want, started); d != "" {
		t.Errorf("starts (-want +got):\n%s", d)
	}
	if built != 3 {
		t.Errorf("%d backends built, want 3 (initial, app copy, configured)", built)
	}
	if err := c.Dispose(ctx); err != nil || disposed != 3 {
		t.Errorf("dispose: %v, %d disposed, want 3", err, disposed)
	}
}

func TestServerWideRebuildsOnSettings(t *testing.T) {
	m := New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn()})
	ctx := context.Background()
	var started []string
	disposed, built := 0, 0
	mk := func(bin string) agent.Backend {
		built++
		return binBackend{bin: bin, started: &started, disposed: &disposed}
	}
	set := func(x string) {
		if err := m.SetSettings(ctx, agent.BackendClaudeCode, AgentSettings{Env: map[string]string{"X": x}}); err != nil {
			t.Fatal(err)
		}
	}
	set("1")
	wide := m.Rebuilding(claudeSpec(), mk(""), "", mk).ServerWide(ctx)
	_, _ = wide.Start(ctx, agent.Config{}, "")
	if built != 1 {
		t.Fatalf("unchanged settings rebuilt the backend (%d built)", built)
	}
	set("2")
	_, _ = wide.Start(ctx, agent.Config{}, "")
	_, _ = wide.Start(ctx, agent.Config{}, "")
	if built != 2 {
		t.Errorf("a settings change: %d backends built, want 2", built)
	}
	plain := m.Rebuilding(claudeSpec(), mk(""), "", mk)
	set("3")
	_, _ = plain.Start(ctx, agent.Config{}, "")
	if built != 3 { // the plain one's initial only
		t.Errorf("a per-session backend was rebuilt for settings (%d built)", built)
	}
}

func TestOpenCodeServerEnv(t *testing.T) {
	data := t.TempDir()
	m := New(Options{DataDir: data, Settings: &memSettings{}})
	ctx := context.Background()
	if err := m.SetSettings(ctx, agent.BackendOpenCode, AgentSettings{Env: map[string]string{"OPENAI_API_KEY": "sk"},
		DefaultModel: "p/m", DefaultMode: agent.ModePlan}); err != nil {
		t.Fatal(err)
	}
	env, err := m.OpenCodeServerEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(data, "agent-configs", "opencode", "server.json")
	if env["OPENCODE_CONFIG"] != want || env["OPENAI_API_KEY"] != "sk" {
		t.Fatalf("env %v", env)
	}
	raw, _ := os.ReadFile(want)
	if !strings.Contains(string(raw), `"edit": "deny"`) || !strings.Contains(string(raw), `"model": "p/m"`) {
		t.Errorf("server.json for plan mode:\n%s", raw)
	}
	if err := m.SetSettings(ctx, agent.BackendOpenCode, AgentSettings{Env: map[string]string{"OPENCODE_CONFIG": "/mine.json"}}); err != nil {
		t.Fatal(err)
	}
	if env, _ := m.OpenCodeServerEnv(ctx); env["OPENCODE_CONFIG"] != "/mine.json" {
		t.Errorf("the user's OPENCODE_CONFIG was replaced: %v", env)
	}
}

// TestACPVersionFromInitialize: an ACP agent whose --version does not work
// (codex-acp exits 2) shows the version its initialize answer carries.
func TestACPVersionFromInitialize(t *testing.T) {
	bin := t.TempDir()
	script(t, bin, "codex-acp", `[ "$1" = --version ] && { echo "error: unexpected argument '--version'" >&2; exit 2; }
read line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.16.0"}}}'
`)
	m := New(Options{DataDir: t.TempDir(), Settings: &memSettings{}, LookPath: lookIn(bin), VersionTimeout: 5 * time.Second})
	var spec Spec
	for _, s := range Specs(nil) {
		if s.Command == "codex-acp" {
			spec = s
		}
	}
	if spec.Probe != ProbeACP {
		t.Fatalf("no codex-acp spec: %+v", spec)
	}
	st := m.Status(context.Background(), spec)
	if st.Version != "0.16.0" || st.Error != "" {
		t.Errorf("status %+v, want version 0.16.0 from agentInfo", st)
	}
}

// A missing binary is said once: no trailing ": agent binary not found"
// after "… not found (…)" (issue 23), and errors.Is still sees the sentinel.
func TestNotFoundSaysItOnce(t *testing.T) {
	err := error(notFoundError("Claude Code not found (claude is not on PATH nor installed by the app)"))
	if !errors.Is(err, agent.ErrBinaryNotFound) || strings.Count(err.Error(), "not found") != 1 {
		t.Fatalf("%v", err)
	}
}
