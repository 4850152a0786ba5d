package validation

import "testing"

// validService is a defaulted ClusterIP service that passes validation.
const validService = `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: ClusterIP
  clusterIP: 10.0.0.10
  selector: {app: web}
  sessionAffinity: None
  internalTrafficPolicy: Cluster
  ipFamilyPolicy: SingleStack
  ports:
  - {name: http, port: 80, targetPort: 8080, protocol: TCP}
  - {name: https, port: 443, targetPort: https, protocol: TCP}
`

func TestValidateService(t *testing.T) {
	base := object(t, validService)
	runValidation(t, ValidateService, []validationCase{
		{name: "valid", obj: base},
		{name: "type enum", obj: with(t, base, edit{"spec.type", "Internal"}),
			want: []string{"spec.type: Unsupported value"}},
		{name: "ports required", obj: with(t, base, edit{"spec.ports", removed}),
			want: []string{"spec.ports: Required value"}},
		{name: "headless needs no ports", obj: with(t, base, edit{"spec.ports", removed}, edit{"spec.clusterIP", "None"})},
		{name: "port range", obj: with(t, base, edit{"spec.ports[0].port", 0}),
			want: []string{"spec.ports[0].port: Invalid value"}},
		{name: "protocol enum", obj: with(t, base, edit{"spec.ports[0].protocol", "HTTP"}),
			want: []string{"spec.ports[0].protocol: Unsupported value"}},
		{name: "names required with several ports", obj: with(t, base, edit{"spec.ports[1].name", removed}),
			want: []string{"spec.ports[1].name: Required value"}},
		{name: "name optional with one port", obj: with(t, base, edit{"spec.ports", []any{map[string]any{
			"port": 80, "targetPort": 80, "protocol": "TCP"}}})},
		{name: "duplicate port names", obj: with(t, base, edit{"spec.ports[1].name", "http"}),
			want: []string{"spec.ports[1].name: Duplicate value"}},
		{name: "duplicate port and protocol", obj: with(t, base, edit{"spec.ports[1].port", 80}),
			want: []string{"spec.ports[1]: Duplicate value"}},
		{name: "target port name invalid", obj: with(t, base, edit{"spec.ports[1].targetPort", "HTTPS_PORT"}),
			want: []string{"spec.ports[1].targetPort: Invalid value", "spec.ports[1].targetPort: Invalid value"}},
		{name: "node port on ClusterIP", obj: with(t, base, edit{"spec.ports[0].nodePort", 30080}),
			want: []string{"spec.ports[0].nodePort: Forbidden"}},
		{name: "sessionAffinity enum", obj: with(t, base, edit{"spec.sessionAffinity", "Cookie"}),
			want: []string{"spec.sessionAffinity: Unsupported value"}},
		{name: "ClientIP needs its timeout", obj: with(t, base, edit{"spec.sessionAffinity", "ClientIP"}),
			want: []string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value"}},
		{name: "clusterIP format", obj: with(t, base, edit{"spec.clusterIP", "10.0.0"}),
			want: []string{"spec.clusterIP: Invalid value"}},
		{name: "internalTrafficPolicy required", obj: with(t, base, edit{"spec.internalTrafficPolicy", removed}),
			want: []string{"spec.internalTrafficPolicy: Required value"}},
		{name: "externalTrafficPolicy only when external", obj: with(t, base, edit{"spec.externalTrafficPolicy", "Local"}),
			want: []string{"spec.externalTrafficPolicy: Invalid value"}},
		{name: "externalTrafficPolicy required for NodePort", obj: with(t, base, edit{"spec.type", "NodePort"}),
			want: []string{"spec.externalTrafficPolicy: Required value"}},
		{name: "ipFamilyPolicy enum", obj: with(t, base, edit{"spec.ipFamilyPolicy", "DualStack"}),
			want: []string{"spec.ipFamilyPolicy: Unsupported value"}},
		{name: "selector labels", obj: with(t, base, edit{"spec.selector", map[string]any{"app": "-bad-"}}),
			want: []string{"spec.selector: Invalid value"}},
		{name: "ExternalName", obj: with(t, base, edit{"spec.type", "ExternalName"}, edit{"spec.externalName", "db.example.com."},
			edit{"spec.clusterIP", removed}, edit{"spec.ports", removed}, edit{"spec.internalTrafficPolicy", removed})},
		{name: "ExternalName needs a name", obj: with(t, base, edit{"spec.type", "ExternalName"}, edit{"spec.clusterIP", removed}),
			want: []string{"spec.externalName: Required value"}},
		{name: "ExternalName has no cluster IP", obj: with(t, base, edit{"spec.type", "ExternalName"}, edit{"spec.externalName", "db"}),
			want: []string{"spec.clusterIP: Forbidden"}},
	})
}

func TestValidateServiceUpdate(t *testing.T) {
	old := object(t, validService)
	unassigned := with(t, old, edit{"spec.clusterIP", removed})
	runValidation(t, ValidateService, []validationCase{
		{name: "unchanged", obj: old, old: old},
		{name: "clusterIP immutable", obj: with(t, old, edit{"spec.clusterIP", "10.0.0.11"}), old: old,
			want: []string{"spec.clusterIP: Invalid value"}},
		{name: "clusterIP may be assigned once", obj: old, old: unassigned},
		{name: "type change to ExternalName drops it", old: old,
			obj: with(t, unassigned, edit{"spec.type", "ExternalName"}, edit{"spec.externalName", "db"},
				edit{"spec.internalTrafficPolicy", removed})},
	})
}

func TestDefaultService(t *testing.T) {
	bare := object(t, `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}
  ports: [{port: 80}, {port: 53, protocol: UDP, targetPort: dns}]
`)
	userSet := object(t, `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: LoadBalancer
  sessionAffinity: ClientIP
  externalTrafficPolicy: Local
  internalTrafficPolicy: Local
  ipFamilyPolicy: PreferDualStack
  allocateLoadBalancerNodePorts: false
  ports: [{port: 80, targetPort: 0}]
`)
	runDefaults(t, DefaultService, []defaultCase{
		{name: "bare", obj: bare, want: map[string]any{
			"spec.type":                  "ClusterIP",
			"spec.sessionAffinity":       "None",
			"spec.sessionAffinityConfig": nil,
			"spec.ports[0].protocol":     "TCP",
			"spec.ports[0].targetPort":   int64(80),
			"spec.ports[1].protocol":     "UDP",
			"spec.ports[1].targetPort":   "dns",
			"spec.internalTrafficPolicy": "Cluster",
			"spec.ipFamilyPolicy":        "SingleStack",
			"spec.externalTrafficPolicy": nil,
			"spec.clusterIP":             nil,
		}},
		{name: "user values kept", obj: userSet, want: map[string]any{
			"spec.type":                                          "LoadBalancer",
			"spec.externalTrafficPolicy":                         "Local",
			"spec.internalTrafficPolicy":                         "Local",
			"spec.ipFamilyPolicy":                                "PreferDualStack",
			"spec.allocateLoadBalancerNodePorts":                 false,
			"spec.sessionAffinityConfig.clientIP.timeoutSeconds": int64(10800),
			"spec.ports[0].targetPort":                           int64(80),
		}},
		{name: "NodePort is external", obj: with(t, bare, edit{"spec.type", "NodePort"}),
			want: map[string]any{"spec.externalTrafficPolicy": "Cluster"}},
		{name: "ExternalName gets no IP policies", obj: with(t, bare, edit{"spec.type", "ExternalName"}),
			want: map[string]any{"spec.internalTrafficPolicy": nil, "spec.ipFamilyPolicy": nil}},
		{name: "headless without selector", obj: with(t, bare, edit{"spec.clusterIP", "None"}, edit{"spec.selector", removed}),
			want: map[string]any{"spec.ipFamilyPolicy": "RequireDualStack"}},
	})
}
