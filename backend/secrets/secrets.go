// Package secrets keeps credentials out of the database and the logs: it
// recognizes what looks like a secret (by name and by value: URLs with a
// password, known token prefixes) and stores secrets in the OS keyring
// (Secret Service, through github.com/zalando/go-keyring), falling back to
// a file readable only by the user when no keyring runs.
package secrets

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// Service is the keyring service name the app's secrets live under.
const Service = "jean-claude"

// Mask is what a secret value is shown as.
const Mask = "••••••••"

var nameRE = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|_PAT$|^PAT_)`)

// tokenRE matches well-known credential formats: GitHub (ghp_, gho_, ghu_,
// ghs_, ghr_, github_pat_), OpenAI / Anthropic (sk-, sk-ant-), Slack
// (xox?-, xapp-), AWS access keys (AKIA/ASIA), GitLab (glpat-), Google API
// keys (AIza), npm (npm_), Hugging Face (hf_), Stripe (rk_/sk_live_),
// JWTs, PEM private keys.
var tokenRE = regexp.MustCompile(`(^|[^A-Za-z0-9])(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|` +
	`xox[abposr]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,}|(AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|` +
	`npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|[rs]k_live_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.|-----BEGIN [A-Z ]*PRIVATE KEY-----)`)

// NameLooksSecret reports whether an environment variable's name says it
// holds a secret (…KEY, …TOKEN, PASSWORD, …).
func NameLooksSecret(name string) bool { return nameRE.MatchString(name) }

// ValueLooksSecret reports whether a value looks like a credential
// whatever its name: a URL carrying a password (postgres://u:pw@h/db) or a
// known token format.
func ValueLooksSecret(v string) bool {
	if v == "" || v == Mask {
		return false
	}
	if tokenRE.MatchString(v) {
		return true
	}
	if i := strings.Index(v, "://"); i > 0 {
		if u, err := url.Parse(strings.TrimSpace(v)); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				return true
			}
		}
	}
	return false
}

// LooksSecret reports whether name=value should be kept as a secret.
func LooksSecret(name, value string) bool {
	return value != "" && (NameLooksSecret(name) || ValueLooksSecret(value))
}

// Store keeps secrets by name.
type Store interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
	// Where says where secrets are kept, for the user.
	Where() string
}

// ErrNotFound is returned by Get for an unknown name.
var ErrNotFound = errors.New("secrets: not found")

// Keyring is the OS keyring (Secret Service on Linux).
type Keyring struct{}

// Get implements Store.
func (Keyring) Get(name string) (string, error) {
	v, err := keyring.Get(Service, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	return v, err
}

// Set implements Store.
func (Keyring) Set(name, value string) error { return keyring.Set(Service, name, value) }

// Delete implements Store.
func (Keyring) Delete(name string) error {
	if err := keyring.Delete(Service, name); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return err
	}
	return nil
}

// Where implements Store.
func (Keyring) Where() string { return "the system keyring" }

// File keeps secrets in a JSON file of mode 0600 (the fallback).
type File struct {
	Path string
	mu   sync.Mutex
}

func (f *File) load() (map[string]string, error) {
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("secrets: %s: %w", f.Path, err)
	}
	return m, nil
}

func (f *File) save(m map[string]string) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	if err := atomicfile.Write(f.Path, data); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	return nil
}

// Get implements Store.
func (f *File) Get(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

// Set implements Store.
func (f *File) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	m[name] = value
	return f.save(m)
}

// Delete implements Store.
func (f *File) Delete(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return f.save(m)
}

// Where implements Store.
func (f *File) Where() string { return f.Path + " (readable only by you)" }

// Open returns the OS keyring when one answers (a probe secret is written,
// read back and removed), else a File under dataDir. note is empty with a
// keyring and otherwise says, for the user, that no keyring runs and where
// secrets are kept.
func Open(dataDir string, probe Store) (s Store, note string) {
	if probe == nil {
		probe = Keyring{}
	}
	if answers(probe) {
		return probe, ""
	}
	f := &File{Path: filepath.Join(dataDir, "secrets.json")}
	return f, "No system keyring (Secret Service) is running: secrets are kept in " + f.Where() + "."
}

// answerWithin is how long a keyring has to answer the probe.
const answerWithin = 3 * time.Second

// answers tells whether store works: a probe secret written, read back and
// removed within a few seconds (a keyring that waits on a prompt is no
// keyring for a desktop app's startup).
func answers(store Store) bool {
	ok := make(chan bool, 1)
	go func() {
		const name = "probe"
		if err := store.Set(name, "ok"); err != nil {
			ok <- false
			return
		}
		v, err := store.Get(name)
		_ = store.Delete(name)
		ok <- err == nil && v == "ok"
	}()
	select {
	case v := <-ok:
		return v
	case <-time.After(answerWithin):
		return false
	}
}

// Probing is a Store whose backing store is being chosen in the background
// (OpenInBackground): the keyring's probe is a few D-Bus round trips, and
// waits up to answerWithin on a keyring that prompts to be unlocked, which
// must not delay the app's window. Every method waits for the choice.
type Probing struct {
	done  chan struct{}
	store Store
	note  string
}

// OpenInBackground starts choosing the store as Open does and returns at
// once; report, if not nil, is called with the note once it is known
// (only when it is not empty).
func OpenInBackground(dataDir string, probe Store, report func(note string)) *Probing {
	p := &Probing{done: make(chan struct{})}
	go func() {
		p.store, p.note = Open(dataDir, probe)
		close(p.done)
		if p.note != "" && report != nil {
			report(p.note)
		}
	}()
	return p
}

// Chosen returns the store and note once the probe has decided.
func (p *Probing) Chosen() (Store, string) {
	<-p.done
	return p.store, p.note
}

// Note implements Noter.
func (p *Probing) Note() string { _, n := p.Chosen(); return n }

// Get implements Store.
func (p *Probing) Get(name string) (string, error) { s, _ := p.Chosen(); return s.Get(name) }

// Set implements Store.
func (p *Probing) Set(name, value string) error { s, _ := p.Chosen(); return s.Set(name, value) }

// Delete implements Store.
func (p *Probing) Delete(name string) error { s, _ := p.Chosen(); return s.Delete(name) }

// Where implements Store.
func (p *Probing) Where() string { s, _ := p.Chosen(); return s.Where() }

// Noter is a Store that can say, for the user, why secrets are not in the
// system keyring ("" when they are).
type Noter interface {
	Note() string
}
