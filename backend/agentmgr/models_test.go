package agentmgr

import (
	"reflect"
	"testing"
)

// The start of the real Codex 0.169.0 app-server's model/list answer
// (captured 2026-11-24), one entry hidden by hand.
const codexModelList = `{"id":2,"result":{"data":[` +
	`{"id":"gpt-6-astra","model":"gpt-6-astra","displayName":"GPT-6-Astra","description":"Frontier intelligence.","hidden":false,"isDefault":false},` +
	`{"id":"gpt-6.1-sol","model":"gpt-6.1-sol","upgrade":null,"displayName":"GPT-6.1-Sol","description":"Latest workhorse model.","hidden":false,"supportedReasoningEfforts":[{"reasoningEffort":"low","description":"Fast"}],"defaultReasoningEffort":"low","isDefault":true},` +
	`{"id":"internal","model":"internal","displayName":"Internal","hidden":true,"isDefault":false}],"nextCursor":null}}`

func TestCodexModels(t *testing.T) {
	got, ok := codexModels([]byte(codexModelList))
	want := []Model{{ID: "gpt-6.1-sol", Name: "GPT-6.1-Sol"}, {ID: "gpt-6-astra", Name: "GPT-6-Astra"}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("codexModels = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := codexModels([]byte(`{"id":1,"result":{"userAgent":"x"}}`)); ok {
		t.Fatal("the initialize answer taken for model/list")
	}
	if _, ok := codexModels([]byte(`{"method":"remoteControl/status/changed","params":{}}`)); ok {
		t.Fatal("a notification taken for model/list")
	}
}

func TestCodexProbeReadsInitializeThenModels(t *testing.T) {
	m := New(Options{DataDir: t.TempDir()})
	answer, initialized := m.withModels(t.Context(), "codex", codexAnswer, codexModels)
	for _, line := range []string{`{"id":1,"result":{"userAgent":"jc/0.169.0"}}`, `{"method":"remoteControl/status/changed","params":{}}`} {
		if _, ok, err := answer([]byte(line)); ok || err != nil {
			t.Fatalf("%s ended the probe (%v)", line, err)
		}
	}
	if initialized() != "app-server initialize answered (jc/0.169.0)" {
		t.Fatalf("initialized = %q", initialized())
	}
	d, ok, err := answer([]byte(codexModelList))
	if !ok || err != nil || d != "app-server initialize answered (jc/0.169.0), 2 models" {
		t.Fatalf("probe = %q %v %v", d, ok, err)
	}
}

func TestOpenCodeModels(t *testing.T) {
	body := `{"providers":[
		{"id":"fake","name":"Fake","models":{"fake-basic":{"id":"fake-basic","name":"Fake Basic"},"fake-big":{"id":"fake-big"}}},
		{"id":"anthropic","name":"Anthropic","models":{"claude-x":{"name":"Claude X"}}}],
		"default":{"fake":"fake-big","anthropic":"claude-x"}}`
	want := []Model{
		{ID: "fake/fake-big", Name: "fake-big (Fake)"},
		{ID: "anthropic/claude-x", Name: "Claude X (Anthropic)"},
		{ID: "fake/fake-basic", Name: "Fake Basic (Fake)"},
	}
	if got := openCodeModels([]byte(body)); !reflect.DeepEqual(got, want) {
		t.Fatalf("openCodeModels = %+v", got)
	}
	if openCodeModels([]byte(`<html>`)) != nil {
		t.Fatal("garbage made models")
	}
}

func TestACPModels(t *testing.T) {
	// codex-acp 0.16.0's session/new answer (trimmed): models as a config option.
	codexACP := `{"jsonrpc":"2.0","result":{"sessionId":"s","modes":{"currentModeId":"read-only"},"configOptions":[` +
		`{"id":"mode","category":"mode","options":[{"value":"auto","name":"Default"}]},` +
		`{"id":"model","category":"model","currentValue":"gpt-5.5","options":[{"value":"gpt-5.5","name":"GPT-5.5"},{"value":"gpt-5.4","name":"gpt-5.4"}]}]},"id":2}`
	got, ok := acpModels([]byte(codexACP))
	if want := []Model{{ID: "gpt-5.5", Name: "GPT-5.5"}, {ID: "gpt-5.4", Name: "gpt-5.4"}}; !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("codex-acp = %+v %v", got, ok)
	}
	spec := `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s","models":{"currentModelId":"a","availableModels":[{"modelId":"a","name":"A"},{"modelId":"b","name":"B"}]}}}`
	if got, ok := acpModels([]byte(spec)); !ok || len(got) != 2 || got[1].ID != "b" {
		t.Fatalf("spec models = %+v %v", got, ok)
	}
	if got, ok := acpModels([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Authentication required"}}`)); !ok || got != nil {
		t.Fatalf("an auth error = %+v %v", got, ok)
	}
	if _, ok := acpModels([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`)); ok {
		t.Fatal("initialize taken for session/new")
	}
}
