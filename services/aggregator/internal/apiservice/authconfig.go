package apiservice

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Where kube-apiserver publishes how extension API servers authenticate
// it, and the keys it writes there.
const (
	AuthenticationNamespace = "kube-system"
	AuthenticationConfigMap = "extension-apiserver-authentication"

	keyClientCA             = "client-ca-file"
	keyRequestHeaderCA      = "requestheader-client-ca-file"
	keyAllowedNames         = "requestheader-allowed-names"
	keyUsernameHeaders      = "requestheader-username-headers"
	keyUIDHeaders           = "requestheader-uid-headers"
	keyGroupHeaders         = "requestheader-group-headers"
	keyExtraHeadersPrefixes = "requestheader-extra-headers-prefix"
)

// Authentication is what the aggregator publishes: the CAs extension
// servers trust, and the front-proxy headers it sets (always kube's).
type Authentication struct {
	// ClientCA is the PEM bundle of --client-ca-file, if any: extension
	// servers may accept client certificates it signs.
	ClientCA []byte
	// RequestHeaderCA is the PEM bundle of the CA that signed the proxy
	// client certificate. Required.
	RequestHeaderCA []byte
	// AllowedNames are the common names a proxy client certificate may
	// have; empty allows any the CA signed.
	AllowedNames []string
}

// PublishEvery is how often the ConfigMap is checked again, so that a
// deleted or overwritten one comes back.
const PublishEvery = time.Minute

// PublishAuthentication keeps auth in the
// kube-system/extension-apiserver-authentication ConfigMap until ctx is
// done, retrying while the registry cannot be reached (after retry, then
// twice as long each time, up to ten times retry). CA bundles are
// merged with what is there, as several aggregators with CAs of their own
// may share a registry; expired certificates are dropped. report hears
// the outcome of every attempt: nil once the ConfigMap holds auth.
func PublishAuthentication(ctx context.Context, client kubernetes.Interface, auth Authentication, retry time.Duration, report func(error)) {
	// failing is the last wait after a failure; 0 after a success.
	var wait, failing time.Duration
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		err := publishOnce(ctx, client, auth)
		if err == nil {
			wait, failing = PublishEvery, 0
		} else {
			// retry at first, doubling up to ten times that while it fails
			failing = min(max(retry, 2*failing), 10*retry)
			wait = failing
		}
		report(err)
	}
}

func publishOnce(ctx context.Context, client kubernetes.Interface, auth Authentication) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cms := client.CoreV1().ConfigMaps(AuthenticationNamespace)
	cm, err := cms.Get(ctx, AuthenticationConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: AuthenticationConfigMap, Namespace: AuthenticationNamespace}}
		cm.Data, err = authenticationData(nil, auth)
		if err != nil {
			return err
		}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	data, err := authenticationData(cm.Data, auth)
	if err != nil || maps.Equal(cm.Data, data) {
		return err
	}
	cm.Data = data
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// authenticationData is old with auth merged in.
func authenticationData(old map[string]string, auth Authentication) (map[string]string, error) {
	data := maps.Clone(old)
	if data == nil {
		data = map[string]string{}
	}
	headers := map[string][]string{
		keyUsernameHeaders: {"X-Remote-User"}, keyUIDHeaders: {"X-Remote-Uid"},
		keyGroupHeaders: {"X-Remote-Group"}, keyExtraHeadersPrefixes: {"X-Remote-Extra-"},
		keyAllowedNames: mergeNames(old[keyAllowedNames], auth.AllowedNames),
	}
	for k, v := range headers {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		data[k] = string(b)
	}
	data[keyRequestHeaderCA] = string(mergeBundles([]byte(old[keyRequestHeaderCA]), auth.RequestHeaderCA))
	if len(auth.ClientCA) > 0 {
		data[keyClientCA] = string(mergeBundles([]byte(old[keyClientCA]), auth.ClientCA))
	}
	return data, nil
}

// mergeNames is the union of the JSON list old and ours; an empty list
// allows every name, so it stays empty when either is.
func mergeNames(old string, ours []string) []string {
	var names []string
	if old != "" && json.Unmarshal([]byte(old), &names) != nil {
		names = nil
	}
	if (old != "" && len(names) == 0) || len(ours) == 0 {
		return []string{}
	}
	for _, n := range ours {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// mergeBundles returns the certificates of old that have not expired,
// followed by those of ours it lacks.
func mergeBundles(old, ours []byte) []byte {
	var out bytes.Buffer
	seen := map[string]bool{}
	for _, bundle := range [][]byte{old, ours} {
		for rest := bundle; ; {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			cert, err := x509.ParseCertificate(block.Bytes)
			if block.Type != "CERTIFICATE" || err != nil || time.Now().After(cert.NotAfter) || seen[string(block.Bytes)] {
				continue
			}
			seen[string(block.Bytes)] = true
			_ = pem.Encode(&out, block)
		}
	}
	return out.Bytes()
}

// Check validates the bundle Authentication will publish.
func (a Authentication) Check() error {
	if len(mergeBundles(nil, a.RequestHeaderCA)) == 0 {
		return fmt.Errorf("%w: the requestheader CA holds no valid certificate", ErrInvalidConfig)
	}
	return nil
}
