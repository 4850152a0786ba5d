package k8s

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// servedPaths are the health endpoints each image serves without
// credentials: every kubesplit service (pkg/serve, pkg/health) and etcd's
// metrics listener.
var servedPaths = map[string][]string{
	"etcd":    {"/health", "/livez", "/readyz"},
	"default": {"/healthz", "/livez", "/readyz"},
}

// workload is a Deployment or a StatefulSet: what runs pods.
type workload struct {
	kind, name string
	replicas   int32
	selector   *metav1.LabelSelector
	template   corev1.PodTemplateSpec
	claims     []string // a StatefulSet's volume claim templates
}

// manifests indexes rendered objects by kind and name.
type manifests struct {
	workloads   []workload
	services    map[string]*corev1.Service
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret
	accounts    map[string]*corev1.ServiceAccount
	statefulSet map[string]*appsv1.StatefulSet
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	policies    []*networkingv1.NetworkPolicy
}

func index(t *testing.T, objs []runtime.Object) *manifests {
	t.Helper()
	m := &manifests{
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{},
		accounts: map[string]*corev1.ServiceAccount{}, statefulSet: map[string]*appsv1.StatefulSet{},
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			m.workloads = append(m.workloads, workload{"Deployment", o.Name, ptrValue(o.Spec.Replicas), o.Spec.Selector, o.Spec.Template, nil})
		case *appsv1.StatefulSet:
			var claims []string
			for _, c := range o.Spec.VolumeClaimTemplates {
				claims = append(claims, c.Name)
			}
			m.workloads = append(m.workloads, workload{"StatefulSet", o.Name, ptrValue(o.Spec.Replicas), o.Spec.Selector, o.Spec.Template, claims})
			m.statefulSet[o.Name] = o
		case *corev1.Service:
			m.services[o.Name] = o
		case *corev1.ConfigMap:
			m.configMaps[o.Name] = o
		case *corev1.Secret:
			m.secrets[o.Name] = o
		case *corev1.ServiceAccount:
			m.accounts[o.Name] = o
		case *policyv1.PodDisruptionBudget:
			m.pdbs = append(m.pdbs, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			m.hpas = append(m.hpas, o)
		case *networkingv1.NetworkPolicy:
			m.policies = append(m.policies, o)
		case *corev1.Namespace:
		default:
			t.Errorf("unexpected kind %T", o)
		}
	}
	return m
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// selecting returns the workloads whose pods sel selects.
func (m *manifests) selecting(t *testing.T, sel *metav1.LabelSelector) []workload {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Errorf("selector %v: %v", sel, err)
		return nil
	}
	var out []workload
	for _, w := range m.workloads {
		if !s.Empty() && s.Matches(labels.Set(w.template.Labels)) {
			out = append(out, w)
		}
	}
	return out
}

// checkWorkload: the selector matches the pods, and everything the pod
// refers to (service account, Secrets, ConfigMaps and their keys, files
// under the certificate mount, probe ports and paths) exists.
func (m *manifests) checkWorkload(t *testing.T, w workload) {
	where := w.kind + "/" + w.name
	sel, err := metav1.LabelSelectorAsSelector(w.selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(w.template.Labels)) {
		t.Errorf("%s: selector %v does not select its pods' labels %v (%v)", where, w.selector, w.template.Labels, err)
	}
	spec := w.template.Spec
	if _, ok := m.accounts[spec.ServiceAccountName]; !ok {
		t.Errorf("%s: service account %q does not exist", where, spec.ServiceAccountName)
	}
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: pods do not run as non-root", where)
	}
	files := m.checkVolumes(t, where, spec.Volumes)
	for _, c := range spec.Containers {
		cw := where + " container " + c.Name
		m.checkEnv(t, cw, c)
		checkResources(t, cw, c.Resources)
		paths := servedPaths["default"]
		if w.name == "etcd" {
			paths = servedPaths["etcd"]
		}
		checkProbe(t, cw+" readiness", c.ReadinessProbe, c.Ports, paths, "/readyz")
		checkProbe(t, cw+" liveness", c.LivenessProbe, c.Ports, paths, "/livez")
		for _, mount := range c.VolumeMounts {
			if _, ok := files[mount.Name]; !ok && !hasVolume(spec.Volumes, mount.Name) && !slices.Contains(w.claims, mount.Name) {
				t.Errorf("%s: mounts volume %q, which the pod does not have", cw, mount.Name)
			}
		}
		checkFiles(t, cw, c, files)
	}
}

func hasVolume(vols []corev1.Volume, name string) bool {
	return slices.ContainsFunc(vols, func(v corev1.Volume) bool { return v.Name == name })
}

// checkVolumes checks that each volume's Secrets and ConfigMaps exist, and
// returns, per volume, the file names it holds.
func (m *manifests) checkVolumes(t *testing.T, where string, vols []corev1.Volume) map[string][]string {
	files := map[string][]string{}
	for _, v := range vols {
		var sources []corev1.VolumeProjection
		switch {
		case v.Projected != nil:
			sources = v.Projected.Sources
		case v.Secret != nil:
			sources = []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: v.Secret.SecretName}}}}
		case v.ConfigMap != nil:
			sources = []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: v.ConfigMap.LocalObjectReference}}}
		default:
			continue
		}
		for _, src := range sources {
			switch {
			case src.Secret != nil:
				s, ok := m.secrets[src.Secret.Name]
				if !ok {
					t.Errorf("%s: volume %s: Secret %q does not exist", where, v.Name, src.Secret.Name)
					continue
				}
				for k := range s.Data {
					files[v.Name] = append(files[v.Name], k)
				}
			case src.ConfigMap != nil:
				cm, ok := m.configMaps[src.ConfigMap.Name]
				if !ok {
					t.Errorf("%s: volume %s: ConfigMap %q does not exist", where, v.Name, src.ConfigMap.Name)
					continue
				}
				for k := range cm.Data {
					files[v.Name] = append(files[v.Name], k)
				}
			}
		}
	}
	return files
}

func (m *manifests) checkEnv(t *testing.T, where string, c corev1.Container) {
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef != nil {
			if _, ok := m.configMaps[from.ConfigMapRef.Name]; !ok {
				t.Errorf("%s: envFrom ConfigMap %q does not exist", where, from.ConfigMapRef.Name)
			}
		}
		if from.SecretRef != nil {
			if _, ok := m.secrets[from.SecretRef.Name]; !ok {
				t.Errorf("%s: envFrom Secret %q does not exist", where, from.SecretRef.Name)
			}
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			if cm, ok := m.configMaps[ref.Name]; !ok {
				t.Errorf("%s: env %s: ConfigMap %q does not exist", where, e.Name, ref.Name)
			} else if _, ok := cm.Data[ref.Key]; !ok {
				t.Errorf("%s: env %s: ConfigMap %q has no key %q", where, e.Name, ref.Name, ref.Key)
			}
		}
		if ref := e.ValueFrom.SecretKeyRef; ref != nil {
			if s, ok := m.secrets[ref.Name]; !ok {
				t.Errorf("%s: env %s: Secret %q does not exist", where, e.Name, ref.Name)
			} else if _, ok := s.Data[ref.Key]; !ok {
				t.Errorf("%s: env %s: Secret %q has no key %q", where, e.Name, ref.Name, ref.Key)
			}
		}
	}
}

func checkResources(t *testing.T, where string, r corev1.ResourceRequirements) {
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := r.Requests[name]; !ok {
			t.Errorf("%s: no %s request", where, name)
		}
		if _, ok := r.Limits[name]; !ok {
			t.Errorf("%s: no %s limit", where, name)
		}
	}
}

// checkProbe: an HTTP probe on a path the image serves (want, for a
// readiness or a liveness probe), on a port the container declares.
func checkProbe(t *testing.T, where string, p *corev1.Probe, ports []corev1.ContainerPort, served []string, want string) {
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s: no HTTP probe", where)
		return
	}
	path, _, _ := strings.Cut(p.HTTPGet.Path, "?") // ?exclude= picks checks
	if path != want || !slices.Contains(served, path) {
		t.Errorf("%s: probes %q, want %s (served: %v)", where, p.HTTPGet.Path, want, served)
	}
	if !declaresPort(ports, p.HTTPGet.Port) {
		t.Errorf("%s: probes port %s, which the container does not declare", where, p.HTTPGet.Port.String())
	}
}

func declaresPort(ports []corev1.ContainerPort, port intstr.IntOrString) bool {
	return slices.ContainsFunc(ports, func(p corev1.ContainerPort) bool {
		if port.Type == intstr.String {
			return p.Name == port.StrVal
		}
		return p.ContainerPort == port.IntVal
	})
}

// certPath is a file the flags or etcd's variables name under a mount.
var certPath = regexp.MustCompile(`/certs/[A-Za-z0-9._-]+`)

// checkFiles: every /certs/<file> the container's arguments or environment
// name is in the volume mounted there.
func checkFiles(t *testing.T, where string, c corev1.Container, files map[string][]string) {
	var mounted []string
	for _, mount := range c.VolumeMounts {
		if mount.MountPath == "/certs" {
			mounted = files[mount.Name]
		}
	}
	text := strings.Join(append(c.Command, c.Args...), " ")
	for _, e := range c.Env {
		text += " " + e.Value
	}
	for _, p := range certPath.FindAllString(text, -1) {
		if !slices.Contains(mounted, path.Base(p)) {
			t.Errorf("%s: names %s, which is not in its /certs volume (%v)", where, p, mounted)
		}
	}
}

// checkService: its selector picks a workload's pods, and each port's
// target is a port those pods declare.
func (m *manifests) checkService(t *testing.T, s *corev1.Service) {
	ws := m.selecting(t, &metav1.LabelSelector{MatchLabels: s.Spec.Selector})
	if len(ws) == 0 {
		t.Errorf("Service %s: selector %v selects no pods", s.Name, s.Spec.Selector)
		return
	}
	for _, w := range ws {
		for _, p := range s.Spec.Ports {
			if !declaresPort(w.template.Spec.Containers[0].Ports, p.TargetPort) {
				t.Errorf("Service %s: port %s targets %s, which %s/%s does not declare", s.Name, p.Name, p.TargetPort.String(), w.kind, w.name)
			}
		}
	}
}

func (m *manifests) checkPolicy(t *testing.T, np *networkingv1.NetworkPolicy) {
	targets := m.selecting(t, &np.Spec.PodSelector)
	if len(np.Spec.PodSelector.MatchLabels) > 0 && len(targets) == 0 {
		t.Errorf("NetworkPolicy %s selects no pods", np.Name)
	}
	for _, rule := range np.Spec.Ingress {
		for _, peer := range rule.From {
			// A peer in other namespaces selects pods these manifests
			// do not hold (a Prometheus); only a local one must select.
			if peer.PodSelector != nil && peer.NamespaceSelector == nil && len(m.selecting(t, peer.PodSelector)) == 0 {
				t.Errorf("NetworkPolicy %s: peer %v selects no pods", np.Name, peer.PodSelector)
			}
		}
		for _, p := range rule.Ports {
			for _, w := range targets {
				if p.Port != nil && !declaresPort(w.template.Spec.Containers[0].Ports, *p.Port) {
					t.Errorf("NetworkPolicy %s: port %s is not declared by %s", np.Name, p.Port.String(), w.name)
				}
			}
		}
	}
}

// ingressFrom is the names of the workloads a policy lets reach pods of
// app, on any port: what the trust model constrains. A peer in other
// namespaces is named by its selectors (outsidePeer).
func (m *manifests) ingressFrom(t *testing.T, app string) []string {
	var from []string
	for _, np := range m.policies {
		if np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != app {
			continue
		}
		for _, rule := range np.Spec.Ingress {
			if len(rule.From) == 0 {
				from = append(from, "*")
			}
			for _, peer := range rule.From {
				if peer.NamespaceSelector != nil {
					from = append(from, outsidePeer(peer))
					continue
				}
				if peer.PodSelector == nil {
					from = append(from, fmt.Sprintf("non-pod peer %v", peer))
					continue
				}
				for _, w := range m.selecting(t, peer.PodSelector) {
					from = append(from, w.name)
				}
			}
		}
	}
	slices.Sort(from)
	return slices.Compact(from)
}

// outsidePeer names a peer with a namespace selector: "<pod selector> in
// namespaces <namespace selector>", "*" for an empty selector.
func outsidePeer(peer networkingv1.NetworkPolicyPeer) string {
	format := func(sel *metav1.LabelSelector) string {
		if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
			return "*"
		}
		return metav1.FormatLabelSelector(sel)
	}
	return format(peer.PodSelector) + " in namespaces " + format(peer.NamespaceSelector)
}
