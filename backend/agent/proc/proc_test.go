package proc

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTailKeepsTheEnd(t *testing.T) {
	tl := NewTail(10)
	for i := 0; i < 5; i++ {
		fmt.Fprintf(tl, "line%d\n", i)
	}
	if got := tl.String(); got != "ne3\nline4" {
		t.Fatalf("String() = %q, want the last 10 bytes trimmed", got)
	}
	tl = NewTail(3)
	tl.Write([]byte("aé")) // 3 bytes: a + 2-byte é
	tl.Write([]byte("x"))  // keeps the second byte of é + x
	if got := tl.String(); !utf8.ValidString(got) || !strings.HasSuffix(got, "x") {
		t.Fatalf("String() = %q, want valid UTF-8 ending in x", got)
	}
}

func TestKillGroupEndsChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the children start
	if err := KillGroup(cmd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-cmd.Process.Pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the process group outlived KillGroup")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := KillGroup(cmd, syscall.SIGTERM); err != nil {
		t.Fatalf("a gone group: %v, want nil", err)
	}
	if err := KillGroup(nil, syscall.SIGTERM); err != nil {
		t.Fatalf("nil cmd: %v", err)
	}
}
