package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// kubeletServer is one API server under test, kubesplit's or kube's.
type kubeletServer struct {
	name       string
	url        string
	token      string
	http       *http.Client
	client     *kubernetes.Clientset
	kubeconfig func(token string) string
}

// TestKubeletSubresourcesAsKube serves pods/log, exec and portforward
// through a kubelet (framework.TestKubelet, speaking kube's own streaming
// server over HTTPS with a client certificate) with the real kubectl,
// against kubesplit and a real kube-apiserver wired to the same kubelet,
// and compares their refusals: no such container, a node whose kubelet
// does not answer, a user without create on pods/exec.
func TestKubeletSubresourcesAsKube(t *testing.T) {
	pod := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "hello from the pod\n")
	}))
	t.Cleanup(pod.Close)
	kubelet := framework.StartTestKubelet(t, strings.TrimPrefix(pod.URL, "http://"))
	kubeletFlags := []string{"--kubelet-certificate-authority=" + kubelet.CAFile,
		"--kubelet-client-certificate=" + kubelet.ClientCertFile, "--kubelet-client-key=" + kubelet.ClientKeyFile,
		"--kubelet-preferred-address-types=InternalIP"}
	const viewerToken = "viewer-token-0123456789"
	s := framework.StartStack(t, framework.StackOptions{
		Args:  map[string][]string{framework.StageRegistry: kubeletFlags},
		Users: []string{viewerToken + `,viewer,uid-viewer,"viewers"`},
	})
	k := framework.StartKubeAPIServer(t, kubeletFlags...)
	deadPort := closedPort(t)
	servers := []kubeletServer{
		{name: "kubesplit", url: s.Aggregator.URL, token: s.AdminToken, http: s.HTTPClient(t), client: s.Client(t, s.AdminToken),
			kubeconfig: func(user string) string {
				if user == "viewer" {
					return s.Aggregator.Kubeconfig(t, "viewer", viewerToken)
				}
				return s.Aggregator.Kubeconfig(t, "admin", s.AdminToken)
			}},
		{name: "kube", url: k.URL(), token: k.AdminToken, http: k.HTTPClient(t), client: k.Client(t),
			kubeconfig: func(user string) string {
				if user == "viewer" {
					return kubeCertKubeconfig(t, k, "viewer", "viewers")
				}
				return k.Kubeconfig(t)
			}},
	}
	podPort := pod.Listener.Addr().(*net.TCPAddr).Port
	for _, srv := range servers {
		seedKubeletObjects(t, srv.client, kubelet.Port, deadPort)
		seedServiceProxyObjects(t, srv.client, podPort)
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) { checkKubeletSubresources(t, srv) })
	}
	t.Run("CONNECT admission as kube", func(t *testing.T) {
		// A ValidatingAdmissionPolicy on pods/exec's CONNECT sees the
		// PodExecOptions: kube and kubesplit refuse the same exec alike.
		var outs []string
		for _, srv := range servers {
			createExecPolicy(t, srv.client)
			var out string
			polltest.Until(t, policyEffect, srv.name+" refusing the exec", func() bool {
				var err error
				out, err = kubectlRun(srv.kubeconfig("admin"), "exec", "web", "--", "forbidden")
				return err != nil && strings.Contains(out, "exec of forbidden is not allowed")
			})
			outs = append(outs, out)
			if out, err := kubectlRun(srv.kubeconfig("admin"), "exec", "web", "--", "echo", "hi"); err != nil {
				t.Errorf("%s: an exec the policy allows: %v\n%s", srv.name, err, out)
			}
		}
		if outs[0] != outs[1] {
			t.Errorf("refused exec:\n kubesplit %q\n kube      %q", outs[0], outs[1])
		}
	})
	t.Run("refusals match kube", func(t *testing.T) {
		for _, path := range []string{
			"/api/v1/namespaces/default/pods/web/log?container=nope",
			"/api/v1/namespaces/default/pods/web/log?sinceSeconds=abc",
			"/api/v1/namespaces/default/pods/web/log?tailLines=-1",
			"/api/v1/namespaces/default/pods/lost/log",
			"/api/v1/namespaces/default/pods/web/proxy/",
			"/api/v1/nodes/node-a/proxy/healthz",
			"/api/v1/namespaces/default/services/backed:http/proxy/",
			"/api/v1/namespaces/default/services/unbacked/proxy/",
			"/api/v1/namespaces/default/services/backed:81/proxy/",
			"/api/v1/namespaces/default/services/nope/proxy/",
			"/api/v1/namespaces/default/services/a:b:c:d/proxy/",
		} {
			code0, status0 := getStatus(t, servers[0], path)
			code1, status1 := getStatus(t, servers[1], path)
			if code0 != code1 || status0.Message != status1.Message || status0.Reason != status1.Reason {
				t.Errorf("GET %s:\n kubesplit %d %s %q\n kube      %d %s %q", path, code0, status0.Reason, status0.Message, code1, status1.Reason, status1.Message)
			}
		}
	})
}

// checkKubeletSubresources drives kubectl against one server.
func checkKubeletSubresources(t *testing.T, srv kubeletServer) {
	admin := srv.kubeconfig("admin")
	before := podRV(t, srv.client, "web")
	t.Run("logs", func(t *testing.T) {
		out, err := kubectlRun(admin, "logs", "web", "--tail=2")
		if err != nil || out != "app/web: second line\napp/web: third line\n" {
			t.Fatalf("kubectl logs: %v\n%q", err, out)
		}
	})
	t.Run("logs -f", func(t *testing.T) {
		stream := (&framework.Registry{Kubeconfig: admin}).StartKubectl(t, "logs", "-f", "web")
		stream.WaitFor(t, 20*time.Second, "followed", "line", "1")
		stream.Stop()
	})
	t.Run("exec", func(t *testing.T) {
		out, err := kubectlRun(admin, "exec", "web", "--", "echo", "hi")
		if err != nil || out != "exec app: echo hi\n" {
			t.Fatalf("kubectl exec: %v\n%q", err, out)
		}
	})
	t.Run("port-forward", func(t *testing.T) {
		stream := (&framework.Registry{Kubeconfig: admin}).StartKubectl(t, "port-forward", "--address=127.0.0.1", "pod/web", ":8080")
		line := stream.WaitFor(t, 20*time.Second, "Forwarding", "from")
		m := regexp.MustCompile(`127\.0\.0\.1:(\d+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("no local port in %q", line)
		}
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Get("http://127.0.0.1:" + m[1] + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello from the pod\n" {
			t.Fatalf("through the forwarded port: %q", body)
		}
		stream.Stop()
	})
	t.Run("no such container", func(t *testing.T) {
		out, err := kubectlRun(admin, "logs", "web", "-c", "nope")
		if err == nil || !strings.Contains(out, "container nope is not valid for pod web") {
			t.Fatalf("kubectl logs -c nope: %v\n%s", err, out)
		}
	})
	t.Run("exec needs create", func(t *testing.T) {
		// The viewer may get pods/exec, which lets kubectl's WebSocket
		// GET past the authorization filter; kube then checks create too.
		out, err := kubectlRun(srv.kubeconfig("viewer"), "exec", "web", "--", "echo", "hi")
		if err == nil || !strings.Contains(out, "forbidden") {
			t.Fatalf("kubectl exec as a user with only get on pods/exec: %v\n%s", err, out)
		}
		t.Logf("%s: %s", srv.name, out)
	})
	if after := podRV(t, srv.client, "web"); after != before {
		t.Errorf("the pod changed: resourceVersion %s, then %s", before, after)
	}
}

// seedKubeletObjects creates a Node served by the kubelet (node-a), one
// whose kubelet does not answer (node-dead), a pod on each, and a role
// letting "viewer" get pods and pods/exec, but not create.
func seedKubeletObjects(t *testing.T, c *kubernetes.Clientset, port, deadPort int) {
	ctx := context.Background()
	for name, p := range map[string]int{"node-a": port, "node-dead": deadPort} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		created, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		created.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
		if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := c.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for name, node := range map[string]string{"web": "node-a", "lost": "node-dead"} {
		no := false
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node, AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{Name: "app", Image: "app", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}
		created, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// kubectl port-forward wants a running pod.
		created.Status.Phase = corev1.PodRunning
		if _, err := c.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "exec-get"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/exec"}, Verbs: []string{"get", "list"}}}}
	if _, err := c.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "exec-get"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "exec-get"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "viewer"}}}
	if _, err := c.RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// seedServiceProxyObjects creates a Service "backed" whose EndpointSlice
// names its pod, but at an address the pod does not hold, and a Service
// "unbacked" whose EndpointSlice names no pod: a service proxy must reach
// neither, and kube's refusals are compared. (Addresses are TEST-NET ones:
// an EndpointSlice may not name a loopback address, so the proxying itself
// is tested in the registry's handler tests.)
func seedServiceProxyObjects(t *testing.T, c *kubernetes.Clientset, podPort int) {
	ctx := context.Background()
	no := false
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "backend"}, Spec: corev1.PodSpec{NodeName: "node-a", AutomountServiceAccountToken: &no,
		Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
	created, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Phase = corev1.PodRunning
	created.Status.PodIP = "192.0.2.11"
	created.Status.PodIPs = []corev1.PodIP{{IP: "192.0.2.11"}}
	if _, err := c.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	name, port := "http", int32(podPort)
	for svc, ref := range map[string]*corev1.ObjectReference{"backed": {Kind: "Pod", Namespace: "default", Name: "backend"}, "unbacked": nil} {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: svc}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(port)}}}}
		if _, err := c.CoreV1().Services("default").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: svc + "-1", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.12"}, TargetRef: ref}},
			Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}}}
		if _, err := c.DiscoveryV1().EndpointSlices("default").Create(ctx, slice, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// createExecPolicy creates a ValidatingAdmissionPolicy, bound
// everywhere, refusing the exec of a command named "forbidden".
func createExecPolicy(t *testing.T, c *kubernetes.Clientset) {
	ctx := context.Background()
	connect := admissionregistrationv1.OperationType("CONNECT")
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden-exec"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{connect},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/exec"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "!('forbidden' in object.command)", Message: "exec of forbidden is not allowed"}},
		}}
	if _, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden-exec"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "no-forbidden-exec",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	if _, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// getBody GETs path as the admin: the code and the body.
func getBody(t *testing.T, srv kubeletServer, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.token)
	resp, err := srv.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body)
}

func podRV(t *testing.T, c *kubernetes.Clientset, name string) string {
	p, err := c.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.ResourceVersion
}

// getStatus GETs path as the admin and decodes the Status answered.
func getStatus(t *testing.T, srv kubeletServer, path string) (int, metav1.Status) {
	t.Helper()
	code, body := getBody(t, srv, path)
	var st metav1.Status
	_ = json.Unmarshal([]byte(body), &st)
	return code, st
}

// kubectlRun runs kubectl with a kubeconfig, bounded to a minute.
func kubectlRun(kubeconfig string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return framework.RunKubectl(ctx, kubeconfig, args...)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// kubeCertKubeconfig is a kubeconfig for kube-apiserver as user in
// groups, with a client certificate of its client CA.
func kubeCertKubeconfig(t *testing.T, k *framework.KubeAPIServer, user string, groups ...string) string {
	certPEM, keyPEM := k.ClientCA.Issue(t, user, groups...)
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: kube, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: %s, user: {client-certificate-data: %s, client-key-data: %s}}]
contexts: [{name: kube, context: {cluster: kube, user: %s}}]
current-context: kube
`, k.URL(), k.CAFile, user, base64.StdEncoding.EncodeToString(certPEM), base64.StdEncoding.EncodeToString(keyPEM), user)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
