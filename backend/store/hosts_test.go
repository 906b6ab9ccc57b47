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
	if _, err := store.AddHost(ctx, db.W, "build"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.AddHost(ctx, db.W, "build"); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("second add: %v", err)
	}
	if err := store.SaveHostHealth(ctx, db.W, "from-config", `{"reachable":true}`); err != nil {
		t.Fatal(err)
	}
	list, err := store.ListHosts(ctx, db.R)
	if err != nil || len(list) != 2 || list[1].LastHealth != `{"reachable":true}` {
		t.Fatalf("list = %+v, %v", list, err)
	}
	p, err := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/remote/p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.GetProjectHost(ctx, db.R, p.ID); ok {
		t.Fatal("new project is remote")
	}
	if err := store.SetProjectHost(ctx, db.W, p.ID, "build", "/srv/p"); err != nil {
		t.Fatal(err)
	}
	ph, ok, err := store.GetProjectHost(ctx, db.R, p.ID)
	if err != nil || !ok || ph.Host != "build" || ph.Path != "/srv/p" {
		t.Fatalf("project host = %+v %v %v", ph, ok, err)
	}
	if err := store.SetProjectHost(ctx, db.W, p.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.GetProjectHost(ctx, db.R, p.ID); ok {
		t.Fatal("still remote")
	}
	if err := store.RemoveHost(ctx, db.W, "build"); err != nil {
		t.Fatal(err)
	}
}
