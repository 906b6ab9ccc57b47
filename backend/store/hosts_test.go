package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jean-claude/jean-claude/backend/store"
)

func TestHosts(t *testing.T) {
	db, _ := openTemp(t)
	ctx := context.Background()
	h := store.NewHosts(db)
	if _, err := h.Add(ctx, "build"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Add(ctx, "build"); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("second add: %v", err)
	}
	if err := h.SaveHealth(ctx, "from-config", `{"reachable":true}`); err != nil {
		t.Fatal(err)
	}
	list, err := h.List(ctx)
	if err != nil || len(list) != 2 || list[1].LastHealth != `{"reachable":true}` {
		t.Fatalf("list = %+v, %v", list, err)
	}
	p, err := store.NewProjects(db).Add(ctx, store.NewProject{Name: "p", Path: "/remote/p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := h.ProjectHost(ctx, p.ID); ok {
		t.Fatal("new project is remote")
	}
	if err := h.SetProjectHost(ctx, p.ID, "build", "/srv/p"); err != nil {
		t.Fatal(err)
	}
	ph, ok, err := h.ProjectHost(ctx, p.ID)
	if err != nil || !ok || ph.Host != "build" || ph.Path != "/srv/p" {
		t.Fatalf("project host = %+v %v %v", ph, ok, err)
	}
	if err := h.SetProjectHost(ctx, p.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := h.ProjectHost(ctx, p.ID); ok {
		t.Fatal("still remote")
	}
	if err := h.Remove(ctx, "build"); err != nil {
		t.Fatal(err)
	}
}
