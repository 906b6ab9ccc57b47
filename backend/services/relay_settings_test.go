package services

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

func TestTaskLifetimeSettings(t *testing.T) {
	f := newFixture(t)
	got, err := f.settings.GetTaskLifetime()
	if err != nil || got != (TaskLifetime{KeepRunning: true, OnQuit: "stop"}) {
		t.Fatalf("defaults %+v %v", got, err)
	}
	if err := f.settings.SetTaskLifetime(TaskLifetime{KeepRunning: false, OnQuit: "stop"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.settings.GetTaskLifetime(); got.KeepRunning {
		t.Fatalf("turned off, read back %+v", got)
	}
	if v, _, _ := store.SettingValue(context.Background(), f.settings.db.R, store.SettingRelays); v != "off" {
		t.Fatalf("turned off, stored relays=%q", v)
	}
	if err := f.settings.SetTaskLifetime(TaskLifetime{KeepRunning: true, OnQuit: "ask"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.settings.GetTaskLifetime(); got != (TaskLifetime{KeepRunning: true, OnQuit: "ask"}) {
		t.Fatalf("saved %+v", got)
	}
	// The keys the app reads at start and at quit.
	v, _, _ := store.SettingValue(context.Background(), f.settings.db.R, store.SettingRelays)
	q, _, _ := store.SettingValue(context.Background(), f.settings.db.R, store.SettingQuitRunning)
	if v != "on" || q != "ask" {
		t.Fatalf("stored relays=%q quitRunningTasks=%q", v, q)
	}
	if err := f.settings.SetTaskLifetime(TaskLifetime{OnQuit: "maybe"}); err == nil {
		t.Fatal("an unknown quit choice was saved")
	}
}
