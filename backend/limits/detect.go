// Package limits recognizes usage and rate limits that carry a reset time in
// the agents' raw output, normalized into one Limit, and schedules an
// automatic retry of the task at that time (Scheduler).
//
// Detect reads one raw frame of a known format; it is pure and cheap (a
// byte prefilter runs before any JSON decoding). What each agent sends:
//
//	claude-code   {"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":<epoch s>}}
//	              a result/assistant text "Claude AI usage limit reached|<epoch s>"
//	codex-app-server  account/rateLimits/updated {rateLimits:{rateLimitReachedType, primary|secondary:{usedPercent, resetsAt}}}
//	codex, codex-app-server  an error / turn.failed text "... try again in 2 hours 5 minutes"
//	gemini, gemini-json, acp  a quota error text "Please retry in 23.5s" / "quota will reset after 1h2m3s"
//	opencode      session.error APIError with statusCode 429 and a retry-after header, or
//	              a text "try again in …"
//
// A limit without a reset time (Gemini's "exhausted your daily quota") is
// not a Limit: nothing could be counted down or retried.
package limits

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limit is a usage or rate limit an agent reported, with when it lifts.
type Limit struct {
	ResetAt time.Time // when the limit lifts
	Message string    // what the agent said, one line
	Kind    string    // "usage" (a plan's quota) or "rate" (requests per window)
}

// prefilter: a frame without any of these is never a limit.
var prefilter = [][]byte{
	[]byte("rate_limit_event"), []byte("limit reached"), []byte("rateLimits/updated"),
	[]byte("try again"), []byte("Try again"), []byte("retry in"), []byte("Retry in"),
	[]byte("reset after"), []byte("retry-after"), []byte("Retry-After"),
}

func mayBeLimit(frame []byte) bool {
	for _, p := range prefilter {
		if bytes.Contains(frame, p) {
			return true
		}
	}
	return false
}

// Detect returns the limit frame reports, if any; now is when the frame was
// received (relative times count from it).
func Detect(format string, frame []byte, now time.Time) (Limit, bool) {
	if !mayBeLimit(frame) {
		return Limit{}, false
	}
	switch format {
	case "claude-code":
		return claude(frame, now)
	case "codex-app-server":
		if l, ok := codexRateLimits(frame); ok {
			return l, true
		}
	case "opencode":
		return opencodeError(frame, now)
	case "codex", "gemini", "gemini-json", "acp":
	default:
		return Limit{}, false
	}
	if !isErrorFrame(frame) {
		return Limit{}, false
	}
	return fromText(frame, now)
}

// isErrorFrame: only an error the agent reports is read for a reset time,
// never a tool's output or the model's text (a file could say "try again
// in 5 minutes").
func isErrorFrame(frame []byte) bool {
	var w struct {
		Type     string          `json:"type"`
		Method   string          `json:"method"`
		Status   string          `json:"status"`
		IsError  bool            `json:"is_error"`
		APIError bool            `json:"isApiErrorMessage"`
		Error    json.RawMessage `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(frame), &w) != nil {
		return false
	}
	hasErr := len(w.Error) > 0 && string(w.Error) != "null" && string(w.Error) != `""`
	switch {
	case w.Type == "result":
		return w.IsError || w.Status == "error" || hasErr
	case w.Type == "assistant":
		return w.APIError || hasErr
	case w.Type == "error" || w.Type == "turn.failed" || w.Method == "error":
		return true
	}
	return hasErr
}

// claudeUsage is Claude Code's "usage limit reached|<epoch>" text.
var claudeUsage = regexp.MustCompile(`(?i)usage limit reached\|(\d{9,13})`)

func claude(frame []byte, now time.Time) (Limit, bool) {
	var w struct {
		Type string `json:"type"`
		Info *struct {
			Status   string          `json:"status"`
			ResetsAt json.RawMessage `json:"resetsAt"`
			Type     string          `json:"rateLimitType"`
		} `json:"rate_limit_info"`
	}
	if json.Unmarshal(frame, &w) == nil && w.Type == "rate_limit_event" {
		if w.Info == nil || w.Info.Status != "rejected" {
			return Limit{}, false
		}
		at, ok := epoch(w.Info.ResetsAt)
		if !ok {
			return Limit{}, false
		}
		msg := "Claude usage limit reached"
		if w.Info.Type != "" {
			msg += " (" + strings.ReplaceAll(w.Info.Type, "_", " ") + ")"
		}
		return Limit{ResetAt: at, Message: msg, Kind: "usage"}, true
	}
	if !isErrorFrame(frame) {
		return Limit{}, false
	}
	if m := claudeUsage.FindSubmatch(frame); m != nil {
		if at, ok := epoch(m[1]); ok {
			return Limit{ResetAt: at, Message: "Claude AI usage limit reached", Kind: "usage"}, true
		}
	}
	return fromText(frame, now)
}

// epoch reads a Unix time in seconds or milliseconds (a number or a string).
func epoch(raw []byte) (time.Time, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f <= 0 {
			return time.Time{}, false
		}
		n = int64(f)
	}
	if n > 1e12 {
		return time.UnixMilli(n), true
	}
	return time.Unix(n, 0), true
}

type codexWindow struct {
	UsedPercent float64         `json:"usedPercent"`
	ResetsAt    json.RawMessage `json:"resetsAt"`
}

func codexRateLimits(frame []byte) (Limit, bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			RateLimits struct {
				Reached   *string      `json:"rateLimitReachedType"`
				LimitName string       `json:"limitName"`
				Primary   *codexWindow `json:"primary"`
				Secondary *codexWindow `json:"secondary"`
			} `json:"rateLimits"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Method != "account/rateLimits/updated" {
		return Limit{}, false
	}
	rl := m.Params.RateLimits
	reached := rl.Reached != nil && *rl.Reached != ""
	var full, all []*codexWindow
	for _, w := range []*codexWindow{rl.Primary, rl.Secondary} {
		if w != nil {
			all = append(all, w)
			if w.UsedPercent >= 100 {
				full = append(full, w)
			}
		}
	}
	if len(full) == 0 && reached {
		full = all
	}
	var reset time.Time
	for _, w := range full {
		if at, ok := epoch(w.ResetsAt); ok && at.After(reset) {
			reset = at
		}
	}
	if reset.IsZero() {
		return Limit{}, false
	}
	msg := "Codex usage limit reached"
	if rl.Reached != nil && *rl.Reached != "" {
		msg += " (" + strings.ReplaceAll(*rl.Reached, "_", " ") + ")"
	}
	return Limit{ResetAt: reset, Message: msg, Kind: "usage"}, true
}

func opencodeError(frame []byte, now time.Time) (Limit, bool) {
	payload := bytes.TrimSpace(frame)
	payload = bytes.TrimPrefix(payload, []byte("data:"))
	var ev struct {
		Type       string `json:"type"`
		Properties struct {
			Error struct {
				Name string `json:"name"`
				Data struct {
					Message         string            `json:"message"`
					StatusCode      int               `json:"statusCode"`
					ResponseHeaders map[string]string `json:"responseHeaders"`
				} `json:"data"`
			} `json:"error"`
		} `json:"properties"`
	}
	if json.Unmarshal(payload, &ev) != nil || ev.Type != "session.error" {
		return Limit{}, false
	}
	d := ev.Properties.Error.Data
	if d.StatusCode != 429 {
		return Limit{}, false
	}
	for k, v := range d.ResponseHeaders {
		if !strings.EqualFold(k, "retry-after") {
			continue
		}
		if secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return Limit{ResetAt: now.Add(time.Duration(secs * float64(time.Second))), Message: oneLine(d.Message), Kind: "rate"}, true
		}
		if at, err := time.Parse(time.RFC1123, v); err == nil {
			return Limit{ResetAt: at, Message: oneLine(d.Message), Kind: "rate"}, true
		}
	}
	return textLimit(d.Message, now)
}

// fromText finds a reset time in the frame's text: the JSON strings'
// contents, unescaped, so the patterns see what the user would read.
func fromText(frame []byte, now time.Time) (Limit, bool) {
	strs := jsonStrings(frame)
	if !limitish.MatchString(strings.Join(strs, "\n")) {
		return Limit{}, false
	}
	for _, s := range strs {
		if l, ok := resetIn(s, now); ok {
			return l, true
		}
	}
	return Limit{}, false
}

var (
	// "try again in 2 hours 5 minutes", "retry in 23.5s", "reset after 1h2m3s"
	relative = regexp.MustCompile(`(?i)(?:try again|retry|reset(?:s)?(?: after)?)\s+in\s+([0-9][0-9a-z. ,]*)|reset after\s+([0-9][0-9a-z. ,]*)`)
	unitRe   = regexp.MustCompile(`(?i)([0-9]+(?:\.[0-9]+)?)\s*(days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|ms|d|h|m|s)`)
	limitish = regexp.MustCompile(`(?i)usage limit|rate limit|quota|429|too many requests|limit reached|resource_exhausted`)
)

func textLimit(s string, now time.Time) (Limit, bool) {
	if !limitish.MatchString(s) {
		return Limit{}, false
	}
	return resetIn(s, now)
}

// resetIn reads a relative reset time in s.
func resetIn(s string, now time.Time) (Limit, bool) {
	m := relative.FindStringSubmatch(s)
	if m == nil {
		return Limit{}, false
	}
	spec := m[1]
	if spec == "" {
		spec = m[2]
	}
	d, ok := parseDuration(spec)
	if !ok {
		return Limit{}, false
	}
	kind := "rate"
	if low := strings.ToLower(s); strings.Contains(low, "usage limit") || strings.Contains(low, "quota") {
		kind = "usage"
	}
	return Limit{ResetAt: now.Add(d), Message: oneLine(s), Kind: kind}, true
}

// parseDuration reads "2 hours 5 minutes", "1h2m3s", "23.5s", "4 days 3 hours".
func parseDuration(s string) (time.Duration, bool) {
	var total time.Duration
	found := false
	for _, m := range unitRe.FindAllStringSubmatch(s, -1) {
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			continue
		}
		var unit time.Duration
		switch u := strings.ToLower(m[2]); {
		case u == "ms":
			unit = time.Millisecond
		case strings.HasPrefix(u, "d"):
			unit = 24 * time.Hour
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		case strings.HasPrefix(u, "m"):
			unit = time.Minute
		default:
			unit = time.Second
		}
		total += time.Duration(f * float64(unit))
		found = true
	}
	return total, found && total > 0
}

// jsonStrings returns every string value in a JSON document (the frame
// itself when it is not JSON).
func jsonStrings(frame []byte) []string {
	frame = bytes.TrimPrefix(bytes.TrimSpace(frame), []byte("data:"))
	var v any
	if json.Unmarshal(frame, &v) != nil {
		return []string{string(frame)}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
