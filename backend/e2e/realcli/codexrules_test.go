package realcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/store"
)

// codexPromptRule is a Codex execpolicy rule asking before `cat` and `ls`
// (two of the commands Codex knows as safe and runs unasked under
// approval_policy="untrusted").
const codexPromptRule = `prefix_rule(pattern = [["cat", "ls"]], decision = "prompt")` + "\n"

// TestCodexACPPromptRuleFacts pins down why codex-acp's Ask mode does not
// ask before `cat` (the known failure TestCodexACP/ask-readonly) and why
// the app does not ship the lever that would make it ask: an execpolicy
// `prompt` rule in $CODEX_HOME/rules makes codex-acp 0.16.0 ask before
// `cat hello.txt` in Ask mode, but in bypass mode (codex-acp's
// `full-access`, approval policy `never`) the same rule makes it refuse
// the command outright, and Codex reads rules only from its config folders
// ($CODEX_HOME, the project's .codex/, /etc/codex), none of them the
// app's. When this test fails, codex-acp changed and the known failure
// may be fixable another way.
func TestCodexACPPromptRuleFacts(t *testing.T) {
	t.Parallel()
	b := bin(t, binDir(t), "codex-acp")
	name := agent.BackendType("acp.openai.codex")
	for _, mode := range []agent.InteractionMode{agent.ModeAsk, agent.ModeBypass} {
		t.Run(string(mode), func(t *testing.T) {
			withHello(t, func(model *fakemodel.Server, _ string) agentCase {
				env := codexEnv(t, model)
				rules := filepath.Join(env["CODEX_HOME"], "rules")
				if err := os.MkdirAll(rules, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(rules, "ask.rules"), []byte(codexPromptRule), 0o644); err != nil {
					t.Fatal(err)
				}
				return agentCase{format: "acp", mode: mode, asks: true, mk: wrapped(t, name, env, acpBackend(t, name, b))}
			}, func(h *harness) {
				h.t.Run("text", func(t *testing.T) { h.stepText(t) })
				if mode == agent.ModeAsk {
					h.t.Run("ask-readonly", func(t *testing.T) { h.known = h.toolIDs(t); h.stepAskReadOnly(t) })
					return
				}
				h.t.Run("bypass-refuses", func(t *testing.T) {
					h.known = h.toolIDs(t)
					h.send(t, "readonly", "[scenario:readonly] Show me hello.txt.")
					asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce)
					ran := h.ranCat(h.messages(t))
					t.Logf("bypass with the prompt rule: asked %v, ran %v", asked, ran)
					if len(asked) != 0 || len(ran) != 0 {
						t.Errorf("codex-acp in full-access with a prompt rule asked %v and ran %v; want it to refuse `cat` unasked "+
							"(if it now runs it, shipping the rule may fix TestCodexACP/ask-readonly)", asked, ran)
					}
					// The model is told why (Codex's PROMPT_CONFLICT_REASON).
					const why = "approval required by policy, but AskForApproval is set to Never"
					var told bool
					for _, r := range h.model.Requests() {
						told = told || strings.Contains(string(r.Body), why)
					}
					if !told {
						t.Errorf("no model request carries %q", why)
					}
					wantStatus(t, h, store.StatusCompleted)
				})
			})
		})
	}
}
