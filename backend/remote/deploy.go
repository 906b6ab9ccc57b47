package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrChecksum: the copy on the host does not match the local binary.
var ErrChecksum = errors.New("checksum mismatch")

// Deployed is a binary in the host's per-user cache.
type Deployed struct {
	// Path on the host: ~/.cache/jean-claude/bin/<sha256>.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Copied is false when a verified copy was already there.
	Copied bool `json:"copied"`
}

// cacheScript prints the cache path of $1 and whether a verified copy is
// there ("ok PATH" or "missing PATH"). Fixed text; $1 is a hex digest.
const cacheScript = `d="${XDG_CACHE_HOME:-$HOME/.cache}/jean-claude/bin"
f="$d/$1"
sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
if [ -f "$f" ] && [ -x "$f" ] && [ "$(sum < "$f" | cut -d ' ' -f 1)" = "$1" ]; then echo "ok $f"; else echo "missing $f"; fi`

// uploadScript stores stdin as the cache entry $1, verified: written to a
// temporary name in the same folder, its checksum compared, then renamed.
const uploadScript = `set -e
d="${XDG_CACHE_HOME:-$HOME/.cache}/jean-claude/bin"
sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
umask 077
mkdir -p "$d"
t=$(mktemp "$d/.upload-XXXXXX")
trap 'rm -f "$t"' EXIT
cat > "$t"
s=$(sum < "$t" | cut -d ' ' -f 1)
if [ "$s" != "$1" ]; then echo "got $s" >&2; exit 4; fi
chmod 700 "$t"
mv -f "$t" "$d/$1"
trap - EXIT
echo "$d/$1"`

// Deploy makes sure the host's cache holds the binary at local (built for
// the host's OS/arch), verified by SHA-256, copying it over the connection
// when missing or different. It returns the path to run on the host.
func (c *Client) Deploy(ctx context.Context, local string) (Deployed, error) {
	sum, err := fileSHA256(local)
	if err != nil {
		return Deployed{}, fmt.Errorf("remote: deploy: %w", err)
	}
	out, err := c.Output(ctx, "sh", "-c", cacheScript, "jc", sum)
	if err != nil {
		return Deployed{}, fmt.Errorf("remote: deploy to %s: %w", c.host, err)
	}
	state, path, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if state == "ok" {
		return Deployed{Path: path, SHA256: sum}, nil
	}
	f, err := os.Open(local)
	if err != nil {
		return Deployed{}, fmt.Errorf("remote: deploy: %w", err)
	}
	defer f.Close()
	res, err := c.Run(ctx, f, "sh", "-c", uploadScript, "jc", sum)
	if err != nil {
		return Deployed{}, fmt.Errorf("remote: deploy to %s: %w", c.host, err)
	}
	if res.Code == 4 {
		return Deployed{}, fmt.Errorf("remote: deploy to %s: %w: want %s, %s", c.host, ErrChecksum, sum, firstLine(res.Stderr))
	}
	if res.Code != 0 {
		return Deployed{}, fmt.Errorf("remote: deploy to %s: exit %d: %s", c.host, res.Code, firstLine(res.Stderr))
	}
	return Deployed{Path: strings.TrimSpace(string(res.Stdout)), SHA256: sum, Copied: true}, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

const (
	runtimeGOOS   = runtime.GOOS
	runtimeGOARCH = runtime.GOARCH
)

// ErrNoBinary: no build of the app for the host's OS/arch.
var ErrNoBinary = errors.New("no app binary for the host's OS/arch")

// BinaryFor picks the local file to deploy to a host of goos/goarch (as
// Health reports them): the headless relay <dir>/jean-claude-relay-<goos>-<goarch>
// (`make relay-bins`: no WebKitGTK needed on the host) when it is there,
// else this executable when it matches, otherwise
// <dir>/jean-claude-<goos>-<goarch> (cross builds placed beside it).
func BinaryFor(goos, goarch, self, dir string) (string, error) {
	if p := filepath.Join(dir, "jean-claude-relay-"+goos+"-"+goarch); isFile(p) {
		return p, nil
	}
	if goos == runtimeGOOS && goarch == runtimeGOARCH && self != "" {
		return self, nil
	}
	p := filepath.Join(dir, "jean-claude-"+goos+"-"+goarch)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, nil
	}
	return "", fmt.Errorf("%w: %s/%s (looked for %s)", ErrNoBinary, goos, goarch, p)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
