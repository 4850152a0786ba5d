package framework

import (
	"os"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// CertAuthority signs certificates for a test (see package testpki).
type CertAuthority = testpki.CA

// NewCertAuthority makes a CA named name, valid for an hour.
func NewCertAuthority(t testing.TB, name string) *CertAuthority { return testpki.New(t, name) }

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
