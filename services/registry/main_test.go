package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// TestRemoteAdmissionKeyFile: the registry's admission key is generated
// once, with its public half beside it as <file>.pub, then reused.
func TestRemoteAdmissionKeyFile(t *testing.T) {
	key := filepath.Join(t.TempDir(), "run", "admission.key")
	if _, err := remoteAdmission(admissionFlags{url: "http://127.0.0.1:1", keyFile: key}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := identity.LoadPublicKeys(key + ".pub"); err != nil {
		t.Fatalf("public key: %v", err)
	}
	first, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := remoteAdmission(admissionFlags{url: "http://127.0.0.1:1", keyFile: key}, nil); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(key); string(again) != string(first) {
		t.Error("the key was replaced on the second start")
	}
	if _, err := remoteAdmission(admissionFlags{url: "http://127.0.0.1:1", keyFile: ""}, nil); err == nil {
		t.Error("--admission-url without a key file was accepted")
	}
	if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := remoteAdmission(admissionFlags{url: "http://127.0.0.1:1", keyFile: key}, nil); err == nil {
		t.Error("a malformed key file was accepted")
	}
}
