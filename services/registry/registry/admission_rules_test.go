package registry

import (
	"context"
	fcboot "k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// podCreateRules say both phases want pod creates only.
func podCreateRules() admission.Rules {
	r := []admission.Rule{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods"}},
	}}}
	return admission.Rules{Mutating: r, Validating: r}
}

// rulesAdmission is an admission service behind the registry's signed
// identity that publishes rules (or fails to), counts the reviews it
// answers, and refuses pods named "bad".
type rulesAdmission struct {
	srv       *httptest.Server
	rulesDown atomic.Bool
	mu        sync.Mutex
	reviews   []string // path and resource of each review
}

func newRulesAdmission(t *testing.T, pubFile string, rules admission.Rules) *rulesAdmission {
	t.Helper()
	keys, err := identity.LoadPublicKeys(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	v, err := identity.NewVerifier(identity.VerifierConfig{Keys: keys, Issuer: admission.RegistryIssuer, Audience: admission.Audience})
	if err != nil {
		t.Fatal(err)
	}
	s := &rulesAdmission{}
	counted := func(path string, a admission.Admitter) http.Handler {
		return admission.NewAdmissionReviewHandler(admission.AdmitterFunc(func(ctx context.Context, attrs *admission.Attributes) (*admission.Result, error) {
			s.mu.Lock()
			s.reviews = append(s.reviews, path+" "+attrs.Resource.Resource)
			s.mu.Unlock()
			return a.Admit(ctx, attrs)
		}))
	}
	refuseBad := admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
		if a.Resource.Resource == "pods" && a.Operation == admissionv1.Create && a.Name == "bad" {
			return admission.Deny(http.StatusForbidden, "bad pods are refused"), nil
		}
		return admission.Allow(), nil
	})
	rulesHandler := admission.NewRulesHandler(rules)
	mux := http.NewServeMux()
	mux.Handle(admission.MutatingPath, counted("mutating", admission.Mutating(admission.AdmitterFunc(func(context.Context, *admission.Attributes) (*admission.Result, error) {
		return admission.Allow(), nil
	}))))
	mux.Handle(admission.ValidatingPath, counted("validating", refuseBad))
	mux.Handle(admission.RulesPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.rulesDown.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		rulesHandler.ServeHTTP(w, r)
	}))
	s.srv = httptest.NewServer(identity.Require(v)(mux))
	t.Cleanup(s.srv.Close)
	return s
}

// take returns the reviews answered since the last take.
func (s *rulesAdmission) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.reviews
	s.reviews = nil
	return out
}

// startWithRules starts a registry whose remote admission is svc, and
// forgets the reviews of its bootstrap.
func startWithRules(t *testing.T, svc *rulesAdmission, privFile string) kubernetes.Interface {
	t.Helper()
	_, c := startWithAdmission(t, svc.srv.URL, privFile)
	svc.take()
	return c
}

// startWithAdmission starts a registry whose remote admission is at url,
// signing with privFile's key, and waits for its bootstrap, which goes
// through admission: the system namespaces, then kube's default policy.
func startWithAdmission(t *testing.T, url, privFile string) (*Server, kubernetes.Interface) {
	t.Helper()
	key, err := identity.LoadPrivateKey(privFile)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := RemoteAdmission(RemoteAdmissionConfig{URL: url, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(context.Background(), Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: t.TempDir(),
		InsecureAllowUnauthenticated: true, DisableControllers: true, Admission: adm})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL()})
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, ns := range systemNamespaces {
			if _, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
				return false, nil
			}
		}
		// API Priority and Fairness's configuration is written last.
		last := fcboot.SuggestedFlowSchemas[len(fcboot.SuggestedFlowSchemas)-1]
		_, err := c.FlowcontrolV1().FlowSchemas().Get(ctx, last.Name, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the bootstrap never finished: %v", err)
	}
	return srv, c
}

func newPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

func newConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
}

// The registry asks admission only about the writes its rules match, and
// a refusal about one of them still stands.
func TestRemoteAdmissionSkipsUnmatchedWrites(t *testing.T) {
	priv, pub := keyPair(t, t.TempDir(), "registry.key")
	svc := newRulesAdmission(t, pub, podCreateRules())
	c := startWithRules(t, svc, priv)
	ctx := context.Background()

	cm, err := c.CoreV1().ConfigMaps("default").Create(ctx, newConfigMap("c"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"a": "b"}
	if _, err := c.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().ConfigMaps("default").Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := svc.take(); len(got) != 0 {
		t.Fatalf("config map writes were reviewed: %v", got)
	}

	if _, err := c.CoreV1().Pods("default").Create(ctx, newPod("good"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := svc.take(); len(got) != 2 || got[0] != "mutating pods" || got[1] != "validating pods" {
		t.Fatalf("pod create reviews %v, want mutating then validating", got)
	}
	if err := c.CoreV1().Pods("default").Delete(ctx, "good", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := svc.take(); len(got) != 0 {
		t.Fatalf("pod delete was reviewed: %v", got)
	}

	_, err = c.CoreV1().Pods("default").Create(ctx, newPod("bad"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("bad pod: %v, want the admission denial", err)
	}
	if _, err := c.CoreV1().Pods("default").Get(ctx, "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the refused pod was stored: %v", err)
	}
}

// When the rules cannot be read, every write is reviewed: not knowing what
// admission wants never skips it.
func TestRemoteAdmissionReviewsAllWithoutRules(t *testing.T) {
	priv, pub := keyPair(t, t.TempDir(), "registry.key")
	svc := newRulesAdmission(t, pub, podCreateRules())
	svc.rulesDown.Store(true)
	c := startWithRules(t, svc, priv)
	ctx := context.Background()
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, newConfigMap("c"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := svc.take(); len(got) != 2 || got[0] != "mutating configmaps" || got[1] != "validating configmaps" {
		t.Fatalf("config map create reviews %v, want both phases", got)
	}
	if err := c.CoreV1().ConfigMaps("default").Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := svc.take(); len(got) != 2 {
		t.Fatalf("config map delete reviews %v, want both phases", got)
	}
	if _, err := c.CoreV1().Pods("default").Create(ctx, newPod("bad"), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("bad pod: %v, want the admission denial", err)
	}
}

// A rules endpoint the registry may not read (it does not sign for it) is
// the same as none: the signed review paths are still asked.
func TestRemoteAdmissionRulesNeedTheRegistryKey(t *testing.T) {
	dir := t.TempDir()
	priv, _ := keyPair(t, dir, "registry.key")
	_, otherPub := keyPair(t, dir, "other.key")
	svc := newRulesAdmission(t, otherPub, podCreateRules())
	key, err := identity.LoadPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := RemoteAdmission(RemoteAdmissionConfig{URL: svc.srv.URL, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	// Unknown rules, so every write is asked about.
	if r, known := adm.Rules(context.Background()); known {
		t.Fatalf("rules %+v read with another key", r)
	}
	attrs := &admission.Attributes{Operation: admissionv1.Create, Namespace: "default", Name: "c",
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
	// The validating webhook refuses the registry's key too, which is an
	// error rather than a silent allow.
	if res, err := adm.Validating.Admit(context.Background(), attrs); err == nil {
		t.Fatalf("validating stage answered %+v", res)
	}
}
