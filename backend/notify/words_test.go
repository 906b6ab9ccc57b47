package notify

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

func TestWordsMatchFrontend(t *testing.T) {
	b, err := os.ReadFile("../../frontend/src/lib/statusWords.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Status map[string]string `json:"status"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Status, Words) {
		t.Fatalf("frontend status words %v differ from notify.Words %v", f.Status, Words)
	}
	if got := Body(WordDone, "tests pass"); got != "Done: tests pass" {
		t.Fatal(got)
	}
}
