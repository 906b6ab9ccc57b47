// Package instance keeps one app instance per profile (database): the
// first launch holds an exclusive lock next to the database and listens
// on a local socket; a second launch finds the lock taken, asks the first
// to bring its window forward, and exits before it opens the database, so
// it changes nothing there (no migration, no recovery of the first one's
// running tasks).
//
// Wails v2.15's options.SingleInstanceLock was considered and not used:
// on Linux it runs OnStartup (our task recovery) before its D-Bus check,
// exits with status 1, needs a session bus, and is off in dev mode.
package instance

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrRunning: another instance holds the profile.
var ErrRunning = errors.New("instance: another Jean-Claude is running with this profile")

// Lock is the held profile lock.
type Lock struct {
	f    *os.File
	ln   net.Listener
	once sync.Once
}

// LockPath is the lock file of the profile whose database is dbPath.
func LockPath(dbPath string) string { return dbPath + ".lock" }

// socketName is the abstract Unix socket of the profile (no file, no
// path length limit).
func socketName(dbPath string) string {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		abs = dbPath
	}
	sum := sha256.Sum256([]byte(abs))
	return "@jean-claude-" + hex.EncodeToString(sum[:12])
}

// Acquire takes the profile's lock, or returns ErrRunning when another
// process holds it.
func Acquire(dbPath string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	f, err := os.OpenFile(LockPath(dbPath), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("instance: lock %s: %w", LockPath(dbPath), err)
	}
	_ = f.Truncate(0)
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	l := &Lock{f: f}
	ln, err := net.Listen("unix", socketName(dbPath))
	if err == nil {
		l.ln = ln
	}
	return l, nil
}

// Serve calls show for every later launch of the same profile (until
// Close). It returns at once.
func (l *Lock) Serve(show func()) {
	if l.ln == nil {
		return
	}
	go func() {
		for {
			c, err := l.ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			if strings.TrimSpace(line) == "show" {
				show()
				_, _ = c.Write([]byte("ok\n"))
			}
			c.Close()
		}
	}()
}

// Close releases the lock.
func (l *Lock) Close() error {
	var err error
	l.once.Do(func() {
		if l.ln != nil {
			l.ln.Close()
		}
		err = l.f.Close() // closing the descriptor drops the flock
	})
	return err
}

// BringForward asks the instance holding dbPath's profile to show its
// window; it reports whether that instance answered.
func BringForward(dbPath string) error {
	c, err := net.DialTimeout("unix", socketName(dbPath), 2*time.Second)
	if err != nil {
		return fmt.Errorf("instance: the running instance does not answer: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte("show\n")); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ok" {
		return fmt.Errorf("instance: no answer from the running instance: %v", err)
	}
	return nil
}
