package remote

import (
	"context"
	"errors"
	"io"
	"strings"
)

// Causes of a lost or failed connection, in the user's words (Cause).
const (
	CauseSSHNotFound  = "ssh not found on this computer"
	CauseAuth         = "authentication failed"
	CauseHostKey      = "the host's key is not trusted (known_hosts)"
	CauseUnknownHost  = "host name not found"
	CauseRefused      = "connection refused (no SSH server answering)"
	CauseNotReachable = "host not reachable"
	CauseLost         = "connection lost"
	CauseSlow         = "the host did not answer in time"
	CauseOther        = "connection failed"
)

// causes maps what ssh (or the broken channel) says to the user's words,
// first match wins. ssh's messages are matched case-insensitively.
var causes = []struct {
	words string
	says  []string
}{
	// The master connection this command went through is gone (its socket
	// is left): the connection was lost, whatever the socket's errno says.
	{CauseLost, []string{"control socket connect", "mux_client_"}},
	{CauseHostKey, []string{"host key verification failed", "remote host identification has changed"}},
	{CauseAuth, []string{"permission denied (", "too many authentication failures", "no supported authentication", "authentication failed"}},
	{CauseUnknownHost, []string{"could not resolve hostname", "name or service not known", "nodename nor servname", "temporary failure in name resolution"}},
	{CauseRefused, []string{"connection refused"}},
	{CauseNotReachable, []string{"timed out", "no route to host", "network is unreachable", "host is down", "host is unreachable"}},
	{CauseLost, []string{"eof", "broken pipe", "connection reset", "closed by remote host", "connection closed",
		"not connected to the relay", "file already closed", "signal: killed"}},
}

// Cause says in a few words why a host could not be used: ssh missing,
// authentication, host key, name, refused, not reachable, or a dropped
// connection (often a bare EOF). "" for nil.
func Cause(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, ErrSSHNotFound) {
		return CauseSSHNotFound
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return CauseLost
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return CauseSlow
	}
	msg := strings.ToLower(err.Error())
	for _, c := range causes {
		for _, s := range c.says {
			if strings.Contains(msg, s) {
				return c.words
			}
		}
	}
	if errors.Is(err, ErrUnreachable) {
		return CauseNotReachable
	}
	return CauseOther
}

// Explained is an error told in the user's words (Error) with the raw
// error kept for whoever wants the details (Detail, Unwrap).
type Explained struct {
	Words string
	Err   error
}

func (e *Explained) Error() string { return e.Words }

// Detail is the raw error.
func (e *Explained) Detail() string { return e.Err.Error() }

func (e *Explained) Unwrap() error { return e.Err }

// Explain wraps err with its Cause (nil stays nil; an Explained is kept).
func Explain(err error) error {
	var ex *Explained
	if err == nil || errors.As(err, &ex) {
		return err
	}
	return &Explained{Words: Cause(err), Err: err}
}
