package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// The proof that kubesplit is a Kubernetes API server is that Kubernetes
// runs on it: the real kube-controller-manager and kube-scheduler, and
// kwok as the kubelet of five fake nodes, drive Deployments, Jobs,
// CronJobs, StatefulSets, DaemonSets, Services, disruption budgets and
// namespace deletion through it. The same test runs against a real
// kube-apiserver (TestControlPlaneOnKube), which shows that what it asks
// is what Kubernetes does (make test-long runs that one). Run one with
//
//	go test ./test/e2e -run 'TestControlPlaneOnKubesplit$' -v
//
// ($KUBESPLIT_BIN and $KUBESPLIT_KUBE_BIN as make test sets them, or the
// binaries are built first); $KUBESPLIT_CONTROLPLANE_LOGS=<dir> keeps the
// control plane's logs of a run that passed too.

const (
	// cpNodes is how many fake nodes kwok plays the kubelet of.
	cpNodes = 5
	// cpPoll is how often a check looks again: the checks run at once,
	// and a tighter loop would load the server they measure.
	cpPoll = 250 * time.Millisecond
	// cpImage and cpImage2 are a workload's image and the one it rolls
	// out (kwok runs no image: any name does).
	cpImage  = "registry.k8s.io/pause:3.9"
	cpImage2 = "registry.k8s.io/pause:3.10"
)

// controlPlaneTarget is the API server a control plane runs against.
type controlPlaneTarget struct {
	// config is the admin's client configuration, kubeconfig the same as
	// a file for the control plane's components.
	config     *rest.Config
	kubeconfig string
	// kubectl runs the kubectl on the PATH as the admin.
	kubectl func(t testing.TB, args ...string) (string, error)
	// kcmArgs are extra kube-controller-manager flags.
	kcmArgs []string
}

// TestControlPlaneOnKube checks the test rather than kubesplit, and takes
// a minute, so make test leaves it to make test-long
// ($KUBESPLIT_LONG_TESTS=1).
func TestControlPlaneOnKube(t *testing.T) {
	if os.Getenv("KUBESPLIT_LONG_TESTS") != "1" {
		t.Skip("the control plane on kube-apiserver checks the test itself: make test-long (KUBESPLIT_LONG_TESTS=1) runs it")
	}
	start := time.Now()
	k := framework.StartKubeAPIServer(t)
	t.Logf("kube-apiserver %s ready after %v", framework.KubeVersion, time.Since(start).Round(time.Millisecond))
	testControlPlane(t, controlPlaneTarget{
		config:     k.RESTConfig(),
		kubeconfig: k.Kubeconfig(t),
		kubectl: func(t testing.TB, args ...string) (string, error) {
			return k.Kubectl(t, "", args...)
		},
		kcmArgs: []string{"--service-account-private-key-file=" + k.ServiceAccountKeyFile()},
	})
	t.Logf("TestControlPlaneOnKube took %v", time.Since(start).Round(time.Millisecond))
}

func TestControlPlaneOnKubesplit(t *testing.T) {
	start := time.Now()
	// kube-controller-manager runs the controllers kubesplit's stages
	// would otherwise run too: theirs are left out, as a deploy beside it
	// would, so that what the test sees is kube-controller-manager's work
	// on kubesplit's API.
	s := framework.StartStack(t, framework.StackOptions{Args: framework.BesideKubeControllerManager()})
	t.Logf("kubesplit stack ready after %v", time.Since(start).Round(time.Millisecond))
	kubeconfig := s.Aggregator.Kubeconfig(t, "admin", s.AdminToken)
	testControlPlane(t, controlPlaneTarget{
		config:     s.RESTConfig(t, s.AdminToken),
		kubeconfig: kubeconfig,
		kubectl: func(t testing.TB, args ...string) (string, error) {
			return s.Aggregator.Kubectl(t, kubeconfig, "", args...)
		},
		kcmArgs: []string{"--service-account-private-key-file=" + s.ServiceAccountKeyFile()},
	})
	t.Logf("TestControlPlaneOnKubesplit took %v", time.Since(start).Round(time.Millisecond))
}

// testControlPlane starts the control plane against target, makes the
// fake nodes, and runs every check at once, each in a namespace of its
// own, so the whole takes as long as the slowest (the CronJob's minute).
func testControlPlane(t *testing.T, target controlPlaneTarget) {
	cfg := rest.CopyConfig(target.config)
	// The checks poll at once; client-go's default 5 requests a second
	// would make them wait on the client rather than the server.
	cfg.QPS, cfg.Burst = 200, 400
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	framework.StartControlPlane(t, target.kubeconfig, target.kcmArgs...)
	t.Logf("kube-controller-manager and kube-scheduler healthy after %v", time.Since(start).Round(time.Millisecond))

	nodes := make([]string, cpNodes)
	t.Run("nodes become Ready", func(t *testing.T) {
		for i := range nodes {
			nodes[i] = fmt.Sprintf("kwok-node-%d", i)
			createFakeNode(t, c, nodes[i])
		}
		cpWait(t, 60*time.Second, "every fake node Ready", func(ctx context.Context) (bool, string, error) {
			list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
			if err != nil {
				return false, "", err
			}
			var ready []string
			for i := range list.Items {
				if nodeReady(&list.Items[i]) {
					ready = append(ready, list.Items[i].Name)
				}
			}
			return len(ready) == cpNodes, fmt.Sprintf("%d nodes, Ready: %v", len(list.Items), ready), nil
		})
		// Their heartbeat, as a kubelet's: without it kube-controller-manager
		// marks their pods not Ready within a minute.
		cpWait(t, 30*time.Second, "every fake node's Lease", func(ctx context.Context) (bool, string, error) {
			var renewed []string
			for _, n := range nodes {
				l, err := c.CoordinationV1().Leases("kube-node-lease").Get(ctx, n, metav1.GetOptions{})
				if err == nil && l.Spec.RenewTime != nil {
					renewed = append(renewed, n)
				}
			}
			return len(renewed) == cpNodes, fmt.Sprintf("renewed: %v", renewed), nil
		})
	})

	t.Run("checks", func(t *testing.T) {
		checks := []struct {
			name string
			run  func(t *testing.T, c kubernetes.Interface)
		}{
			{"Deployment of 50 runs on every node, rolls out and scales down", func(t *testing.T, c kubernetes.Interface) { checkDeployment(t, c, nodes) }},
			{"Job completes", checkJob},
			{"CronJob fires a Job", checkCronJob},
			{"StatefulSet scales to 3 in order", checkStatefulSet},
			{"DaemonSet runs on every node", func(t *testing.T, c kubernetes.Interface) { checkDaemonSet(t, c, nodes) }},
			{"Service gets a ClusterIP and EndpointSlices", checkService},
			{"Eviction respects a PodDisruptionBudget", checkEviction},
			{"namespace deletion removes its contents", checkNamespaceDeletion},
			{"every namespace gets kube-root-ca.crt with the server's CA", func(t *testing.T, c kubernetes.Interface) { checkRootCA(t, c, target) }},
			{"kubectl apply -k deploy/k8s --dry-run=server", func(t *testing.T, c kubernetes.Interface) { checkApplyDeploy(t, c, target) }},
		}
		// All at once, whatever -parallel says (t.Parallel would run two
		// at a time on two cores, and the waits would add up).
		var wg sync.WaitGroup
		for _, check := range checks {
			wg.Go(func() {
				t.Run(check.name, func(t *testing.T) {
					start := time.Now()
					check.run(t, c)
					t.Logf("took %v", time.Since(start).Round(time.Millisecond))
				})
			})
		}
		wg.Wait()
	})
}

// checkRootCA: kube-controller-manager's publisher puts the CA clients
// trust the server with into every namespace, and puts it back when it is
// emptied.
func checkRootCA(t *testing.T, c kubernetes.Interface, target controlPlaneTarget) {
	want, err := os.ReadFile(target.config.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	ns := cpNamespace(t, c, "cp-root-ca")
	published := func(ctx context.Context) (bool, string, error) {
		cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got := cm.Data["ca.crt"]
		return got == string(want), fmt.Sprintf("ca.crt of %d bytes", len(got)), nil
	}
	cpWait(t, 30*time.Second, "kube-root-ca.crt with the server's CA", published)
	emptied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt"}, Data: map[string]string{"ca.crt": ""}}
	if _, err := c.CoreV1().ConfigMaps(ns).Update(context.Background(), emptied, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpWait(t, 30*time.Second, "kube-root-ca.crt reconciled after it was emptied", published)
}

// checkDeployment: 50 replicas Running, spread over every node (a
// topology spread constraint asks for it), then a new image rolled out
// to all 50, then the scale subresource down to 10.
func checkDeployment(t *testing.T, c kubernetes.Interface, nodes []string) {
	ns := cpNamespace(t, c, "cp-deployment")
	d := cpDeployment("web", 50)
	d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: d.Spec.Selector,
	}}
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deploymentSettled := func(ctx context.Context, replicas int32, image string) (bool, string, error) {
		got, err := c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, "", err
		}
		perNode := map[string]int{}
		running, other := 0, 0
		for i := range pods.Items {
			p := &pods.Items[i]
			if podRunning(p) && p.Spec.Containers[0].Image == image {
				running++
				perNode[p.Spec.NodeName]++
			} else {
				other++
			}
		}
		st := got.Status
		state := fmt.Sprintf("%d pods Running with %s per node %v, %d other pods; deployment generation %d status %s",
			running, image, perNode, other, got.Generation, deploymentStatus(st))
		ok := running == int(replicas) && other == 0 && st.ObservedGeneration >= got.Generation &&
			st.Replicas == replicas && st.UpdatedReplicas == replicas && st.ReadyReplicas == replicas && st.AvailableReplicas == replicas
		return ok, state, nil
	}

	var perNode map[string]int
	cpWait(t, 120*time.Second, "50 Running pods over every node", func(ctx context.Context) (bool, string, error) {
		ok, state, err := deploymentSettled(ctx, 50, cpImage)
		if !ok || err != nil {
			return ok, state, err
		}
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, "", err
		}
		perNode = map[string]int{}
		for _, p := range pods.Items {
			perNode[p.Spec.NodeName]++
		}
		return true, state, nil
	})
	lo, hi := 50, 0
	for _, n := range nodes {
		lo, hi = min(lo, perNode[n]), max(hi, perNode[n])
	}
	if len(perNode) != len(nodes) || hi-lo > 1 {
		t.Fatalf("pods per node %v: want all %d nodes with a skew of at most 1 (maxSkew 1, DoNotSchedule)", perNode, len(nodes))
	}

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := c.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Spec.Template.Spec.Containers[0].Image = cpImage2
		_, err = c.AppsV1().Deployments(ns).Update(context.Background(), got, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update the image: %v", err)
	}
	cpWait(t, 120*time.Second, "the new image rolled out to 50 Running pods", func(ctx context.Context) (bool, string, error) {
		ok, state, err := deploymentSettled(ctx, 50, cpImage2)
		if !ok || err != nil {
			return ok, state, err
		}
		rss, err := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, "", err
		}
		var sizes []string
		for _, rs := range rss.Items {
			sizes = append(sizes, fmt.Sprintf("%s=%d/%d %s", rs.Name, rs.Status.Replicas, *rs.Spec.Replicas, rs.Spec.Template.Spec.Containers[0].Image))
		}
		return len(rss.Items) == 2, fmt.Sprintf("%s; replicasets %v", state, sizes), nil
	})

	scale, err := c.AppsV1().Deployments(ns).GetScale(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get deployments/scale: %v", err)
	}
	scale.Spec.Replicas = 10
	if _, err := c.AppsV1().Deployments(ns).UpdateScale(context.Background(), "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update deployments/scale to 10: %v", err)
	}
	cpWait(t, 90*time.Second, "scaled down to 10 Running pods", func(ctx context.Context) (bool, string, error) {
		return deploymentSettled(ctx, 10, cpImage2)
	})
}

// checkJob: a Job of three completions, two at a time, completes (kwok
// moves a Job's running pod to Succeeded).
func checkJob(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-job")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "once"},
		Spec: batchv1.JobSpec{
			Completions: new(int32(3)), Parallelism: new(int32(2)), BackoffLimit: new(int32(0)),
			Template: cpPodTemplate("once", corev1.RestartPolicyNever),
		},
	}
	if _, err := c.BatchV1().Jobs(ns).Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpWait(t, 120*time.Second, "the Job Complete with 3 succeeded", func(ctx context.Context) (bool, string, error) {
		got, err := c.BatchV1().Jobs(ns).Get(ctx, "once", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		complete := false
		for _, cond := range got.Status.Conditions {
			complete = complete || cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue
		}
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		return complete && got.Status.Succeeded == 3, fmt.Sprintf("job status active=%d succeeded=%d failed=%d conditions=%s; pods %s",
			got.Status.Active, got.Status.Succeeded, got.Status.Failed, jobConditions(got), podPhases(pods.Items)), nil
	})
}

// checkCronJob: a CronJob of every minute creates a Job (the next minute
// boundary, so up to a minute and a bit).
func checkCronJob(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-cronjob")
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "tick"},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/1 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
				Template: cpPodTemplate("tick", corev1.RestartPolicyNever),
			}},
		},
	}
	if _, err := c.BatchV1().CronJobs(ns).Create(context.Background(), cj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpWait(t, 150*time.Second, "a Job of the CronJob", func(ctx context.Context) (bool, string, error) {
		got, err := c.BatchV1().CronJobs(ns).Get(ctx, "tick", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		jobs, err := c.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		var owned []string
		for _, j := range jobs.Items {
			if ref := metav1.GetControllerOf(&j); ref != nil && ref.Kind == "CronJob" && ref.UID == got.UID {
				owned = append(owned, j.Name)
			}
		}
		return len(owned) > 0 && got.Status.LastScheduleTime != nil,
			fmt.Sprintf("%d jobs, owned by the CronJob %v; lastScheduleTime %v", len(jobs.Items), owned, got.Status.LastScheduleTime), nil
	})
}

// checkStatefulSet: a StatefulSet of 3 (OrderedReady) creates each pod
// only once the one before is Running and Ready, as a watch of its pods
// sees them.
func checkStatefulSet(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-statefulset")
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "ordered"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "ordered"},
			Ports: []corev1.ServicePort{{Name: "web", Port: 80}}},
	}
	// The controller does not need the Service: go on without it, to see
	// the StatefulSet's own behaviour as well.
	if _, err := c.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Errorf("create the headless Service: %v (%s)", err, statusOf(err))
	}
	pods, err := c.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := pods.ResourceVersion
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ordered"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: new(int32(3)), ServiceName: "ordered",
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ordered"}},
			Template:            cpPodTemplate("ordered", corev1.RestartPolicyAlways),
		},
	}
	if _, err := c.AppsV1().StatefulSets(ns).Create(context.Background(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ready := map[string]bool{}
	var created, outOfOrder []string
	all := func() bool { return ready["ordered-0"] && ready["ordered-1"] && ready["ordered-2"] }
	for !all() && ctx.Err() == nil {
		w, err := c.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() == nil {
				t.Fatalf("watch pods from %s: %v", rv, err)
			}
			break
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				t.Fatalf("watch pods: %v", apierrors.FromObject(ev.Object))
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			if ev.Type == watch.Bookmark {
				continue
			}
			if ev.Type == watch.Added && !slices.Contains(created, p.Name) {
				created = append(created, p.Name)
				var i int
				if _, err := fmt.Sscanf(p.Name, "ordered-%d", &i); err == nil && i > 0 && !ready[fmt.Sprintf("ordered-%d", i-1)] {
					outOfOrder = append(outOfOrder, fmt.Sprintf("%s created while ordered-%d was not Running and Ready", p.Name, i-1))
				}
			}
			ready[p.Name] = ev.Type != watch.Deleted && podRunning(p)
			if all() {
				break
			}
		}
		w.Stop()
	}
	if !all() {
		t.Fatalf("after 90s the pods created are %v, Running and Ready %v", created, ready)
	}
	t.Logf("pods created in the order %v, each once the one before was Running and Ready", created)
	if len(outOfOrder) > 0 {
		t.Errorf("not in order (created %v): %s", created, strings.Join(outOfOrder, "; "))
	}
	if want := []string{"ordered-0", "ordered-1", "ordered-2"}; !slices.Equal(created, want) {
		t.Errorf("pods created %v, want %v", created, want)
	}
	cpWait(t, 30*time.Second, "the StatefulSet's status to count 3 ready", func(ctx context.Context) (bool, string, error) {
		got, err := c.AppsV1().StatefulSets(ns).Get(ctx, "ordered", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		st := got.Status
		return st.ObservedGeneration >= got.Generation && st.Replicas == 3 && st.ReadyReplicas == 3 && st.AvailableReplicas == 3,
			fmt.Sprintf("status %+v", st), nil
	})
}

// checkDaemonSet: a DaemonSet runs one Running pod on each node.
func checkDaemonSet(t *testing.T, c kubernetes.Interface, nodes []string) {
	ns := cpNamespace(t, c, "cp-daemonset")
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "everywhere"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "everywhere"}},
			Template: cpPodTemplate("everywhere", corev1.RestartPolicyAlways),
		},
	}
	if _, err := c.AppsV1().DaemonSets(ns).Create(context.Background(), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpWait(t, 90*time.Second, "a Running pod of the DaemonSet on every node", func(ctx context.Context) (bool, string, error) {
		got, err := c.AppsV1().DaemonSets(ns).Get(ctx, "everywhere", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		perNode := map[string]int{}
		for i := range pods.Items {
			if podRunning(&pods.Items[i]) {
				perNode[pods.Items[i].Spec.NodeName]++
			}
		}
		ok := len(pods.Items) == len(nodes)
		for _, n := range nodes {
			ok = ok && perNode[n] == 1
		}
		st := got.Status
		ok = ok && st.ObservedGeneration >= got.Generation && st.DesiredNumberScheduled == int32(len(nodes)) &&
			st.CurrentNumberScheduled == int32(len(nodes)) && st.NumberReady == int32(len(nodes))
		return ok, fmt.Sprintf("%d pods, Running per node %v; status %+v", len(pods.Items), perNode, st), nil
	})
}

// checkService: a Service gets a ClusterIP, and EndpointSlices list
// exactly the addresses of its three Running, Ready pods.
func checkService(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-service")
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), cpDeployment("backend", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "backend"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "backend"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
	created, err := c.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ip := created.Spec.ClusterIP; net.ParseIP(ip) == nil || !slices.Equal(created.Spec.ClusterIPs, []string{ip}) {
		t.Errorf("the Service was created with clusterIP %q clusterIPs %q, want an address, the same in both", ip, created.Spec.ClusterIPs)
	}
	cpWait(t, 90*time.Second, "EndpointSlices of the Service's 3 ready pods", func(ctx context.Context) (bool, string, error) {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=backend"})
		if err != nil {
			return false, "", err
		}
		var want []string
		for i := range pods.Items {
			if podRunning(&pods.Items[i]) && pods.Items[i].Status.PodIP != "" {
				want = append(want, pods.Items[i].Status.PodIP)
			}
		}
		eps, err := c.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=backend"})
		if err != nil {
			return false, "", err
		}
		var got []string
		port := false
		for _, s := range eps.Items {
			for _, p := range s.Ports {
				port = port || p.Port != nil && *p.Port == 8080
			}
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					got = append(got, e.Addresses...)
				}
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		return len(want) == 3 && slices.Equal(got, want) && port,
			fmt.Sprintf("ready pod IPs %v; %d EndpointSlices with ready addresses %v, port 8080 %v", want, len(eps.Items), got, port), nil
	})
}

// checkEviction: evicting a pod that a PodDisruptionBudget of
// minAvailable = all protects is refused with 429; once the budget allows
// one disruption, the same eviction deletes the pod.
func checkEviction(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-eviction")
	if _, err := c.AppsV1().Deployments(ns).Create(context.Background(), cpDeployment("guarded", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	minAvailable := intstr.FromInt32(3)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "guarded"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}}},
	}
	if _, err := c.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	budget := func(allowed int32) func(ctx context.Context) (bool, string, error) {
		return func(ctx context.Context) (bool, string, error) {
			got, err := c.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "guarded", metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			st := got.Status
			return st.ObservedGeneration == got.Generation && st.ExpectedPods == 3 && st.CurrentHealthy == 3 && st.DisruptionsAllowed == allowed,
				fmt.Sprintf("generation %d status observedGeneration=%d expected=%d currentHealthy=%d desiredHealthy=%d disruptionsAllowed=%d",
					got.Generation, st.ObservedGeneration, st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy, st.DisruptionsAllowed), nil
		}
	}
	cpWait(t, 90*time.Second, "the budget to count 3 healthy pods and allow no disruption", budget(0))
	pods, err := c.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=guarded"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("list the guarded pods: %v (%d)", err, len(pods.Items))
	}
	victim := pods.Items[0].Name
	evict := func() error {
		return c.CoreV1().Pods(ns).EvictV1(context.Background(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: victim, Namespace: ns}})
	}

	t.Run("refused with 429", func(t *testing.T) {
		err := evict()
		if !apierrors.IsTooManyRequests(err) {
			t.Fatalf("evict %s: %v (%s), want 429 TooManyRequests", victim, err, statusOf(err))
		}
		t.Logf("evict %s: %v", victim, err)
		p, err := c.CoreV1().Pods(ns).Get(context.Background(), victim, metav1.GetOptions{})
		if err != nil || p.DeletionTimestamp != nil {
			t.Errorf("after a refused eviction, get %s: %v (deletionTimestamp %v), want it untouched", victim, err, p.DeletionTimestamp)
		}
	})
	t.Run("allowed once the budget permits", func(t *testing.T) {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			got, err := c.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), "guarded", metav1.GetOptions{})
			if err != nil {
				return err
			}
			two := intstr.FromInt32(2)
			got.Spec.MinAvailable = &two
			_, err = c.PolicyV1().PodDisruptionBudgets(ns).Update(context.Background(), got, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("set minAvailable 2: %v", err)
		}
		cpWait(t, 60*time.Second, "the budget to allow one disruption", budget(1))
		if err := evict(); err != nil {
			t.Fatalf("evict %s with one disruption allowed: %v (%s)", victim, err, statusOf(err))
		}
		cpWait(t, 60*time.Second, "the evicted pod to go", func(ctx context.Context) (bool, string, error) {
			p, err := c.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, "", nil
			}
			if err != nil {
				return false, "", err
			}
			return p.DeletionTimestamp != nil, fmt.Sprintf("phase %s deletionTimestamp %v", p.Status.Phase, p.DeletionTimestamp), nil
		})
	})
}

// checkNamespaceDeletion: deleting a namespace removes it and everything
// in it: a Deployment's ReplicaSet and Running pods, a Service and its
// EndpointSlices, a ConfigMap, a Secret, a ServiceAccount.
func checkNamespaceDeletion(t *testing.T, c kubernetes.Interface) {
	ns := cpNamespace(t, c, "cp-nsdelete")
	bg := context.Background()
	if _, err := c.AppsV1().Deployments(ns).Create(bg, cpDeployment("doomed", 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "doomed"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := c.CoreV1().Services(ns).Create(bg, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(bg, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Secrets(ns).Create(bg, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(bg, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpWait(t, 90*time.Second, "3 Running pods and an EndpointSlice before the deletion", func(ctx context.Context) (bool, string, error) {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		running := 0
		for i := range pods.Items {
			if podRunning(&pods.Items[i]) {
				running++
			}
		}
		eps, err := c.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		return running == 3 && len(eps.Items) > 0, fmt.Sprintf("pods %s, %d EndpointSlices", podPhases(pods.Items), len(eps.Items)), nil
	})

	if err := c.CoreV1().Namespaces().Delete(bg, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace %s: %v", ns, err)
	}
	cpWait(t, 120*time.Second, "the namespace gone", func(ctx context.Context) (bool, string, error) {
		got, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		var conds []string
		for _, cond := range got.Status.Conditions {
			if cond.Status == corev1.ConditionTrue {
				conds = append(conds, fmt.Sprintf("%s: %s", cond.Type, cond.Message))
			}
		}
		return false, fmt.Sprintf("phase %s finalizers %v conditions %v; left: %s", got.Status.Phase, got.Spec.Finalizers, conds,
			namespaceContents(ctx, c, ns)), nil
	})
	if left := namespaceContents(bg, c, ns); left != "nothing" {
		t.Errorf("after the namespace is gone, left in it: %s", left)
	}
}

// checkApplyDeploy: kubesplit's own manifests (deploy/k8s, with their
// certificates generated) apply with a server-side dry run into an
// existing namespace, every object, and nothing is stored.
func checkApplyDeploy(t *testing.T, c kubernetes.Interface, target controlPlaneTarget) {
	dir := framework.DeployTree(t)
	// The namespace the manifests name must exist, as it does on a
	// cluster they are applied to again: a dry-run create of it stores
	// nothing, so its objects would be refused (namespaces "kubesplit"
	// not found) on any server.
	if _, err := c.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubesplit"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rendered, err := target.kubectl(t, "kustomize", dir)
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, rendered)
	}
	objects := 0
	for _, line := range strings.Split(rendered, "\n") {
		if strings.HasPrefix(line, "kind: ") {
			objects++
		}
	}
	out, err := target.kubectl(t, "apply", "-k", dir, "--dry-run=server")
	if err != nil {
		t.Fatalf("kubectl apply -k deploy/k8s --dry-run=server: %v\n%s", err, out)
	}
	dry := 0
	for _, line := range lines(out) {
		if strings.HasSuffix(line, "(server dry run)") {
			dry++
		}
	}
	if dry != objects {
		t.Errorf("kubectl applied %d objects with a server dry run, the manifests render %d:\n%s", dry, objects, out)
	}
	deployments, err := c.AppsV1().Deployments("kubesplit").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	statefulsets, err := c.AppsV1().StatefulSets("kubesplit").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(deployments.Items) + len(statefulsets.Items); n > 0 {
		t.Errorf("a server-side dry run stored %d Deployments and %d StatefulSets", len(deployments.Items), len(statefulsets.Items))
	}
}

// cpWait polls cond every cpPoll until it holds, failing the test after
// timeout with what cond last saw (state, or the error it met). Errors do
// not end the wait: a controller may be about to fix what they show.
func cpWait(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (ok bool, state string, err error)) {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var state string
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, cpPoll, true, func(ctx context.Context) (bool, error) {
		ok, s, err := cond(ctx)
		// What the deadline itself cut short says nothing about the server.
		if ctx.Err() != nil || err != nil && strings.Contains(err.Error(), "would exceed context deadline") {
			return false, nil
		}
		if s != "" {
			state = s
		}
		lastErr = err
		return ok && err == nil, nil
	})
	if err != nil {
		if lastErr != nil {
			t.Fatalf("timed out after %v waiting for %s: %v (%s); last state: %s", timeout, what, lastErr, statusOf(lastErr), state)
		}
		t.Fatalf("timed out after %v waiting for %s; last state: %s", timeout, what, state)
	}
	t.Logf("%s after %v", what, time.Since(start).Round(time.Millisecond))
}

// statusOf describes an API error's status: code and reason.
func statusOf(err error) string {
	var s apierrors.APIStatus
	if err == nil {
		return "no error"
	}
	if st, ok := err.(apierrors.APIStatus); ok {
		s = st
	} else {
		return fmt.Sprintf("%T", err)
	}
	return fmt.Sprintf("HTTP %d %s", s.Status().Code, s.Status().Reason)
}

// cpNamespace creates a namespace for one check and waits for its default
// ServiceAccount, which pods need and the control plane creates.
func cpNamespace(t testing.TB, c kubernetes.Interface, name string) string {
	t.Helper()
	if _, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	cpWait(t, 30*time.Second, "the default ServiceAccount of "+name, func(ctx context.Context) (bool, string, error) {
		_, err := c.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, "", err
	})
	return name
}

// createFakeNode creates a node kwok manages (by its annotation), without
// a status: kwok makes it Ready.
func createFakeNode(t testing.TB, c kubernetes.Interface, name string) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        name,
		Annotations: map[string]string{framework.KwokNodeAnnotationKey: framework.KwokNodeAnnotationValue},
		Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": name,
			"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"},
	}}
	if _, err := c.CoreV1().Nodes().Create(context.Background(), node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
}

func cpPodTemplate(app string, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			RestartPolicy: restart,
			Containers:    []corev1.Container{{Name: "main", Image: cpImage, Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}},
		},
	}
}

func cpDeployment(app string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: app, Labels: map[string]string{"app": app}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: cpPodTemplate(app, corev1.RestartPolicyAlways),
		},
	}
}

// podRunning is what kwok makes of a pod on a node of its: Running and
// Ready, not being deleted.
func podRunning(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podPhases counts pods by phase (and where they are), for a failure.
func podPhases(pods []corev1.Pod) string {
	count := map[string]int{}
	for i := range pods {
		p := &pods[i]
		key := string(p.Status.Phase)
		switch {
		case p.DeletionTimestamp != nil:
			key += "/deleting"
		case p.Spec.NodeName == "":
			key += "/unscheduled"
		case p.Status.Phase == corev1.PodRunning && !podRunning(p):
			key += "/not-ready"
		}
		count[key]++
	}
	return fmt.Sprintf("%d %v", len(pods), count)
}

func deploymentStatus(st appsv1.DeploymentStatus) string {
	s := fmt.Sprintf("observedGeneration=%d replicas=%d updated=%d ready=%d available=%d", st.ObservedGeneration,
		st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas)
	for _, cond := range st.Conditions {
		s += fmt.Sprintf(" %s=%s(%s)", cond.Type, cond.Status, cond.Reason)
	}
	return s
}

func jobConditions(j *batchv1.Job) string {
	var out []string
	for _, cond := range j.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s(%s)", cond.Type, cond.Status, cond.Reason))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// namespaceContents lists what is left in a namespace, kind by kind, or
// says nothing is.
func namespaceContents(ctx context.Context, c kubernetes.Interface, ns string) string {
	var left []string
	add := func(kind string, n int, err error) {
		switch {
		case err != nil:
			left = append(left, fmt.Sprintf("%s: %v", kind, err))
		case n > 0:
			left = append(left, fmt.Sprintf("%d %s", n, kind))
		}
	}
	opts := metav1.ListOptions{}
	if l, err := c.CoreV1().Pods(ns).List(ctx, opts); err == nil {
		add("pods", len(l.Items), nil)
	} else {
		add("pods", 0, err)
	}
	if l, err := c.AppsV1().Deployments(ns).List(ctx, opts); err == nil {
		add("deployments", len(l.Items), nil)
	} else {
		add("deployments", 0, err)
	}
	if l, err := c.AppsV1().ReplicaSets(ns).List(ctx, opts); err == nil {
		add("replicasets", len(l.Items), nil)
	} else {
		add("replicasets", 0, err)
	}
	if l, err := c.CoreV1().Services(ns).List(ctx, opts); err == nil {
		add("services", len(l.Items), nil)
	} else {
		add("services", 0, err)
	}
	if l, err := c.DiscoveryV1().EndpointSlices(ns).List(ctx, opts); err == nil {
		add("endpointslices", len(l.Items), nil)
	} else {
		add("endpointslices", 0, err)
	}
	if l, err := c.CoreV1().ConfigMaps(ns).List(ctx, opts); err == nil {
		add("configmaps", len(l.Items), nil)
	} else {
		add("configmaps", 0, err)
	}
	if l, err := c.CoreV1().Secrets(ns).List(ctx, opts); err == nil {
		add("secrets", len(l.Items), nil)
	} else {
		add("secrets", 0, err)
	}
	if l, err := c.CoreV1().ServiceAccounts(ns).List(ctx, opts); err == nil {
		add("serviceaccounts", len(l.Items), nil)
	} else {
		add("serviceaccounts", 0, err)
	}
	if len(left) == 0 {
		return "nothing"
	}
	return strings.Join(left, ", ")
}
