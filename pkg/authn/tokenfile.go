package authn

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// tokenFile authenticates the static tokens of a kube-apiserver
// --token-auth-file. Tokens are kept only as SHA-256 digests and looked up
// by digest, so the lookup time says nothing about how much of a guessed
// token matched, and the plain tokens do not stay in memory.
type tokenFile struct {
	users map[[sha256.Size]byte]authenticationv1.UserInfo
}

// NewTokenFile reads a static token file in kube-apiserver's CSV format, one
// token a line:
//
//	token,user,uid,"group1,group2"
//
// The groups column is optional; blank lines and lines starting with # are
// skipped. Unlike kube-apiserver, which warns and keeps the last, it refuses
// a file with an empty or duplicate token, an empty user, or more than four
// columns (usually unquoted groups, which kube would silently truncate),
// because a start-up error is cheaper than a surprise about who is who.
func NewTokenFile(path string) (Authenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidTokenFile, err)
	}
	defer f.Close()
	return parseTokenFile(f, path)
}

// parseTokenFile reads the records of a token file; name is only for errors.
// Errors name the line, never the token.
func parseTokenFile(r io.Reader, name string) (*tokenFile, error) {
	reader := csv.NewReader(r)
	reader.Comment = '#'
	reader.FieldsPerRecord = -1
	reader.TrimLeadingSpace = true
	tf := &tokenFile{users: map[[sha256.Size]byte]authenticationv1.UserInfo{}}
	firstLine := map[[sha256.Size]byte]int{}
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return tf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidTokenFile, name, err)
		}
		line, _ := reader.FieldPos(0)
		token, u, err := parseTokenRecord(record)
		if err != nil {
			return nil, fmt.Errorf("%w: %s line %d: %w", ErrInvalidTokenFile, name, line, err)
		}
		key := sha256.Sum256([]byte(token))
		if prev, dup := firstLine[key]; dup {
			return nil, fmt.Errorf("%w: %s line %d: duplicate token, first on line %d", ErrInvalidTokenFile, name, line, prev)
		}
		firstLine[key] = line
		tf.users[key] = u
	}
}

// parseTokenRecord checks one record and returns its token and user.
func parseTokenRecord(record []string) (string, authenticationv1.UserInfo, error) {
	switch {
	case len(record) < 3:
		return "", authenticationv1.UserInfo{}, fmt.Errorf("want at least 3 columns (token, user, uid), found %d", len(record))
	case len(record) > 4:
		return "", authenticationv1.UserInfo{}, fmt.Errorf("want at most 4 columns, found %d (quote the groups column: \"g1,g2\")", len(record))
	case strings.TrimSpace(record[0]) == "":
		return "", authenticationv1.UserInfo{}, errors.New("empty token")
	case strings.TrimSpace(record[1]) == "":
		return "", authenticationv1.UserInfo{}, errors.New("empty user name")
	}
	// Spaces around a field are layout, not part of a name.
	u := authenticationv1.UserInfo{Username: strings.TrimSpace(record[1]), UID: strings.TrimSpace(record[2])}
	if len(record) == 4 {
		u.Groups = splitGroups(record[3])
	}
	return strings.TrimSpace(record[0]), u, nil
}

// splitGroups splits the groups column, dropping blanks so that "a, b," is
// the groups a and b.
func splitGroups(s string) []string {
	var groups []string
	for g := range strings.SplitSeq(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	return groups
}

// AuthenticateToken recognises exactly the tokens of the file.
func (tf *tokenFile) AuthenticateToken(_ context.Context, token string) (*Response, bool, error) {
	if token == "" {
		return nil, false, nil
	}
	u, ok := tf.users[sha256.Sum256([]byte(token))]
	if !ok {
		return nil, false, nil
	}
	// A copy, so that a caller appending to Groups cannot change the file's user.
	return cloneResponse(&Response{User: u}), true, nil
}
