package notify

// The app's one status vocabulary, as notifications say it. The frontend
// reads the same words from frontend/src/lib/statusWords.json (its task
// list, header and tooltips); TestWordsMatchFrontend keeps the two equal.
const (
	WordNew         = "Not started"
	WordWorking     = "Working"
	WordWaiting     = "Waiting for you"
	WordDone        = "Done"
	WordStopped     = "Stopped"
	WordInterrupted = "Interrupted"
	WordFailed      = "Failed"
	WordBlocked     = "Cannot save"
)

// Words maps each status key to its word (the JSON file's "status" object).
var Words = map[string]string{
	"new":         WordNew,
	"working":     WordWorking,
	"waiting":     WordWaiting,
	"done":        WordDone,
	"stopped":     WordStopped,
	"interrupted": WordInterrupted,
	"failed":      WordFailed,
	"blocked":     WordBlocked,
}

// Body says a notification's text: "Done: the tests pass", "Failed: the
// agent binary was not found", "Waiting for you: Bash wants to run: npm test".
func Body(word, detail string) string {
	if detail == "" {
		return word
	}
	return word + ": " + detail
}
