// Package compare runs one prompt on several agents and compares them
// (issue 17): the project's check command run in each task's worktree
// (argv parsed without a shell, its own process group, output kept), and
// the argv parser it uses.
package compare

import (
	"errors"
	"strings"
)

// ErrBadCommand: a check command that cannot be parsed.
var ErrBadCommand = errors.New("bad check command")

// SplitArgs splits a command line into argv the way a POSIX shell splits
// words, without any expansion: whitespace separates, '…' is literal, "…"
// allows \" \\ \$ \` escapes, and a backslash outside quotes escapes the
// next character. Pipes, redirections and variables are not interpreted:
// "make test | tee x" runs make with three more arguments.
func SplitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.Join(ErrBadCommand, errors.New("unterminated ' quote"))
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			end := -1
			for j := i + 1; j < len(s); j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					cur.WriteByte(s[j+1])
					j++
					continue
				}
				if s[j] == '"' {
					end = j
					break
				}
				cur.WriteByte(s[j])
			}
			if end < 0 {
				return nil, errors.Join(ErrBadCommand, errors.New(`unterminated " quote`))
			}
			i = end
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.Join(ErrBadCommand, errors.New("trailing backslash"))
			}
			cur.WriteByte(s[i+1])
			i++
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.Join(ErrBadCommand, errors.New("empty command"))
	}
	return args, nil
}
