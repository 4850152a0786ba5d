package quota

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

const testNS = "team"

// setup builds the plugin on client with a started informer factory; with
// runController the controller runs too, as the lease holder would.
func setup(t *testing.T, client kubernetes.Interface, runController bool) admission.Admitter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(client, 0)
	done := make(chan struct{})
	close(done)
	deps := plugin.Deps{
		Client:    client,
		Informers: factory,
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Run: func(name string, f func(context.Context)) {
			if name != "resourcequota" {
				t.Errorf("controller name %q", name)
			}
			if runController {
				done = make(chan struct{})
				go func() { defer close(done); f(ctx) }()
			}
		},
	}
	a, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		<-done
		factory.Shutdown()
	})
	factory.WaitForCacheSync(ctx.Done())
	return a
}

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// quotaObj is a quota whose status the controller already filled with used.
func quotaObj(name string, hard, used corev1.ResourceList) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, ResourceVersion: "1"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}
	if used != nil {
		q.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	}
	return q
}

func pod(name string, requests corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: requests},
		}}},
	}
}

// kinds are the kinds of the core resources the tests write whole.
var kinds = map[string]string{"pods": "Pod", "services": "Service", "persistentvolumeclaims": "PersistentVolumeClaim"}

// createAttrs are the attributes of creating obj as resource (core group).
func createAttrs(t *testing.T, resourceName string, obj runtime.Object) *admission.Attributes {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	if m, ok := obj.(metav1.Object); ok {
		name = m.GetName()
	}
	return &admission.Attributes{
		Operation: admissionv1.Create,
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: resourceName},
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: kinds[resourceName]},
		Namespace: testNS,
		Name:      name,
		Object:    runtime.RawExtension{Raw: raw},
	}
}

func usedOf(t *testing.T, client kubernetes.Interface, name string) corev1.ResourceList {
	t.Helper()
	q, err := client.CoreV1().ResourceQuotas(testNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return q.Status.Used
}

func mustAdmit(t *testing.T, a admission.Admitter, attrs *admission.Attributes) *admission.Result {
	t.Helper()
	r, err := a.Admit(context.Background(), attrs)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	return r
}

// newClient is a fake clientset whose quota updates behave as the real
// API's do: they compare resourceVersion (409 Conflict on a stale one) and
// bump it, which the plain fake does not.
func newClient(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}
	var mu sync.Mutex
	client.PrependReactor("update", "resourcequotas", func(action k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		q := action.(k8stesting.UpdateAction).GetObject().(*corev1.ResourceQuota).DeepCopy()
		cur, err := client.Tracker().Get(gvr, q.Namespace, q.Name)
		if err != nil {
			return true, nil, err
		}
		curQ := cur.(*corev1.ResourceQuota)
		if q.ResourceVersion != curQ.ResourceVersion {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), q.Name, errors.New("the object has been modified"))
		}
		rv, _ := strconv.Atoi(curQ.ResourceVersion)
		if action.GetSubresource() == "status" {
			curQ.Status = q.Status
		} else {
			curQ.Spec = q.Spec
		}
		curQ.ResourceVersion = strconv.Itoa(rv + 1)
		if err := client.Tracker().Update(gvr, curQ, q.Namespace); err != nil {
			return true, nil, err
		}
		return true, curQ.DeepCopy(), nil
	})
	return client
}
