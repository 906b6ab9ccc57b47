// Package atomicfile replaces a small private file (state, settings,
// metadata, secrets) so that a reader never sees half of it, whatever
// else writes it at the same time and whatever crash comes in between.
//
// It stands on github.com/google/renameio/v2: the data goes to a temporary
// file of a unique name in the destination's own directory (so the rename
// stays on one file system and two writers of one path never share a
// temporary), is synced to disk, then renamed over the destination. A
// write that fails removes its temporary file and leaves the previous
// content in place.
package atomicfile

import (
	"fmt"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// Private is the mode of every file written here: these files hold
// tokens, passwords or the paths an agent reads, for the user alone.
const Private = 0o600

// Write replaces path with data, mode Private (an existing file's wider
// mode is not kept, as renameio.WriteFile would). The directory must exist.
func Write(path string, data []byte) error {
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)),
		renameio.WithPermissions(Private), renameio.WithStaticPermissions(Private))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Cleanup() // the temporary file, unless renamed
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
