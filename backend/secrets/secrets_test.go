package secrets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

func TestLooksSecretByValue(t *testing.T) {
	secret := []string{
		"postgres://u:pw@h/db",
		"mysql://root:hunter2@127.0.0.1:3306/app",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
		"sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"sk-proj-abcdefghijklmnop1234",
		"xoxb-1234567890-abcdefghij",
		"AKIAIOSFODNN7EXAMPLE",
		"glpat-abcdefghijklmnopqrst",
		"token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 here",
	}
	for _, v := range secret {
		if !ValueLooksSecret(v) {
			t.Errorf("%q not recognized as a secret", v)
		}
		if !LooksSecret("SOMETHING", v) {
			t.Errorf("LooksSecret(SOMETHING, %q) = false", v)
		}
	}
	plain := []string{"1", "debug", "http://proxy:3128", "https://user@host/x", "/usr/local/bin", "sk-short", "skip-this-one", "claude-sonnet-4"}
	for _, v := range plain {
		if ValueLooksSecret(v) {
			t.Errorf("%q taken for a secret", v)
		}
	}
	if !LooksSecret("ANTHROPIC_API_KEY", "x") || !LooksSecret("GH_PAT", "abc") || LooksSecret("DEBUG", "1") || LooksSecret("API_KEY", "") {
		t.Error("by name")
	}
}

type broken struct{}

func (broken) Get(string) (string, error) { return "", errors.New("no secret service") }
func (broken) Set(string, string) error {
	return errors.New("The name org.freedesktop.secrets was not provided")
}
func (broken) Delete(string) error { return nil }
func (broken) Where() string       { return "nowhere" }

func TestFileFallbackWhenNoKeyring(t *testing.T) {
	dir := t.TempDir()
	s, note := Open(dir, broken{})
	f, ok := s.(*File)
	if !ok {
		t.Fatalf("store %T, want the file fallback", s)
	}
	if !strings.Contains(note, "No system keyring") || !strings.Contains(note, filepath.Join(dir, "secrets.json")) {
		t.Fatalf("note %q", note)
	}
	if _, err := s.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
	if err := s.Set("a", "ghp_secret"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(f.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v %v, want 0600", st.Mode(), err)
	}
	if v, err := s.Get("a"); err != nil || v != "ghp_secret" {
		t.Fatalf("get %q %v", v, err)
	}
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestKeyringUsedWhenItAnswers(t *testing.T) {
	keyring.MockInit()
	s, note := Open(t.TempDir(), nil)
	if _, ok := s.(Keyring); !ok || note != "" {
		t.Fatalf("store %T note %q", s, note)
	}
	if err := s.Set("x", "v"); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get("x"); err != nil || v != "v" {
		t.Fatalf("%q %v", v, err)
	}
	_ = s.Delete("x")
	if _, err := s.Get("x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

// slowKeyring answers its probe only once released, as a keyring that
// prompts to be unlocked does.
type slowKeyring struct {
	started chan struct{}
	release chan struct{}
	m       map[string]string
}

func (k *slowKeyring) Set(n, v string) error {
	select {
	case k.started <- struct{}{}:
	default:
	}
	<-k.release
	k.m[n] = v
	return nil
}
func (k *slowKeyring) Get(n string) (string, error) {
	v, ok := k.m[n]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}
func (k *slowKeyring) Delete(n string) error { delete(k.m, n); return nil }
func (k *slowKeyring) Where() string         { return "slow" }

func TestOpenInBackgroundReturnsBeforeTheKeyringAnswers(t *testing.T) {
	k := &slowKeyring{started: make(chan struct{}, 1), release: make(chan struct{}), m: map[string]string{}}
	p := OpenInBackground(t.TempDir(), k, func(n string) { t.Errorf("note %q with a keyring", n) })
	<-k.started // the probe is under way, and OpenInBackground has returned
	select {
	case <-p.done:
		t.Fatal("chosen before the keyring answered")
	default:
	}
	close(k.release)
	if err := p.Set("x", "v"); err != nil { // waits for the choice
		t.Fatal(err)
	}
	if s, note := p.Chosen(); s != Store(k) || note != "" || p.Where() != "slow" {
		t.Fatalf("chose %T %q", s, note)
	}
	if v, err := k.Get("x"); err != nil || v != "v" {
		t.Fatalf("the secret is not in the keyring: %q %v", v, err)
	}
}

func TestOpenInBackgroundReportsTheFallback(t *testing.T) {
	dir := t.TempDir()
	got := make(chan string, 1)
	p := OpenInBackground(dir, broken{}, func(n string) { got <- n })
	if err := p.Set("a", "ghp_secret"); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.store.(*File); !ok {
		t.Fatalf("store %T, want the file fallback", p.store)
	}
	note := <-got
	if !strings.Contains(note, "No system keyring") || p.Note() != note {
		t.Fatalf("note %q, Note %q", note, p.Note())
	}
}
