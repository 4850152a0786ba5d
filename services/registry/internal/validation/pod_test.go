package validation

import "testing"

// validPod is a defaulted pod that passes validation.
const validPod = `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  restartPolicy: Always
  dnsPolicy: ClusterFirst
  volumes:
  - name: data
    emptyDir: {}
  containers:
  - name: web
    image: nginx:1.27
    imagePullPolicy: IfNotPresent
    terminationMessagePolicy: File
    ports:
    - {name: http, containerPort: 80, protocol: TCP}
    env:
    - {name: MODE, value: prod}
    volumeMounts:
    - {name: data, mountPath: /data}
    resources:
      limits: {cpu: 500m, memory: 128Mi}
      requests: {cpu: 250m, memory: 64Mi}
    livenessProbe:
      httpGet: {path: /, port: 80}
      successThreshold: 1
  - name: sidecar
    image: busybox
    imagePullPolicy: Always
    terminationMessagePolicy: File
`

func TestValidatePod(t *testing.T) {
	base := object(t, validPod)
	runValidation(t, ValidatePod, []validationCase{
		{name: "valid", obj: base},
		{name: "no containers", obj: with(t, base, edit{"spec.containers", []any{}}),
			want: []string{"spec.containers: Required value"}},
		{name: "image required", obj: with(t, base, edit{"spec.containers[0].image", removed}),
			want: []string{"spec.containers[0].image: Required value"}},
		{name: "image whitespace", obj: with(t, base, edit{"spec.containers[0].image", " nginx"}),
			want: []string{"spec.containers[0].image: Invalid value"}},
		{name: "container name required", obj: with(t, base, edit{"spec.containers[1].name", removed}),
			want: []string{"spec.containers[1].name: Required value"}},
		{name: "container name not a DNS label", obj: with(t, base, edit{"spec.containers[1].name", "Side_Car"}),
			want: []string{"spec.containers[1].name: Invalid value"}},
		{name: "duplicate container name", obj: with(t, base, edit{"spec.containers[1].name", "web"}),
			want: []string{"spec.containers[1].name: Duplicate value"}},
		{name: "init container clashes with container",
			obj: with(t, base, edit{"spec.initContainers", []any{map[string]any{"name": "web", "image": "busybox",
				"imagePullPolicy": "Always", "terminationMessagePolicy": "File"}}}),
			want: []string{"spec.initContainers[0].name: Duplicate value"}},
		{name: "restartPolicy enum", obj: with(t, base, edit{"spec.restartPolicy", "Sometimes"}),
			want: []string{"spec.restartPolicy: Unsupported value"}},
		{name: "restartPolicy required", obj: with(t, base, edit{"spec.restartPolicy", removed}),
			want: []string{"spec.restartPolicy: Required value"}},
		{name: "dnsPolicy enum", obj: with(t, base, edit{"spec.dnsPolicy", "Google"}),
			want: []string{"spec.dnsPolicy: Unsupported value"}},
		{name: "dnsPolicy None needs dnsConfig", obj: with(t, base, edit{"spec.dnsPolicy", "None"}),
			want: []string{"spec.dnsConfig: Required value"}},
		{name: "imagePullPolicy enum", obj: with(t, base, edit{"spec.containers[0].imagePullPolicy", "Sometimes"}),
			want: []string{"spec.containers[0].imagePullPolicy: Unsupported value"}},
		{name: "terminationMessagePolicy enum", obj: with(t, base, edit{"spec.containers[0].terminationMessagePolicy", "Log"}),
			want: []string{"spec.containers[0].terminationMessagePolicy: Unsupported value"}},
		{name: "port out of range", obj: with(t, base, edit{"spec.containers[0].ports[0].containerPort", 70000}),
			want: []string{"spec.containers[0].ports[0].containerPort: Invalid value"}},
		{name: "port required", obj: with(t, base, edit{"spec.containers[0].ports[0].containerPort", removed}),
			want: []string{"spec.containers[0].ports[0].containerPort: Required value"}},
		{name: "hostPort out of range", obj: with(t, base, edit{"spec.containers[0].ports[0].hostPort", 0x10000}),
			want: []string{"spec.containers[0].ports[0].hostPort: Invalid value"}},
		{name: "protocol enum", obj: with(t, base, edit{"spec.containers[0].ports[0].protocol", "ICMP"}),
			want: []string{"spec.containers[0].ports[0].protocol: Unsupported value"}},
		{name: "port name invalid", obj: with(t, base, edit{"spec.containers[0].ports[0].name", "much-too-long-port-name"}),
			want: []string{"spec.containers[0].ports[0].name: Invalid value"}},
		{name: "quantity does not parse", obj: with(t, base, edit{"spec.containers[0].resources.limits.cpu", "lots"}),
			want: []string{"spec.containers[0].resources.limits[cpu]: Invalid value"}},
		{name: "negative quantity", obj: with(t, base, edit{"spec.containers[0].resources.requests.cpu", "-1"}),
			want: []string{"spec.containers[0].resources.requests[cpu]: Invalid value"}},
		{name: "request above limit", obj: with(t, base, edit{"spec.containers[0].resources.requests.memory", "1Gi"}),
			want: []string{"spec.containers[0].resources.requests: Invalid value"}},
		{name: "unknown container resource", obj: with(t, base, edit{"spec.containers[0].resources.limits.pods", "1"}),
			want: []string{"spec.containers[0].resources.limits[pods]: Invalid value"}},
		{name: "extended resource needs a limit", obj: with(t, base, edit{"spec.containers[0].resources.requests", map[string]any{"example.com/gpu": "1"}}),
			want: []string{"spec.containers[0].resources.limits: Required value"}},
		{name: "env name required", obj: with(t, base, edit{"spec.containers[0].env[0].name", ""}),
			want: []string{"spec.containers[0].env[0].name: Required value"}},
		{name: "mount of unknown volume", obj: with(t, base, edit{"spec.containers[0].volumeMounts[0].name", "cache"}),
			want: []string{"spec.containers[0].volumeMounts[0].name: Not found"}},
		{name: "mount path required", obj: with(t, base, edit{"spec.containers[0].volumeMounts[0].mountPath", ""}),
			want: []string{"spec.containers[0].volumeMounts[0].mountPath: Required value"}},
		{name: "volume with two sources", obj: with(t, base, edit{"spec.volumes[0].hostPath", map[string]any{"path": "/x"}}),
			// Kube reports the second source in its own order, which is the struct's.
			want: []string{"spec.volumes[0].emptyDir: Forbidden"}},
		{name: "duplicate volume", obj: with(t, base, edit{"spec.volumes", []any{
			map[string]any{"name": "data", "emptyDir": map[string]any{}}, map[string]any{"name": "data", "emptyDir": map[string]any{}}}}),
			want: []string{"spec.volumes[1].name: Duplicate value"}},
		{name: "probe without handler", obj: with(t, base, edit{"spec.containers[0].livenessProbe.httpGet", removed}),
			want: []string{"spec.containers[0].livenessProbe: Required value"}},
		{name: "liveness success threshold", obj: with(t, base, edit{"spec.containers[0].livenessProbe.successThreshold", 2}),
			want: []string{"spec.containers[0].livenessProbe.successThreshold: Invalid value"}},
		{name: "activeDeadlineSeconds range", obj: with(t, base, edit{"spec.activeDeadlineSeconds", 0}),
			want: []string{"spec.activeDeadlineSeconds: Invalid value"}},
		{name: "toleration operator", obj: with(t, base, edit{"spec.tolerations", []any{map[string]any{"key": "k", "operator": "In"}}}),
			want: []string{"spec.tolerations[0].operator: Unsupported value"}},
		{name: "nodeName format", obj: with(t, base, edit{"spec.nodeName", "Node_1"}),
			want: []string{"spec.nodeName: Invalid value"}},
		{name: "wrong JSON type", obj: with(t, base, edit{"spec.containers", "web"}),
			want: []string{"[]: Invalid value"}},
	})
}

func TestValidatePodUpdate(t *testing.T) {
	old := object(t, validPod)
	runValidation(t, ValidatePod, []validationCase{
		{name: "unchanged", obj: old, old: old},
		{name: "image may change", obj: with(t, old, edit{"spec.containers[0].image", "nginx:1.28"}), old: old},
		{name: "tolerations may be added", old: old,
			obj: with(t, old, edit{"spec.tolerations", []any{map[string]any{"key": "k", "operator": "Exists"}}})},
		{name: "deadline may shrink", old: with(t, old, edit{"spec.activeDeadlineSeconds", 100}),
			obj: with(t, old, edit{"spec.activeDeadlineSeconds", 50})},
		{name: "deadline may not grow", old: with(t, old, edit{"spec.activeDeadlineSeconds", 100}),
			obj:  with(t, old, edit{"spec.activeDeadlineSeconds", 200}),
			want: []string{"spec.activeDeadlineSeconds: Invalid value"}},
		{name: "tolerations may not be removed", old: with(t, old, edit{"spec.tolerations", []any{map[string]any{"key": "k", "operator": "Exists"}}}),
			obj:  old,
			want: []string{"spec.tolerations: Forbidden"}},
		{name: "other fields are immutable", old: old, obj: with(t, old, edit{"spec.restartPolicy", "Never"}),
			want: []string{"spec: Forbidden"}},
		{name: "ports are immutable", old: old, obj: with(t, old, edit{"spec.containers[0].ports[0].containerPort", 8080}),
			want: []string{"spec: Forbidden"}},
	})
}
