package validation

import "testing"

// validDeployment is a defaulted deployment that passes validation.
const validDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: web}}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 25%, maxSurge: 1}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      restartPolicy: Always
      dnsPolicy: ClusterFirst
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: IfNotPresent
        terminationMessagePolicy: File
`

func TestValidateDeployment(t *testing.T) {
	base := object(t, validDeployment)
	runValidation(t, ValidateDeployment, []validationCase{
		{name: "valid", obj: base},
		{name: "negative replicas", obj: with(t, base, edit{"spec.replicas", -1}),
			want: []string{"spec.replicas: Invalid value"}},
		{name: "selector required", obj: with(t, base, edit{"spec.selector", removed}),
			want: []string{"spec.selector: Required value"}},
		{name: "empty selector", obj: with(t, base, edit{"spec.selector", map[string]any{}}),
			want: []string{"spec.selector: Invalid value"}},
		{name: "selector must match template", obj: with(t, base, edit{"spec.selector.matchLabels", map[string]any{"app": "api"}}),
			want: []string{"spec.template.metadata.labels: Invalid value"}},
		{name: "bad selector operator", obj: with(t, base, edit{"spec.selector.matchExpressions",
			[]any{map[string]any{"key": "app", "operator": "Near", "values": []any{"web"}}}}),
			want: []string{"spec.selector.matchExpressions[0].operator: Invalid value"}},
		{name: "strategy enum", obj: with(t, base, edit{"spec.strategy", map[string]any{"type": "BlueGreen"}}),
			want: []string{"spec.strategy: Unsupported value"}},
		{name: "Recreate takes no rollingUpdate", obj: with(t, base, edit{"spec.strategy.type", "Recreate"}),
			want: []string{"spec.strategy.rollingUpdate: Forbidden"}},
		{name: "maxUnavailable and maxSurge both zero", obj: with(t, base,
			edit{"spec.strategy.rollingUpdate", map[string]any{"maxUnavailable": 0, "maxSurge": "0%"}}),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value"}},
		{name: "bad percentage", obj: with(t, base, edit{"spec.strategy.rollingUpdate.maxSurge", "lots"}),
			want: []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value"}},
		{name: "more than 100% unavailable", obj: with(t, base, edit{"spec.strategy.rollingUpdate.maxUnavailable", "150%"}),
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value"}},
		{name: "progress deadline after minReadySeconds", obj: with(t, base, edit{"spec.minReadySeconds", 600}),
			want: []string{"spec.progressDeadlineSeconds: Invalid value"}},
		{name: "template restarts always", obj: with(t, base, edit{"spec.template.spec.restartPolicy", "OnFailure"}),
			want: []string{"spec.template.spec.restartPolicy: Unsupported value"}},
		{name: "template has no deadline", obj: with(t, base, edit{"spec.template.spec.activeDeadlineSeconds", 30}),
			want: []string{"spec.template.spec.activeDeadlineSeconds: Forbidden"}},
		{name: "template pod spec is validated", obj: with(t, base, edit{"spec.template.spec.containers[0].image", removed}),
			want: []string{"spec.template.spec.containers[0].image: Required value"}},
		{name: "template quantities parse", obj: with(t, base,
			edit{"spec.template.spec.containers[0].resources", map[string]any{"limits": map[string]any{"memory": "big"}}}),
			want: []string{"spec.template.spec.containers[0].resources.limits[memory]: Invalid value"}},
	})
}

func TestValidateDeploymentUpdate(t *testing.T) {
	old := object(t, validDeployment)
	runValidation(t, ValidateDeployment, []validationCase{
		{name: "scale", obj: with(t, old, edit{"spec.replicas", 5}), old: old},
		{name: "selector immutable", old: old,
			obj:  with(t, old, edit{"spec.selector.matchLabels", map[string]any{"tier": "front"}}),
			want: []string{"spec.selector: Invalid value"}},
	})
}

func TestDefaultDeployment(t *testing.T) {
	bare := object(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`)
	runDefaults(t, DefaultDeployment, []defaultCase{
		{name: "bare", obj: bare, want: map[string]any{
			"spec.replicas":                                           int64(1),
			"spec.revisionHistoryLimit":                               int64(10),
			"spec.progressDeadlineSeconds":                            int64(600),
			"spec.strategy.type":                                      "RollingUpdate",
			"spec.strategy.rollingUpdate.maxUnavailable":              "25%",
			"spec.strategy.rollingUpdate.maxSurge":                    "25%",
			"spec.template.spec.restartPolicy":                        "Always",
			"spec.template.spec.dnsPolicy":                            "ClusterFirst",
			"spec.template.spec.schedulerName":                        "default-scheduler",
			"spec.template.spec.terminationGracePeriodSeconds":        int64(30),
			"spec.template.spec.containers[0].imagePullPolicy":        "Always",
			"spec.template.spec.containers[0].terminationMessagePath": "/dev/termination-log",
			"spec.template.spec.enableServiceLinks":                   nil,
		}},
		{name: "user values kept", obj: with(t, bare, edit{"spec.replicas", 0}, edit{"spec.revisionHistoryLimit", 2},
			edit{"spec.strategy", map[string]any{"rollingUpdate": map[string]any{"maxSurge": 0}}}), want: map[string]any{
			"spec.replicas":                              int64(0),
			"spec.revisionHistoryLimit":                  int64(2),
			"spec.strategy.rollingUpdate.maxSurge":       int64(0),
			"spec.strategy.rollingUpdate.maxUnavailable": "25%",
		}},
		{name: "Recreate gets no rollingUpdate", obj: with(t, bare, edit{"spec.strategy", map[string]any{"type": "Recreate"}}),
			want: map[string]any{"spec.strategy.type": "Recreate", "spec.strategy.rollingUpdate": nil}},
	})
}
