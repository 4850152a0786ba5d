package admission

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// /readyz fails while any plugin's informer has not listed, and passes
// once it has: the registry trusts a ready service's published rules,
// which before the sync say everything.
func TestNotReadyBeforeSync(t *testing.T) {
	client := fake.NewClientset(cluster()...)
	release := make(chan struct{})
	client.PrependReactor("list", "validatingadmissionpolicies", func(clienttesting.Action) (bool, runtime.Object, error) {
		<-release
		return false, nil, nil // on to the tracker's answer
	})
	cfg := Config{InsecureAllowUnauthenticated: true}
	cfg.Client = client
	s := launch(t, cfg)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})

	// Long enough for the informers to start and every other list to answer.
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if code, body := do(t, http.MethodGet, s.URL()+"/readyz", nil); code == http.StatusOK {
			t.Fatalf("/readyz answered %d %s while a policy list was pending", code, body)
		}
	}
	close(release)
	waitReady(t, s.URL())
}
