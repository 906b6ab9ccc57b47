package agentmgr

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/secrets"
	"github.com/jean-claude/jean-claude/backend/store"
)

// The secrets of the issue: by value (a URL with a password, a GitHub
// token under a name that says nothing), by name, and marked by the user.
var testSecrets = map[string]string{
	"DATABASE_URL":      "postgres://u:pw-9f8e7d@h/db",
	"GH_PAT":            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"ANTHROPIC_API_KEY": "sk-ant-api03-zyxwvutsrqponmlkjihg",
	"MY_VALUE":          "plain-but-marked-secret-4711",
}

func TestSecretsNeverInTheDatabaseNorTheLogAndMaskedByValue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "jc.db")
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sec, note := secrets.Open(dir, broken{})
	if note == "" {
		t.Fatal("no note for the file fallback")
	}
	m := New(Options{DataDir: dir, Settings: DBSettings(db), Logger: log, Secrets: sec, SecretsNote: note})
	env := map[string]string{"DEBUG": "1", "HTTP_PROXY": "http://proxy:3128"}
	for k, v := range testSecrets {
		env[k] = v
	}
	// Extra arguments carry secrets too: by value, and by the flag's name
	// (in the same argument or the one before).
	args := []string{"--verbose", "--mcp-url=postgres://u:arg-pw-31337@h/db", "--api-key", "opaque-by-flag-name-2718", "--token=opaque-inline-1618", "ghp_ARGabcdefghijklmnopqrstuvwxyz0123"}
	argSecrets := []string{"postgres://u:arg-pw-31337@h/db", "opaque-by-flag-name-2718", "opaque-inline-1618", "ghp_ARGabcdefghijklmnopqrstuvwxyz0123"}
	in := AgentSettings{Env: env, Secrets: []string{"MY_VALUE"}, ExtraArgs: args}
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, in); err != nil {
		t.Fatal(err)
	}
	got, err := m.Settings(ctx, agent.BackendClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if got.Env[k] != v {
			t.Errorf("read back %s = %q, want %q", k, got.Env[k], v)
		}
	}
	if !slices.Equal(got.ExtraArgs, args) {
		t.Errorf("extra arguments read back %q, want %q", got.ExtraArgs, args)
	}
	masked := got.Masked()
	for k := range testSecrets {
		if masked.Env[k] != Mask {
			t.Errorf("%s not masked: %q", k, masked.Env[k])
		}
	}
	wantArgs := []string{"--verbose", "--mcp-url=" + Mask, "--api-key", Mask, "--token=" + Mask, Mask}
	if !slices.Equal(masked.ExtraArgs, wantArgs) {
		t.Errorf("masked extra arguments %q, want %q", masked.ExtraArgs, wantArgs)
	}
	if masked.Env["DEBUG"] != "1" || masked.Env["HTTP_PROXY"] != "http://proxy:3128" {
		t.Errorf("plain values masked: %v", masked.Env)
	}
	// Saving what the UI sends back (masked) keeps every secret.
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, masked); err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Settings(ctx, agent.BackendClaudeCode); again.Env["GH_PAT"] != testSecrets["GH_PAT"] || !slices.Equal(again.ExtraArgs, args) {
		t.Fatalf("masked save lost a secret: %q %q", again.Env["GH_PAT"], again.ExtraArgs)
	}
	// The agent gets them at Start.
	if cfg := Apply(agent.Config{}, got); cfg.Env["DATABASE_URL"] != testSecrets["DATABASE_URL"] || !slices.Equal(cfg.ExtraArgs, args) {
		t.Fatalf("Apply: %v", cfg.Env)
	}
	// The orchestrator learns every secret value (and no plain one) to keep
	// them out of what the agent writes (agent.SecretSource).
	vals := m.Wrap(fakeBackend{}).SecretValues(ctx)
	for k, v := range testSecrets {
		if !slices.Contains(vals, v) {
			t.Errorf("SecretValues misses %s", k)
		}
	}
	for _, v := range argSecrets {
		if !slices.Contains(vals, v) {
			t.Errorf("SecretValues misses the extra argument %q", v)
		}
	}
	if slices.Contains(vals, "1") || slices.Contains(vals, "http://proxy:3128") || slices.Contains(vals, "--verbose") || !slices.Contains(vals, env["MY_VALUE"]) {
		t.Errorf("SecretValues = %q", vals)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A search of the database files (WAL included) and the log finds none.
	files, _ := filepath.Glob(dbPath + "*")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range testSecrets {
			if bytes.Contains(data, []byte(v)) {
				t.Errorf("%s in clear in %s", k, filepath.Base(f))
			}
		}
		for _, v := range argSecrets {
			if bytes.Contains(data, []byte(v)) {
				t.Errorf("extra argument %q in clear in %s", v, filepath.Base(f))
			}
		}
	}
	for k, v := range testSecrets {
		if strings.Contains(logBuf.String(), v) {
			t.Errorf("%s in the log: %s", k, logBuf.String())
		}
	}
	for _, v := range argSecrets {
		if strings.Contains(logBuf.String(), v) {
			t.Errorf("extra argument %q in the log: %s", v, logBuf.String())
		}
	}
	if !strings.Contains(logBuf.String(), "settings saved") {
		t.Errorf("log: %s", logBuf.String())
	}
	// They are in the fallback file, readable only by the user.
	st, err := os.Stat(filepath.Join(dir, "secrets.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file: %v %v", st, err)
	}
}

func TestClearSecretsOfAnOlderVersionAreSealed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	set := &memSettings{m: map[string]string{
		SettingsKey(agent.BackendCodex): `{"env":{"GH_PAT":"ghp_abcdefghijklmnopqrstuvwxyz0123456789","DEBUG":"1"}}`,
	}}
	sec, _ := secrets.Open(dir, broken{})
	m := New(Options{DataDir: dir, Settings: set, Secrets: sec})
	if err := m.SealStoredSecrets(ctx, []Spec{{Backend: agent.BackendCodex}}); err != nil {
		t.Fatal(err)
	}
	if v := set.m[SettingsKey(agent.BackendCodex)]; strings.Contains(v, "ghp_") || !strings.Contains(v, `"DEBUG":"1"`) {
		t.Fatalf("stored %s", v)
	}
	if s, _ := m.Settings(ctx, agent.BackendCodex); s.Env["GH_PAT"] != "ghp_abcdefghijklmnopqrstuvwxyz0123456789" {
		t.Fatalf("read back %v", s.Env)
	}
}

type broken struct{}

func (broken) Get(string) (string, error) { return "", secrets.ErrNotFound }
func (broken) Set(string, string) error   { return os.ErrPermission }
func (broken) Delete(string) error        { return nil }
func (broken) Where() string              { return "nowhere" }

func TestApplyDisableMCP(t *testing.T) {
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:1/mcp", Token: "x"}
	if got := Apply(agent.Config{MCP: m}, AgentSettings{}); got.MCP != m {
		t.Error("MCP dropped without the setting")
	}
	if got := Apply(agent.Config{MCP: m}, AgentSettings{DisableMCP: true}); got.MCP != nil {
		t.Error("MCP kept for an agent that turned it off")
	}
}

// countingStore counts the secrets read from it.
type countingStore struct {
	secrets.Store
	gets int
}

func (c *countingStore) Get(name string) (string, error) { c.gets++; return c.Store.Get(name) }

// Finding the agents' binaries at startup reads no secret: the keyring is
// probed in the background, and the window must not wait for it.
func TestBinariesReadNoSecret(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bin := filepath.Join(dir, "my-claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file, _ := secrets.Open(dir, broken{})
	sec := &countingStore{Store: file}
	m := New(Options{DataDir: dir, Settings: DBSettings(db), Secrets: sec})
	in := AgentSettings{BinaryPath: bin, Env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-zyxwvutsrqponmlkjihg"}}
	if err := m.SetSettings(ctx, agent.BackendClaudeCode, in); err != nil {
		t.Fatal(err)
	}
	sec.gets = 0
	got := m.Binaries(ctx, Specs(nil))
	if got[agent.BackendClaudeCode] != bin {
		t.Fatalf("binaries %v, want claude at %s", got, bin)
	}
	if sec.gets != 0 {
		t.Fatalf("%d secrets read to find the binaries", sec.gets)
	}
	if s, _ := m.Settings(ctx, agent.BackendClaudeCode); s.Env["ANTHROPIC_API_KEY"] == "" || sec.gets == 0 {
		t.Fatalf("the settings' secret was not read back (%d reads)", sec.gets)
	}
}
