package inputerr_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/jean-claude/jean-claude/backend/inputerr"
)

func TestErrorMatchesInvalidAndItsCause(t *testing.T) {
	err := inputerr.New("path", fs.ErrNotExist, "no such file %q", "x")
	var e *inputerr.Error
	if !errors.Is(err, inputerr.ErrInvalid) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) ||
		e.Field != "path" || err.Error() != `no such file "x"` {
		t.Errorf("err = %#v", err)
	}
	if errors.Is(errors.New("other"), inputerr.ErrInvalid) {
		t.Error("a plain error matched ErrInvalid")
	}
}
