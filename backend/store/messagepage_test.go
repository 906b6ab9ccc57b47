package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// TestMessagesPage: pages come newest first through the cursor, each oldest
// first, never more than the limit, and a page asked to reach back to a
// message holds everything from it to the cursor.
func TestMessagesPage(t *testing.T) {
	db := openOrchTestDB(t)
	ctx := context.Background()
	for i := range 25 {
		if _, err := UpsertMessage(ctx, db.W, MessageWrite{TaskID: "t", Message: agent.Message{ID: fmt.Sprintf("m%02d", i), Role: agent.RoleAssistant},
			Format: "f", Now: int64(1000 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(p MessagePage) string {
		var s []string
		for _, m := range p.Messages {
			s = append(s, m.ID)
		}
		return strings.Join(s, " ")
	}
	check := func(name string, p MessagePage, err error, want string, first int64, older bool) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(p); got != want || p.First != first || p.HasOlder != older {
			t.Fatalf("%s: %q first %d older %v; want %q first %d older %v", name, got, p.First, p.HasOlder, want, first, older)
		}
	}
	p, err := MessagesPage(ctx, db.R, "t", -1, 10, "")
	check("newest", p, err, "m15 m16 m17 m18 m19 m20 m21 m22 m23 m24", 15, true)
	p, err = MessagesPage(ctx, db.R, "t", p.First, 10, "")
	check("before 15", p, err, "m05 m06 m07 m08 m09 m10 m11 m12 m13 m14", 5, true)
	p, err = MessagesPage(ctx, db.R, "t", p.First, 10, "")
	check("before 5", p, err, "m00 m01 m02 m03 m04", 0, false)
	p, err = MessagesPage(ctx, db.R, "t", 0, 10, "")
	check("before 0", p, err, "", -1, false)
	p, err = MessagesPage(ctx, db.R, "t", -1, 3, "m19")
	check("reaching m19", p, err, "m19 m20 m21 m22 m23 m24", 19, true)
	p, err = MessagesPage(ctx, db.R, "t", -1, 3, "m23")
	check("m23 inside the page", p, err, "m22 m23 m24", 22, true)
	p, err = MessagesPage(ctx, db.R, "t", 5, 2, "gone")
	check("an unknown message", p, err, "m03 m04", 3, true)
	p, err = MessagesPage(ctx, db.R, "other", -1, 10, "")
	check("another task", p, err, "", -1, false)
}
