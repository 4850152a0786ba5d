package handler

import (
	"net/http"
	"testing"
)

const appsTemplate = `"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`

func init() {
	for k, v := range map[string]string{
		"apps/deployments":         `{"spec":{` + appsTemplate + `}}`,
		"apps/replicasets":         `{"spec":{"replicas":2,` + appsTemplate + `}}`,
		"apps/statefulsets":        `{"spec":{"serviceName":"s",` + appsTemplate + `}}`,
		"apps/daemonsets":          `{"spec":{` + appsTemplate + `}}`,
		"apps/controllerrevisions": `{"revision":1,"data":{"spec":{"template":{"metadata":{"labels":{"app":"a"}}}}}}`,
	} {
		kindSamples[k] = v
	}
}

// ReplicaSets and StatefulSets have the scale subresource Deployments have,
// written through their own strategy (checked against kube-apiserver
// v1.37.2): the Scale shows the selector formatted, and a patch moves
// spec.replicas and the generation; DaemonSets have none.
func TestAppsScaleSubresources(t *testing.T) {
	e := newEnv(t)
	const apps = "/apis/apps/v1/namespaces/ns/"
	for _, c := range []struct{ resource, kind, spec string }{
		{"replicasets", "ReplicaSet", `"replicas":2,`},
		{"statefulsets", "StatefulSet", `"replicas":2,"serviceName":"s",`},
	} {
		e.mustDo("POST", apps+c.resource, `{"apiVersion":"apps/v1","kind":"`+c.kind+`","metadata":{"name":"w"},"spec":{`+c.spec+appsTemplate+`}}`,
			http.StatusCreated)
		s := e.mustDo("PATCH", apps+c.resource+"/w/scale", `{"spec":{"replicas":4}}`, http.StatusOK,
			"Content-Type", "application/merge-patch+json")
		if str(s, "kind") != "Scale" || str(s, "spec.replicas") != "4" || str(s, "status.selector") != "app=a" {
			t.Errorf("%s scale = %v", c.resource, s)
		}
		got := e.mustDo("GET", apps+c.resource+"/w", "", http.StatusOK)
		if str(got, "spec.replicas") != "4" || str(got, "metadata.generation") != "2" {
			t.Errorf("%s after scale: replicas %s generation %s, want 4 and 2", c.resource,
				str(got, "spec.replicas"), str(got, "metadata.generation"))
		}
	}
	e.mustDo("POST", apps+"daemonsets", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"w"},"spec":{`+appsTemplate+`}}`,
		http.StatusCreated)
	e.mustDo("GET", apps+"daemonsets/w/scale", "", http.StatusNotFound)
}
