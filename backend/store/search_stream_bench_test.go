package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// streamMessage writes one assistant message growing to 20 KB in 100-byte
// steps, each step its own transaction (what a live session does when it
// rewrites a streaming message), and returns the time taken.
func streamMessage(b *testing.B, db *store.DB, taskID, id string) time.Duration {
	ctx := context.Background()
	chunk := strings.Repeat("word_of_text ", 8)[:100]
	var text strings.Builder
	began := time.Now()
	for i := 0; i < 200; i++ {
		text.WriteString(chunk)
		m := agent.Message{ID: id, Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: text.String()}}}
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: taskID, Message: m, Format: "claude-code", Version: 1, Now: int64(i + 1)})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(began)
}

// BenchmarkSearchStreamingRewrite is the index's cost on a streaming
// message (each rewrite re-indexes the whole message): the same 200
// rewrites against a database whose triggers were dropped, in the same run.
func BenchmarkSearchStreamingRewrite(b *testing.B) {
	dir := b.TempDir()
	plain, plainTasks, _ := benchDB(b, dir, "plain.db", 1)
	for _, trig := range []string{"message_insert", "message_search_update", "message_search_delete"} {
		if _, err := plain.W.Exec(`DROP TRIGGER ` + trig); err != nil {
			b.Fatal(err)
		}
	}
	var plainTime time.Duration
	for i := range 3 {
		plainTime += streamMessage(b, plain, plainTasks[0], "p"+strconv.Itoa(i))
	}
	plainTime /= 3
	db, tasks, _ := benchDB(b, dir, "indexed.db", 1)
	var indexed time.Duration
	n := 0
	for b.Loop() {
		indexed += streamMessage(b, db, tasks[0], "m"+strconv.Itoa(n))
		n++
	}
	indexed /= time.Duration(n)
	fmt.Printf("streaming rewrite of a message growing to 20 KB in 200 steps: %v plain, %v indexed (%.2fx the plain time; %.1f ms of indexing per rewrite)\n",
		plainTime, indexed, float64(indexed)/float64(plainTime), float64(indexed-plainTime)/float64(time.Millisecond)/200)
}
