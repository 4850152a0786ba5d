package apiservice

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// TestPublishAuthentication: the ConfigMap extension servers read is
// created with kube-apiserver's keys, merged with another aggregator's CA
// rather than overwriting it, and not rewritten when nothing changed.
func TestPublishAuthentication(t *testing.T) {
	ctx := context.Background()
	ours, theirs := testpki.New(t, "ours"), testpki.New(t, "theirs")
	client := kubefake.NewSimpleClientset()
	auth := Authentication{RequestHeaderCA: ours.PEM(), AllowedNames: []string{"front-proxy-client"}}
	if err := auth.Check(); err != nil {
		t.Fatal(err)
	}
	if err := publishOnce(ctx, client, auth); err != nil {
		t.Fatal(err)
	}
	cm := getAuthConfigMap(t, client)
	for key, want := range map[string]string{
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-client-ca-file":       string(ours.PEM()),
	} {
		if cm.Data[key] != want {
			t.Errorf("%s = %q, want %q", key, cm.Data[key], want)
		}
	}
	if _, ok := cm.Data["client-ca-file"]; ok {
		t.Error("client-ca-file published without a client CA")
	}

	// Another aggregator with a CA and a name of its own publishes too.
	other := Authentication{RequestHeaderCA: theirs.PEM(), AllowedNames: []string{"other-proxy"}}
	if err := publishOnce(ctx, client, other); err != nil {
		t.Fatal(err)
	}
	cm = getAuthConfigMap(t, client)
	if got := certCount(cm.Data["requestheader-client-ca-file"]); got != 2 {
		t.Errorf("requestheader-client-ca-file holds %d certificates, want both aggregators' CAs", got)
	}
	var names []string
	_ = json.Unmarshal([]byte(cm.Data["requestheader-allowed-names"]), &names)
	if !slices.Equal(names, []string{"front-proxy-client", "other-proxy"}) {
		t.Errorf("allowed names = %v, want both", names)
	}

	before := len(client.Actions())
	if err := publishOnce(ctx, client, other); err != nil {
		t.Fatal(err)
	}
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() != "get" {
			t.Errorf("an unchanged ConfigMap was written: %s", a.GetVerb())
		}
	}
}

func TestAuthenticationCheckRefusesAnEmptyCA(t *testing.T) {
	if err := (Authentication{RequestHeaderCA: []byte("garbage")}).Check(); err == nil {
		t.Error("a requestheader CA with no certificate was accepted")
	}
}

func getAuthConfigMap(t *testing.T, client *kubefake.Clientset) *corev1.ConfigMap {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(AuthenticationNamespace).Get(context.Background(), AuthenticationConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func certCount(bundle string) int {
	n := 0
	for rest := []byte(bundle); ; n++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return n
		}
	}
}
