package instance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHelperSecondLaunch(t *testing.T) {
	db := os.Getenv("INSTANCE_TEST_DB")
	if db == "" {
		t.Skip("helper")
	}
	_, err := Acquire(db)
	if !errors.Is(err, ErrRunning) {
		os.Stdout.WriteString("GOT-LOCK\n")
		return
	}
	if err := BringForward(db); err != nil {
		os.Stdout.WriteString("NO-ANSWER " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("BROUGHT-FORWARD\n")
}

func TestSecondLaunchBringsTheFirstForward(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "jc.db")
	l, err := Acquire(db)
	if err != nil {
		t.Fatal(err)
	}
	var shown atomic.Int32
	l.Serve(func() { shown.Add(1) })
	// Another process with the same profile: refused, and the first is asked to show.
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperSecondLaunch$", "-test.v")
	cmd.Env = append(os.Environ(), "INSTANCE_TEST_DB="+db)
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "BROUGHT-FORWARD") {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	if shown.Load() != 1 {
		t.Fatalf("show called %d times", shown.Load())
	}
	// In-process too (a new descriptor conflicts with the held one).
	if _, err := Acquire(db); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Acquire: %v", err)
	}
	// Nothing but the lock file was created next to the database.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "jc.db.lock" {
		t.Fatalf("files: %v", entries)
	}
	// Another profile is independent.
	other, err := Acquire(filepath.Join(dir, "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	// Released on Close: the next launch gets it.
	l.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l2, err := Acquire(db)
		if err == nil {
			l2.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Close: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd = exec.Command(os.Args[0], "-test.run", "^TestHelperSecondLaunch$", "-test.v")
	cmd.Env = append(os.Environ(), "INSTANCE_TEST_DB="+db)
	if out, _ := cmd.Output(); !strings.Contains(string(out), "GOT-LOCK") {
		t.Fatalf("launch after the first exited: %s", out)
	}
}
