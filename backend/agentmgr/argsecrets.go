package agentmgr

import (
	"slices"
	"strconv"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/secrets"
)

// Extra arguments may carry credentials too (`--api-key=sk-…`, or
// `--token` followed by the token): such a value is kept in the secret
// store and masked like a secret environment value. The flag itself stays
// in the stored settings.

func argSecretName(b agent.BackendType, i int) string {
	return "agent/" + string(b) + "/arg/" + strconv.Itoa(i)
}

// splitArg splits extra argument a into the text before its value and
// the value: "--api-key=v" → ("--api-key=", "v"); "v" → ("", "v"); a flag
// without "=" has no value of its own.
func splitArg(a string) (prefix, value string) {
	if strings.HasPrefix(a, "-") {
		if i := strings.IndexByte(a, '='); i >= 0 {
			return a[:i+1], a[i+1:]
		}
		return a, ""
	}
	return "", a
}

// flagName is the environment-style name of a flag ("--api-key=" →
// "API_KEY"), so that the names that make an env var secret make a flag's
// value secret too.
func flagName(flag string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.Trim(flag, "-="), "-", "_"))
}

// argIsSecret reports whether args[i]'s value is a secret: it looks like a
// credential, or its flag's name (in the same argument, or the argument
// before it) says it holds one.
func argIsSecret(args []string, i int) bool {
	prefix, v := splitArg(args[i])
	if v == "" || v == Mask || v == sealedRef {
		return v == sealedRef
	}
	name := flagName(prefix)
	if prefix == "" && i > 0 {
		if p, pv := splitArg(args[i-1]); strings.HasPrefix(p, "-") && pv == "" {
			name = flagName(p)
		}
	}
	return secrets.LooksSecret(name, v)
}

// maskedArgs returns args with every secret value replaced by Mask.
func maskedArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if argIsSecret(args, i) {
			p, _ := splitArg(a)
			out[i] = p + Mask
		}
	}
	return out
}

// unmaskArgs puts back the stored value of every argument the UI sent
// masked: old's argument at the same place when it masks the same way,
// else the first of old's that does (the list was edited around it).
func unmaskArgs(args, old []string) []string {
	out := make([]string, len(args))
	om := maskedArgs(old)
	for i, a := range args {
		out[i] = a
		if _, v := splitArg(a); v != Mask {
			continue
		}
		if i < len(old) && om[i] == a {
			out[i] = old[i]
			continue
		}
		if j := slices.Index(om, a); j >= 0 {
			out[i] = old[j]
		}
	}
	return out
}
