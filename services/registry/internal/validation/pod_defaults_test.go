package validation

import "testing"

func TestDefaultPod(t *testing.T) {
	bare := object(t, `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  hostNetwork: true
  volumes:
  - name: scratch
  - name: conf
    configMap: {name: conf}
  containers:
  - name: web
    image: registry.local:5000/web
    ports: [{containerPort: 80}]
    resources: {limits: {cpu: "1", memory: 1Gi}}
    livenessProbe: {httpGet: {port: 80}}
    env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
  - name: pinned
    image: nginx:1.27
  - name: digest
    image: nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`)
	userSet := object(t, `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  restartPolicy: Never
  dnsPolicy: Default
  schedulerName: custom
  terminationGracePeriodSeconds: 5
  enableServiceLinks: false
  securityContext: {runAsUser: 1000}
  containers:
  - name: web
    image: nginx
    imagePullPolicy: Never
    terminationMessagePath: /tmp/msg
    terminationMessagePolicy: FallbackToLogsOnError
    ports: [{containerPort: 53, protocol: UDP}]
    resources: {limits: {cpu: "1"}, requests: {cpu: 100m}}
status: {phase: Running, qosClass: Guaranteed}
`)
	runDefaults(t, DefaultPod, []defaultCase{
		{name: "bare pod", obj: bare, want: map[string]any{
			"spec.restartPolicy":                                      "Always",
			"spec.dnsPolicy":                                          "ClusterFirst",
			"spec.schedulerName":                                      "default-scheduler",
			"spec.terminationGracePeriodSeconds":                      int64(30),
			"spec.securityContext":                                    map[string]any{},
			"spec.enableServiceLinks":                                 true,
			"spec.volumes[0].emptyDir":                                map[string]any{},
			"spec.volumes[1].configMap.defaultMode":                   int64(420),
			"spec.containers[0].imagePullPolicy":                      "Always",
			"spec.containers[1].imagePullPolicy":                      "IfNotPresent",
			"spec.containers[2].imagePullPolicy":                      "IfNotPresent",
			"spec.containers[0].terminationMessagePath":               "/dev/termination-log",
			"spec.containers[0].terminationMessagePolicy":             "File",
			"spec.containers[0].ports[0].protocol":                    "TCP",
			"spec.containers[0].ports[0].hostPort":                    int64(80),
			"spec.containers[0].resources.requests":                   map[string]any{"cpu": "1", "memory": "1Gi"},
			"spec.containers[0].livenessProbe.periodSeconds":          int64(10),
			"spec.containers[0].livenessProbe.timeoutSeconds":         int64(1),
			"spec.containers[0].livenessProbe.httpGet.path":           "/",
			"spec.containers[0].livenessProbe.httpGet.scheme":         "HTTP",
			"spec.containers[0].env[0].valueFrom.fieldRef.apiVersion": "v1",
			"status.phase":                                            "Pending",
			"status.qosClass":                                         "Burstable",
		}},
		{name: "user values kept", obj: userSet, want: map[string]any{
			"spec.restartPolicy":                          "Never",
			"spec.dnsPolicy":                              "Default",
			"spec.schedulerName":                          "custom",
			"spec.terminationGracePeriodSeconds":          int64(5),
			"spec.enableServiceLinks":                     false,
			"spec.securityContext":                        map[string]any{"runAsUser": int64(1000)},
			"spec.containers[0].imagePullPolicy":          "Never",
			"spec.containers[0].terminationMessagePath":   "/tmp/msg",
			"spec.containers[0].terminationMessagePolicy": "FallbackToLogsOnError",
			"spec.containers[0].ports[0].protocol":        "UDP",
			"spec.containers[0].ports[0].hostPort":        nil,
			"spec.containers[0].resources.requests":       map[string]any{"cpu": "100m"},
			"status.phase":                                "Running",
			"status.qosClass":                             "Guaranteed",
		}},
		{name: "empty strings count as unset", obj: with(t, userSet, edit{"spec.restartPolicy", ""}),
			want: map[string]any{"spec.restartPolicy": "Always"}},
	})
}

func TestPullPolicyFor(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                         "Always",
		"nginx:latest":                  "Always",
		"nginx:1.27":                    "IfNotPresent",
		"localhost:5000/nginx":          "Always",
		"localhost:5000/nginx:1.27":     "IfNotPresent",
		"nginx@sha256:abc":              "IfNotPresent",
		"nginx:latest@sha256:abc":       "Always",
		"registry.example.com/a/b/c:v2": "IfNotPresent",
		"":                              "IfNotPresent",
	} {
		if got := pullPolicyFor(image); got != want {
			t.Errorf("pullPolicyFor(%q) = %q, want %q", image, got, want)
		}
	}
}
