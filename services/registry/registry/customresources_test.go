package registry

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wd], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [replicas]
            x-kubernetes-validations:
            - {rule: "self.replicas <= self.maxReplicas", message: "replicas must not exceed maxReplicas"}
            properties:
              replicas: {type: integer, minimum: 0}
              maxReplicas: {type: integer, default: 10}
              color: {type: string, enum: [red, blue]}
          status:
            type: object
            properties:
              replicas: {type: integer}
              ready: {type: boolean}
    selectableFields: [{jsonPath: .spec.color}]
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Color, type: string, jsonPath: .spec.color}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
`

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

var crds = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// startWithControllers starts a registry running its controllers, and
// returns a config that reaches it.
func startWithControllers(t *testing.T) *rest.Config {
	t.Helper()
	srv, err := Start(context.Background(), Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: t.TempDir(),
		InsecureAllowUnauthenticated: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL()}
}

// startWithWidgets starts a registry running its controllers with
// widgetCRD established, and returns a config and a client that reach it.
func startWithWidgets(t *testing.T) (*rest.Config, dynamic.Interface) {
	t.Helper()
	cfg := startWithControllers(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	installCRD(t, cfg, dyn, widgetCRD)
	return cfg, dyn
}

// getCRD reads the named CRD, typed.
func getCRD(ctx context.Context, dyn dynamic.Interface, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	u, err := dyn.Resource(crds).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	typed := &apiextensionsv1.CustomResourceDefinition{}
	return typed, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed)
}

// condition is crd's condition of type typ; the zero condition when it
// has none.
func condition(crd *apiextensionsv1.CustomResourceDefinition, typ apiextensionsv1.CustomResourceDefinitionConditionType) apiextensionsv1.CustomResourceDefinitionCondition {
	for _, c := range crd.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return apiextensionsv1.CustomResourceDefinitionCondition{}
}

func widget(name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}}
	return u
}

// installCRD creates the CRD and waits until it is established and served.
func installCRD(t *testing.T, cfg *rest.Config, dyn dynamic.Interface, manifest string) *unstructured.Unstructured {
	t.Helper()
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &crd.Object); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := dyn.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	disc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	start := time.Now()
	polltest.Until(t, 5*time.Second, "CRD established and in discovery", func() bool {
		typed, err := getCRD(ctx, dyn, crd.GetName())
		if err != nil || condition(typed, apiextensionsv1.Established).Status != apiextensionsv1.ConditionTrue {
			return false
		}
		list, err := disc.ServerResourcesForGroupVersion(typed.Spec.Group + "/" + typed.Spec.Versions[0].Name)
		return err == nil && len(list.APIResources) > 0
	})
	t.Logf("established and discoverable after %v", time.Since(start))
	return crd
}

func TestCustomResources(t *testing.T) {
	cfg, dyn := startWithWidgets(t)
	ctx := context.Background()
	res := dyn.Resource(widgets).Namespace("default")

	// Its schema is published for kubectl explain.
	disc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	polltest.Until(t, 5*time.Second, "the OpenAPI v3 document of example.com/v1", func() bool {
		body, err := disc.RESTClient().Get().AbsPath("/openapi/v3/apis/example.com/v1").DoRaw(ctx)
		return err == nil && strings.Contains(string(body), "com.example.v1.Widget") && strings.Contains(string(body), "maxReplicas")
	})

	// Valid: defaulted from the schema, unknown fields pruned.
	created, err := res.Create(ctx, widget("a", map[string]any{"replicas": int64(2), "color": "red", "bogus": true}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(created.Object, "spec")
	if spec["maxReplicas"] != int64(10) || spec["bogus"] != nil {
		t.Errorf("created spec %v: want maxReplicas defaulted and bogus pruned", spec)
	}

	// Selectors, pages, server-side apply and dry runs, as for any kind.
	for _, name := range []string{"b", "c"} {
		w := widget(name, map[string]any{"replicas": int64(1), "color": "blue"})
		w.SetLabels(map[string]string{"tier": "x"})
		if _, err := res.Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for sel, want := range map[string]int{"tier=x": 2, "tier!=x": 1} {
		if l, err := res.List(ctx, metav1.ListOptions{LabelSelector: sel}); err != nil || len(l.Items) != want {
			t.Errorf("labelSelector %s: %v, %d items, want %d", sel, err, len(l.Items), want)
		}
	}
	if l, err := res.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"}); err != nil || len(l.Items) != 1 || l.Items[0].GetName() != "a" {
		t.Errorf("fieldSelector spec.color=red: %v, %v", err, l)
	}
	page, err := res.List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil || len(page.Items) != 2 || page.GetContinue() == "" {
		t.Fatalf("first page: %v, %v", err, page)
	}
	if rest, err := res.List(ctx, metav1.ListOptions{Limit: 2, Continue: page.GetContinue()}); err != nil || len(rest.Items) != 1 {
		t.Errorf("second page: %v, %v", err, rest)
	}
	if _, err := res.Create(ctx, widget("dry", map[string]any{"replicas": int64(1)}), metav1.CreateOptions{DryRun: []string{"All"}}); err != nil {
		t.Errorf("dry run: %v", err)
	}
	if _, err := res.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dry run stored its object: %v", err)
	}
	applied, err := res.Apply(ctx, "ssa", widget("ssa", map[string]any{"replicas": int64(3)}), metav1.ApplyOptions{FieldManager: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(applied.Object, "spec", "replicas"); r != 3 || len(applied.GetManagedFields()) == 0 {
		t.Errorf("applied: replicas %d, managedFields %v", r, applied.GetManagedFields())
	}
	if _, err := res.Apply(ctx, "ssa", widget("ssa", map[string]any{"replicas": int64(4)}), metav1.ApplyOptions{FieldManager: "other"}); !apierrors.IsConflict(err) {
		t.Errorf("apply over another manager's field: %v, want a conflict", err)
	}

	// Invalid: 422 naming the field; nothing stored.
	for name, spec := range map[string]map[string]any{
		"enum": {"replicas": int64(1), "color": "green"},
		"min":  {"replicas": int64(-1)},
		"cel":  {"replicas": int64(20), "maxReplicas": int64(5)},
	} {
		_, err := res.Create(ctx, widget("bad-"+name, spec), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want Invalid", name, err)
		}
		if _, err := res.Get(ctx, "bad-"+name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: the invalid object was stored: %v", name, err)
		}
	}
	_, err = res.Create(ctx, widget("bad-cel", map[string]any{"replicas": int64(20), "maxReplicas": int64(5)}), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "spec: Invalid value: replicas must not exceed maxReplicas") {
		t.Errorf("CEL failure: %v", err)
	}

	// Strict field validation refuses unknown fields.
	_, err = res.Create(ctx, widget("strict", map[string]any{"replicas": int64(1), "bogus": 1}), metav1.CreateOptions{FieldValidation: "Strict"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `unknown field "spec.bogus"`) {
		t.Errorf("strict: %v", err)
	}

	// Merge patch works; strategic merge patch is 415 for custom resources.
	if _, err := res.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = res.Patch(ctx, "a", types.StrategicMergePatchType, []byte(`{"spec":{"color":"red"}}`), metav1.PatchOptions{})
	if se, ok := err.(apierrors.APIStatus); !ok || se.Status().Code != 415 {
		t.Errorf("strategic merge patch: %v, want 415", err)
	}

	// Status only through its subresource.
	cur, _ := res.Get(ctx, "a", metav1.GetOptions{})
	_ = unstructured.SetNestedField(cur.Object, int64(2), "status", "replicas")
	if _, err := res.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, _ = res.Get(ctx, "a", metav1.GetOptions{})
	if r, _, _ := unstructured.NestedInt64(cur.Object, "status", "replicas"); r != 2 {
		t.Errorf("status.replicas %d after the status update", r)
	}

	// Scale.
	scale, err := res.Get(ctx, "a", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(scale.Object, int64(4), "spec", "replicas")
	if _, err := res.Update(ctx, scale, metav1.UpdateOptions{}, "scale"); err != nil {
		t.Fatal(err)
	}
	cur, _ = res.Get(ctx, "a", metav1.GetOptions{})
	if r, _, _ := unstructured.NestedInt64(cur.Object, "spec", "replicas"); r != 4 {
		t.Errorf("spec.replicas %d after scaling to 4", r)
	}

	// Deleting the CRD deletes its objects, then itself.
	crdRes := dyn.Resource(crds)
	if err := crdRes.Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "CRD and its objects gone", func() bool {
		_, err := crdRes.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := res.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("widgets still served after the CRD went: %v", err)
	}
	// Defined again, the kind starts empty: the objects were deleted, not
	// just hidden.
	installCRD(t, cfg, dyn, widgetCRD)
	list, err := res.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("after redefining: %v, %d objects left", err, len(list.Items))
	}
}

const gadgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1alpha1
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

// TestCustomResourceVersions serves a CRD at two versions without
// conversion: an object written at one is read at either, with its
// apiVersion rewritten, and a version not served is not there.
func TestCustomResourceVersions(t *testing.T) {
	cfg := startWithControllers(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	installCRD(t, cfg, dyn, gadgetCRD)
	v1beta1 := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "gadgets"})
	v1 := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"})
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1beta1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g"}, "spec": map[string]any{"x": "y"}}}
	created, err := v1beta1.Create(ctx, g, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetAPIVersion() != "example.com/v1beta1" {
		t.Errorf("created as %s", created.GetAPIVersion())
	}
	got, err := v1.Get(ctx, "g", metav1.GetOptions{})
	if err != nil || got.GetAPIVersion() != "example.com/v1" || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Fatalf("read at v1: %v, %v", err, got)
	}
	list, err := v1beta1.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetAPIVersion() != "example.com/v1beta1" {
		t.Fatalf("list at v1beta1: %v, %+v", err, list)
	}
	// An update at v1 is seen at v1beta1.
	_ = unstructured.SetNestedField(got.Object, "z", "spec", "x")
	if _, err := v1.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := v1beta1.Get(ctx, "g", metav1.GetOptions{})
	if x, _, _ := unstructured.NestedString(back.Object, "spec", "x"); err != nil || x != "z" || back.GetAPIVersion() != "example.com/v1beta1" {
		t.Errorf("read back at v1beta1: %v, %v", err, back)
	}
	alpha := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1alpha1", Resource: "gadgets"})
	if _, err := alpha.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a version not served answered: %v", err)
	}
	// Discovery prefers v1.
	groups, err := discovery.NewDiscoveryClientForConfigOrDie(cfg).ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	for _, grp := range groups.Groups {
		if grp.Name == "example.com" && (grp.PreferredVersion.Version != "v1" || len(grp.Versions) != 2) {
			t.Errorf("discovery of example.com: %+v", grp)
		}
	}
}

// TestCustomResourceNameConflict defines a kind another CRD of the group
// already holds: its names are not accepted, it is not established, and
// nothing of it is served, as kube's naming controller decides.
func TestCustomResourceNameConflict(t *testing.T) {
	_, dyn := startWithWidgets(t)
	ctx := context.Background()
	clash := strings.NewReplacer("widgets.example.com", "sprockets.example.com", "plural: widgets", "plural: sprockets",
		"singular: widget", "singular: sprocket", "shortNames: [wd]", "shortNames: [sp]").Replace(widgetCRD)
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(clash), &crd.Object); err != nil {
		t.Fatal(err)
	}
	crdRes := dyn.Resource(crds)
	if _, err := crdRes.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cond apiextensionsv1.CustomResourceDefinitionCondition
	polltest.Until(t, 5*time.Second, "NamesAccepted False", func() bool {
		typed, err := getCRD(ctx, dyn, "sprockets.example.com")
		if err != nil {
			return false
		}
		cond = condition(typed, apiextensionsv1.NamesAccepted)
		return cond.Status == apiextensionsv1.ConditionFalse
	})
	// Kind and listKind both clash; like kube, the last check names it.
	if cond.Reason != "ListKindConflict" || cond.Message != `"WidgetList" is already in use` {
		t.Errorf("NamesAccepted: %+v", cond)
	}
	sprockets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "sprockets"}
	if _, err := dyn.Resource(sprockets).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a CRD whose names were refused is served: %v", err)
	}
}

// TestCustomResourceDefinitionTerminating deletes a CRD whose object a
// finalizer holds: the CRD stays Terminating, refusing creates with 405,
// until the object is gone, then goes.
func TestCustomResourceDefinitionTerminating(t *testing.T) {
	_, dyn := startWithWidgets(t)
	ctx := context.Background()
	res := dyn.Resource(widgets).Namespace("default")
	held := widget("held", map[string]any{"replicas": int64(1)})
	held.SetFinalizers([]string{"example.com/hold"})
	if _, err := res.Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crdRes := dyn.Resource(crds)
	if err := crdRes.Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 5*time.Second, "Terminating with deletion in progress", func() bool {
		typed, err := getCRD(ctx, dyn, "widgets.example.com")
		if err != nil {
			return false
		}
		return condition(typed, apiextensionsv1.Terminating).Reason == "InstanceDeletionInProgress" &&
			len(typed.Finalizers) == 1 && typed.Finalizers[0] == apiextensionsv1.CustomResourceCleanupFinalizer
	})
	_, err := res.Create(ctx, widget("late", map[string]any{"replicas": int64(1)}), metav1.CreateOptions{})
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("create while the CRD terminates: %v, want 405", err)
	}
	if _, err := res.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "the CRD gone", func() bool {
		_, err := crdRes.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// TestCustomResourceDefinitionUpdate changes a served CRD's schema: the
// new rules apply to the next write, as kube rebuilds its storage.
func TestCustomResourceDefinitionUpdate(t *testing.T) {
	_, dyn := startWithWidgets(t)
	ctx := context.Background()
	res := dyn.Resource(widgets).Namespace("default")
	if _, err := res.Create(ctx, widget("five", map[string]any{"replicas": int64(5)}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crdRes := dyn.Resource(crds)
	crd, err := crdRes.Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	v := versions[0].(map[string]any)
	if err := unstructured.SetNestedField(v, int64(3), "schema", "openAPIV3Schema", "properties", "spec", "properties", "replicas", "maximum"); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
	if _, err := crdRes.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 5*time.Second, "the new maximum enforced", func() bool {
		_, err := res.Create(ctx, widget("six", map[string]any{"replicas": int64(6)}), metav1.CreateOptions{DryRun: []string{"All"}})
		return apierrors.IsInvalid(err)
	})
	if got, err := res.Get(ctx, "five", metav1.GetOptions{}); err != nil || got.GetName() != "five" {
		t.Errorf("the object stored before the change: %v", err)
	}
}

// TestCustomResourcesOnEveryReplica: two registries over one etcd; a CRD
// created through one is served by the other as well, whichever replica's
// controller holds the lease.
func TestCustomResourcesOnEveryReplica(t *testing.T) {
	endpoint, _ := etcdtest.Start(t)
	var cfgs []*rest.Config
	for range 2 {
		srv, err := Start(context.Background(), Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"},
			EtcdServers: []string{endpoint}, InsecureAllowUnauthenticated: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		cfgs = append(cfgs, &rest.Config{Host: srv.URL()})
	}
	installCRD(t, cfgs[0], dynamic.NewForConfigOrDie(cfgs[0]), widgetCRD)
	other := dynamic.NewForConfigOrDie(cfgs[1]).Resource(widgets).Namespace("default")
	polltest.Until(t, 5*time.Second, "the second replica serving widgets", func() bool {
		_, err := other.List(context.Background(), metav1.ListOptions{})
		return err == nil
	})
	if _, err := other.Create(context.Background(), widget("x", map[string]any{"replicas": int64(20), "maxReplicas": int64(2)}), metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("the second replica does not validate: %v", err)
	}
}

// TestCustomResourcesGoWithTheirNamespace: deleting a namespace deletes
// the custom objects in it, which the namespace controller finds through
// discovery as it finds built-in ones.
func TestCustomResourcesGoWithTheirNamespace(t *testing.T) {
	_, dyn := startWithWidgets(t)
	ctx := context.Background()
	nsRes := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"}}}
	if _, err := nsRes.Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := widget("w", map[string]any{"replicas": int64(1)})
	w.SetNamespace("team")
	if _, err := dyn.Resource(widgets).Namespace("team").Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := nsRes.Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "the namespace and its widget gone", func() bool {
		_, err := nsRes.Get(ctx, "team", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if l, err := dyn.Resource(widgets).List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("widgets left after their namespace went: %v, %v", err, l)
	}
}
